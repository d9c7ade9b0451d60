import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { INestApplication, Logger } from '@nestjs/common';
import { createApp } from '../src/app';
import { createRootLogger, nestLogger } from '../src/common/logger';
import { loadConfig } from '../src/config/config';
import { runMigrations } from '../src/database/database';
import { ensureDatabase, startEmbeddedPostgres } from '../src/database/embedded-postgres';
import { UsersService } from '../src/auth/users.service';
import { DATA_DIR } from './engine-datasets';

const run = promisify(execFile);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Where a benchmark's requests go, and as whom. */
export interface BenchClient {
  base: string;
  auth: string;
}

export interface BenchServer extends BenchClient {
  app: INestApplication;
  stop: () => Promise<void>;
}

/** The service as `npm start` runs it, in a process of its own (with its HTTP processes and engine processes). */
export interface BenchService extends BenchClient {
  pid: number;
  /** its DATA_DIR, and the URL of its embedded PostgreSQL's database (a bench may read and write it directly) */
  dir: string;
  databaseUrl: string;
  /** resolves with the process's exit code (null when a signal ended it) */
  exited: Promise<number | null>;
  /** Runs the CLI against the service's database; returns its JSON answer. */
  cli: (...args: string[]) => Promise<unknown>;
  /** SIGTERM, then waits for the exit; removes DATA_DIR unless it was given (startService's `dir`). */
  stop: () => Promise<void>;
}

/**
 * Starts `node dist/src/main.js` on 127.0.0.1 with its embedded PostgreSQL in a temp dir, and logs in as the
 * admin it bootstraps. `env` adds settings (WORKER_CORES, MAX_UPLOADS_PER_USER, ...).
 */
