import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { ConfigError, loadConfig } from './config/config';
import { dataSourceOptions, resolveDatabase, runMigrations } from './database/database';
import { UsersService, UserInputError } from './auth/users.service';

const USAGE = `usage:
  npm run cli -- users create <username> --password <pw> [--email <e>] [--cores <n>]
  npm run cli -- tokens create <username>
Each command prints one JSON line {"userId": "...", "token": "..."}.`;

function parseFlags(args: string[]): { positional: string[]; flags: Record<string, string> } {
  const positional: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a.startsWith('--')) {
      const [k, inline] = a.slice(2).split('=', 2);
      const v = inline ?? args[++i];
      if (v === undefined) throw new UserInputError(`--${k} needs a value`);
      flags[k] = v;
    } else positional.push(a);
  }
  return { positional, flags };
}

async function main(argv: string[]): Promise<number> {
  const { positional, flags } = parseFlags(argv);
  const [noun, verb, username] = positional;
  const known = (noun === 'users' || noun === 'tokens') && verb === 'create' && !!username;
  if (!known) {
    process.stderr.write(USAGE + '\n');
    return 2;
  }
  const allowed = noun === 'users' ? ['password', 'email', 'cores'] : [];
  const unknown = Object.keys(flags).filter((f) => !allowed.includes(f));
  if (unknown.length) throw new UserInputError(`unknown option --${unknown[0]}`);
  if (noun === 'users' && !flags.password) throw new UserInputError('--password is required');

  const config = loadConfig();
  const db = await resolveDatabase(config, () => undefined);
  const ds = new DataSource(dataSourceOptions(db.url, 2));
  try {
    await runMigrations(db.url);
    await ds.initialize();
    const users = new UsersService(ds, config);
    let out: { userId: string; token: string };
    if (noun === 'users') {
      if (flags.cores !== undefined && !/^\d+$/.test(flags.cores)) {
        throw new UserInputError('--cores must be a positive integer');
      }
      out = await users.createUser({
        username,
        password: flags.password,
        email: flags.email,
        cores: flags.cores === undefined ? undefined : Number(flags.cores),
      });
    } else {
      out = await users.createTokenFor(username);
    }
    process.stdout.write(JSON.stringify(out) + '\n');
    return 0;
  } finally {
    if (ds.isInitialized) await ds.destroy();
    await db.embedded?.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    if (e instanceof UserInputError || e instanceof ConfigError) {
      process.stderr.write(`error: ${e.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
