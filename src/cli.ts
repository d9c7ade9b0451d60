import 'reflect-metadata';
import { Command, InvalidArgumentError } from 'commander';
import { DataSource } from 'typeorm';
import { AppConfig, ConfigError, loadConfig } from './config/config';
import { dataSourceOptions, describeDatabase, resolveDatabase, runMigrations } from './database/database';
import { EmbeddedElsewhereError } from './database/embedded-postgres';
import { TokenEntity } from './auth/token.entity';
import { UserEntity } from './auth/user.entity';
import { MAX_CORES, UsersService, UserInputError } from './auth/users.service';
import { jobsFollowTheirSubjects } from './jobs/jobs.queries';
import { SERVICE_VERSION } from './version';

/**
 * The operator's command line: `npm run --silent cli -- <command>`. Results are JSON lines on stdout (one
 * per user for `users list`); what the command did around them (which database) goes to stderr.
 */

/** Opens the configured database (DATABASE_URL, else the embedded server of DATA_DIR), runs `fn`, closes. */
async function withUsers<T>(fn: (users: UsersService) => Promise<T>): Promise<T> {
  const config: AppConfig = loadConfig();
  // The CLI must not make a second, empty embedded database when pointed at the wrong DATA_DIR
  // (unless told to with --new-database: a second service on this machine, say).
  const refuseIfRunningElsewhere = !program.opts<{ newDatabase?: boolean }>().newDatabase;
  const db = await resolveDatabase(config, () => undefined, { refuseIfRunningElsewhere });
  process.stderr.write(`database: ${describeDatabase(config, db)}\n`);
  const ds = new DataSource(dataSourceOptions(db.url, 2, 0, [UserEntity, TokenEntity]));
  try {
    await runMigrations(db.url);
    await ds.initialize();
    return await fn(new UsersService(ds, config, jobsFollowTheirSubjects));
  } finally {
    if (ds.isInitialized) await ds.destroy();
    await db.embedded?.stop();
  }
}

function print(value: unknown): void {
  process.stdout.write(JSON.stringify(value) + '\n');
}

function positiveInt(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_CORES)
    throw new InvalidArgumentError(`must be an integer from 1 to ${MAX_CORES}`);
  return Number(raw);
}

/** The new password: --password, else everything piped on stdin (without its final line break). */
async function passwordFrom(option: string | undefined): Promise<string> {
  if (option !== undefined) return option;
  if (process.stdin.isTTY) throw new UserInputError('give the new password with --password, or pipe it on stdin');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (!password) throw new UserInputError('no password on stdin');
  return password;
}

const program = buildProgram();

function buildProgram(): Command {
  const program = new Command('signet-cli')
    .description('Signet operator commands: users and tokens. Uses DATABASE_URL, else the embedded PostgreSQL of DATA_DIR.')
    .version(SERVICE_VERSION)
    .option('--new-database', 'create an embedded database in DATA_DIR even while Signet runs with another DATA_DIR')
    .showHelpAfterError()
    .addHelpText('after', '\nEach command prints its result as JSON lines on stdout and the database it used on stderr.');

  const users = program.command('users').description('create, list, disable, delete users; set passwords, cores and emails');
  users
    .command('create')
    .description('create a user and print {"userId", "token"}')
    .argument('<username>', '1 to 64 of A-Za-z0-9._-')
    .requiredOption('--password <password>', 'at least 8 characters')
    .option('--email <email>', 'email address (login works with it too)')
    .option('--cores <n>', 'core quota for analyses (default: WORKER_CORES)', positiveInt)
    .action(async (username: string, o: { password: string; email?: string; cores?: number }) =>
      print(await withUsers((u) => u.createUser({ username, password: o.password, email: o.email, cores: o.cores }))),
    );
  users
    .command('list')
    .description('print one JSON line per user: userId, username, email, cores, disabled, projects, activeTokens, createdAt')
    .action(async () => (await withUsers((u) => u.listUsers())).forEach(print));
  users
    .command('disable')
    .description('disable a user: they cannot log in and their tokens are refused (their data stays)')
    .argument('<username>')
    .action(async (username: string) => print(await withUsers((u) => u.setDisabled(username, true))));
  users
    .command('enable')
    .description('enable a disabled user again')
    .argument('<username>')
    .action(async (username: string) => print(await withUsers((u) => u.setDisabled(username, false))));
  users
    .command('delete')
    .description(
      "delete a user with every project they own (datasets, analyses, predictions), their files, shares and tokens; their work in others' projects passes to those projects' owners",
    )
    .argument('<username>')
    .option('--yes', 'confirm: without it nothing is deleted')
    .action(async (username: string, o: { yes?: boolean }) =>
      print(
        await withUsers(async (u) => {
          await u.userIdOf(username); // an unknown name is said so, with or without --yes
          if (!o.yes) {
            throw new UserInputError(`this deletes ${username} and every project they own; run again with --yes to confirm`);
          }
          return u.deleteUser(username);
        }),
      ),
    );
  users
    .command('set')
    .description("change a user's core quota and/or email, and print the user's settings")
    .argument('<username>')
    .option('--cores <n>', 'core quota for analyses (an integer from 1 to 1024)', positiveInt)
    .option('--email <email>', 'email address (login works with it too; not one another user has)')
    .action(async (username: string, o: { cores?: number; email?: string }) => {
      if (o.cores === undefined && o.email === undefined) throw new UserInputError('nothing to set: give --cores and/or --email');
      print(await withUsers((u) => u.updateUser(username, o)));
    });
  users
    .command('password')
    .description("set a user's password (from --password, else read from stdin); their tokens stay valid")
    .argument('<username>')
    .option('--password <password>', 'the new password (at least 8 characters); omit it to pipe the password on stdin')
    .action(async (username: string, o: { password?: string }) => {
      const password = await passwordFrom(o.password);
      print(await withUsers((u) => u.setPassword(username, password)));
    });

  const tokens = program.command('tokens').description('list, create or revoke access tokens');
  tokens
    .command('list')
    .description(
      'print one JSON line per live token of a user: tokenId, createdAt, lastUsedAt (to the minute; null if never used), expiresAt (never the token)',
    )
    .argument('<username>')
    .action(async (username: string) => (await withUsers((u) => u.listTokens(username))).forEach(print));
  tokens
    .command('create')
    .description('create a token for a user and print {"userId", "token"}')
    .argument('<username>')
    .action(async (username: string) => print(await withUsers((u) => u.createTokenFor(username))));
  tokens
    .command('revoke')
    .description('revoke every token of a user and print {"userId", "revokedTokens"}')
    .argument('<username>')
    .action(async (username: string) => print(await withUsers((u) => u.revokeTokens(username))));
  return program;
}

program.parseAsync(process.argv).then(
  () => process.exit(0),
  (e: unknown) => {
    const known = e instanceof UserInputError || e instanceof ConfigError || e instanceof EmbeddedElsewhereError;
    process.stderr.write(`${known ? 'error' : 'failed'}: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