export async function startService(
  env: Record<string, string> = {},
  again?: { dir: string; port: number; pgPort: number },
): Promise<BenchService & { port: number; pgPort: number }> {
  const dir = again?.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'signet-bench-'));
  fs.chmodSync(dir, 0o755);
  const port = again?.port ?? (await freePort());
  const pgPort = again?.pgPort ?? (await freePort());
  const fullEnv = {
    ...process.env,
    DATA_DIR: dir,
    HOST: '127.0.0.1',
    PORT: String(port),
    EMBEDDED_PG_PORT: String(pgPort),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'error',
    ...env,
  };
  const root = path.resolve(__dirname, '..', '..');
  const child = spawn(
    process.execPath,
    [...(process.env.BENCH_SERVICE_FLAGS?.split(' ') ?? []), path.join(root, 'dist', 'src', 'main.js')],
    {
      env: fullEnv,
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}/api/public/v1`;
  const credentials = path.join(dir, 'admin-credentials.json');
  for (const end = Date.now() + 120_000; ;) {
    const ok = await fetch(`${base}/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok && fs.existsSync(credentials)) break;
    if (child.exitCode !== null || Date.now() > end) throw new Error('the service did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
  const { token } = JSON.parse(fs.readFileSync(credentials, 'utf8')) as { token: string };
  const password = fs.readFileSync(path.join(dir, 'pg-password'), 'utf8').trim();
  return {
    base,
    auth: `Bearer ${token}`,
    pid: child.pid!,
    dir,
    port,
    pgPort,
    databaseUrl: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/signet`,
    exited,
    cli: async (...args: string[]) => {
      const { stdout } = await run(process.execPath, [path.join(root, 'dist', 'src', 'cli.js'), ...args], { env: fullEnv });
      return JSON.parse(stdout.trim()) as unknown;
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      if (!again) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The real service on 127.0.0.1 with its own embedded PostgreSQL in a temp dir (`dir` when given: a bench
 * that finds PostgreSQL's processes by it), and a user's token.
 */
export async function startServer(
  env: Record<string, string> = {},
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-bench-')),
): Promise<BenchServer> {
  fs.chmodSync(dir, 0o755);
  const pg = await startEmbeddedPostgres(dir, await freePort());
  await ensureDatabase(pg.url('postgres'), 'bench');
  await runMigrations(pg.url('bench'));
  // the service's log is shown when LOG_LEVEL is set (e.g. LOG_LEVEL=log: the parse and store times of a dataset)
  const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: process.env.LOG_LEVEL ?? 'error', ...env });
  const root = process.env.LOG_LEVEL ? createRootLogger(config.logFormat, config.logLevel) : undefined;
  const logger = root && nestLogger(root);
  if (logger) Logger.overrideLogger(logger);
  const app = await createApp({ config, databaseUrl: pg.url('bench'), http: true, logger: root }, logger);
  const port = await freePort();
  await app.listen(port, '127.0.0.1');
  const { token } = await app.get(UsersService).createUser({ username: 'bench', password: 'bench-password', cores: 64 });
  return {
    app,
    base: `http://127.0.0.1:${port}/api/public/v1`,
    auth: `Bearer ${token}`,
    stop: async () => {
      await app.close();
      await pg.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Uploads `file` as the file `fileId`, streamed from disk (never held whole here); its stored size. */
export function uploadFile(base: string, auth: string, fileId: string, file: string): Promise<{ sizeInBytes: number }> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${base}/file/${fileId}/upload`);
    const req = http.request(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'text/csv' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => {
          const json = JSON.parse(body) as { status: string; payload: { sizeInBytes: number } };
          if (json.status === 'success') resolve(json.payload);
          else reject(new Error(body));
        });
      },
    );
    req.on('error', reject);
    fs.createReadStream(file, { highWaterMark: 1 << 20 }).pipe(req);
  });
}

/** A task's status, as GET /task/:taskId/status answers it. */
export interface TaskStatus {
  state: string;
  datasetId?: string;
  error?: unknown;
}

/** A dataset, as GET /dataset/:datasetId answers it. */
export interface DatasetInfo {
  sampleCount: number;
  featureCount: number;
  sizeInBytes: number;
}

/** A JSON call; returns the payload (typed by the caller) or throws with the error envelope. */
export async function call<T = unknown>(s: BenchClient, method: 'GET' | 'POST', route: string, body?: unknown): Promise<T> {
  const res = await fetch(s.base + route, {
    method,
    headers: { authorization: s.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { status: string; payload: T; code?: string; message?: string };
  if (json.status !== 'success') throw new Error(`${route}: ${json.code} ${json.message}`);
  return json.payload;
}

/** Samples the process's resident memory every 100 ms; `peak()` gives the highest seen, in MB. */
/** Uploads test/data/breast_cancer.csv (or SIGNET_DATA_DIR's) into a new project and waits for its dataset task to end. */
export async function breastCancerDataset(
  s: BenchClient,
): Promise<{ projectId: string; taskId: string; task: { state: string; datasetId?: string } }> {
  const csv = fs.readFileSync(path.join(DATA_DIR, 'breast_cancer.csv'));
  await fetch(`${s.base}/file/bc/upload`, { method: 'POST', headers: { authorization: s.auth, 'content-type': 'text/csv' }, body: csv });
  const { projectId } = await call<{ projectId: string }>(s, 'POST', '/createProject', { name: 'bench' });
  const { taskId } = await call<{ taskId: string }>(s, 'POST', '/file/bc/createDataset', {
    projectId,
    name: 'breast_cancer',
    fileSizeInBytes: csv.length,
  });
  let task: TaskStatus;
  do {
    await new Promise((r) => setTimeout(r, 100));
    task = await call(s, 'GET', `/task/${taskId}/status`);
  } while (task.state !== 'finished' && task.state !== 'failed');
  return { projectId, taskId, task };
}

export function rssSampler(): { peak: () => number; stop: () => void } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  return { peak: () => Math.round(peak / 1048576), stop: () => clearInterval(timer) };
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The rows of one statement, on a connection of its own to `url` (closed after it). */
export async function queryOnce<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const db = new Client({ connectionString: url });
  db.on('error', () => undefined);
  await db.connect();
  try {
    return (await db.query(sql, params)).rows as T[];
  } finally {
    await db.end();
  }
}
