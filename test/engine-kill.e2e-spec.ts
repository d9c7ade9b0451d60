import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { SPARE_ARG } from '../src/common/engine-process';
import { TEST_DATA } from './utils';
import { freePort } from './free-port';
import { postgresOf, processes, waitFor } from './processes';

/**
 * kill -9 of the service (`node dist/src/main.js`, embedded PostgreSQL) while an analysis and a dataset build
 * run in its engine processes: the engine processes go with it, and after a restart both jobs end (each
 * run to completion once), and SIGTERM then leaves no PostgreSQL running.
 */
const ROOT = path.resolve(__dirname, '..');

/** The engine processes of process `pid` that run a job (not the spare it keeps ready: engine-process.ts). */
const engineProcessesOf = (pid: number) => processes('engine-host.js', SPARE_ARG).filter((p) => p.ppid === pid);

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** A numeric table of about 40 MB: its build takes a few seconds. */
function bigCsv(): Buffer {
  const cols = 30;
  const lines = [['outcome', ...Array.from({ length: cols }, (_, j) => `x${j}`)].join(',')];
  for (let i = 0; i < 150_000; i++) {
    const row = [String(i % 2)];
    for (let j = 0; j < cols; j++) row.push(((i * 7919 + j * 104729) % 100003).toString() + '.25');
    lines.push(row.join(','));
  }
  return Buffer.from(lines.join('\n'));
}

it('kill -9 of the service mid-analysis and mid-dataset-build: after a restart both end once, and nothing is left running', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-engine-kill-'));
  const port = await freePort();
  const pgPort = await freePort();
  const env = {
    ...process.env,
    DATA_DIR: dir,
    PORT: String(port),
    EMBEDDED_PG_PORT: String(pgPort),
    LOG_LEVEL: 'error',
    WORKER_CORES: '2',
    JOB_POLL_MS: '100',
    JOB_LEASE_SECONDS: '3',
  };
  const base = `http://127.0.0.1:${port}/api/public/v1`;
  const children: ChildProcess[] = [];
  const start = async () => {
    const c = spawn(process.execPath, ['dist/src/main.js'], { cwd: ROOT, env, stdio: 'ignore' });
    children.push(c);
    await waitFor(async () => ((await fetch(`${base}/health/ready`)).ok ? true : undefined), 60_000, 'ready');
    return c;
  };
  const pgDir = path.join(dir, 'pg');
  try {
    const first = await start();
    const { token } = JSON.parse(fs.readFileSync(path.join(dir, 'admin-credentials.json'), 'utf8')) as { token: string };
    const call = async (route: string, body?: unknown, raw?: Buffer) => {
      const res = await fetch(`${base}${route}`, {
        method: body === undefined && raw === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': raw ? 'application/octet-stream' : 'application/json' },
        body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
      });
      const json = (await res.json()) as { status: string; payload: Record<string, unknown> };
      if (json.status !== 'success') throw new Error(`${route}: ${JSON.stringify(json)}`);
      return json.payload as Record<string, string>;
    };
    const createDataset = async (projectId: string, name: string, content: Buffer) => {
      const fileId = `f${name}`;
      await call(`/file/${fileId}/upload`, undefined, content);
      return (await call(`/file/${fileId}/createDataset`, { projectId, name, fileSizeInBytes: content.length })).taskId;
    };
    const status = (route: string) => call(route) as Promise<{ state: string; datasetId?: string; error?: unknown }>;
    const ended = (route: string) =>
      waitFor(
        async () => {
          const s = await status(route);
          return s.state === 'finished' || s.state === 'failed' ? s : undefined;
        },
        180_000,
        route,
      );

    const { projectId } = await call('/createProject', { name: 'kill' });
    const cancerTask = await createDataset(projectId, 'cancer', fs.readFileSync(path.join(TEST_DATA, 'breast_cancer.csv')));
    const cancer = (await ended(`/task/${cancerTask}/status`)).datasetId!;
    const { analysisId } = await call(`/dataset/${cancer}/analyze`, {
      outcome: { classification: 'diagnosis' },
      thoroughness: 'typical',
      coreCount: 1,
      name: 'killed',
    });
    const buildTask = await createDataset(projectId, 'big', bigCsv());
    // both running, each in an engine process of the service
    await waitFor(
      async () => {
        const [a, b] = await Promise.all([status(`/analysis/${analysisId}/status`), status(`/task/${buildTask}/status`)]);
        return a.state === 'running' && b.state === 'running' && engineProcessesOf(first.pid!).length === 2 ? true : undefined;
      },
      60_000,
      'both jobs running',
    );
    const engines = engineProcessesOf(first.pid!).map((p) => p.pid);
    first.kill('SIGKILL');
    await exited(first);
    // the engine processes notice their parent is gone and stop computing
    await waitFor(async () => (engines.every((pid) => !fs.existsSync(`/proc/${pid}`)) ? true : undefined), 5000, 'engines to end');

    const second = await start();
    const analysis = await ended(`/analysis/${analysisId}/status`);
    const build = await ended(`/task/${buildTask}/status`);
    expect({ analysis: analysis.state, build: build.state, error: build.error ?? analysis.error }).toEqual({
      analysis: 'finished',
      build: 'finished',
      error: undefined,
    });
    expect(build.datasetId).toMatch(/^\d+$/);

    // each ran to completion exactly once: one result, one dataset, the second attempt done
    const db = new Client({
      host: '127.0.0.1',
      port: pgPort,
      user: 'postgres',
      password: fs.readFileSync(path.join(dir, 'pg-password'), 'utf8').trim(),
      database: 'signet',
    });
    await db.connect();
    try {
      const [{ results }] = (await db.query('SELECT count(*)::int AS results FROM analysis_results WHERE analysis_id = $1', [analysisId]))
        .rows;
      const [{ datasets }] = (await db.query(`SELECT count(*)::int AS datasets FROM datasets WHERE name = 'big'`)).rows;
      const jobs = (await db.query(`SELECT kind, state, attempts FROM jobs WHERE kind IN ('analysis', 'createDataset') ORDER BY kind, id`))
        .rows;
      expect({ results, datasets }).toEqual({ results: 1, datasets: 1 });
      expect(jobs).toEqual([
        { kind: 'analysis', state: 'done', attempts: 2 },
        { kind: 'createDataset', state: 'done', attempts: 1 },
        { kind: 'createDataset', state: 'done', attempts: 2 },
      ]);
    } finally {
      await db.end();
    }

    const done = exited(second);
    second.kill('SIGTERM');
    expect(await done).toBe(0);
    expect(postgresOf(pgDir)).toEqual([]);
    expect(engineProcessesOf(second.pid!)).toEqual([]);
  } finally {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const pid of postgresOf(pgDir)) process.kill(pid, 'SIGQUIT');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 300_000);
