import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TEST_DATA } from './utils';
import { freePort } from './free-port';
import { postgresOf, queryOnce, waitFor } from './processes';

/**
 * Issue 41, findings 4 and 5, on the service as `npm start` runs it (`node dist/src/main.js`, its embedded PostgreSQL):
 * kill -9 of the postmaster while an analysis runs, and SIGTERM of the service while an analysis runs. Each spawns the
 * service in a data directory of its own.
 */
const ROOT = path.resolve(__dirname, '..');

interface Service {
  dir: string;
  base: string;
  /** the log lines the service wrote (JSON) */
  lines: () => Record<string, unknown>[];
  start: () => Promise<ChildProcess>;
  call: (route: string, body?: unknown, raw?: Buffer) => Promise<{ http: number; body: Record<string, unknown> }>;
  payload: <T = Record<string, string>>(route: string, body?: unknown, raw?: Buffer) => Promise<T>;
  postmaster: () => number;
  query: <T>(sql: string, params?: unknown[]) => Promise<T[]>;
  cleanUp: () => void;
}

async function service(extra: Record<string, string> = {}): Promise<Service> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-outage-'));
  const port = await freePort();
  const pgPort = await freePort();
  const env = {
    ...process.env,
    DATA_DIR: dir,
    PORT: String(port),
    EMBEDDED_PG_PORT: String(pgPort),
    LOG_LEVEL: 'log',
    LOG_FORMAT: 'json',
    WORKER_CORES: '2',
    JOB_POLL_MS: '100',
    ...extra,
  };
  const base = `http://127.0.0.1:${port}/api/public/v1`;
  const children: ChildProcess[] = [];
  let output = '';
  const start = async () => {
    const c = spawn(process.execPath, ['dist/src/main.js'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
    c.stdout.on('data', (d: Buffer) => (output += d.toString('utf8')));
    children.push(c);
    await waitFor(async () => ((await fetch(`${base}/health/ready`)).ok ? true : undefined), 60_000, 'ready');
    return c;
  };
  const token = () => (JSON.parse(fs.readFileSync(path.join(dir, 'admin-credentials.json'), 'utf8')) as { token: string }).token;
  const call = async (route: string, body?: unknown, raw?: Buffer) => {
    const res = await fetch(`${base}${route}`, {
      method: body === undefined && raw === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token()}`, 'content-type': raw ? 'application/octet-stream' : 'application/json' },
      body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    return { http: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const payload = async <T>(route: string, body?: unknown, raw?: Buffer) => {
    const { body: json } = await call(route, body, raw);
    if (json.status !== 'success') throw new Error(`${route}: ${JSON.stringify(json)}`);
    return json.payload as T;
  };
  const databaseUrl = () =>
    `postgresql://postgres:${encodeURIComponent(fs.readFileSync(path.join(dir, 'pg-password'), 'utf8').trim())}@127.0.0.1:${pgPort}/signet`;
  const query = <T>(sql: string, params: unknown[] = []) => queryOnce<T>(databaseUrl(), sql, params);
  return {
    dir,
    base,
    lines: () =>
      output
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    start,
    call,
    payload,
    postmaster: () => Number(fs.readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]),
    query,
    cleanUp: () => {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      for (const pid of postgresOf(path.join(dir, 'pg'))) process.kill(pid, 'SIGQUIT');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface Status {
  state: string;
  progress?: number;
}

/** The breast cancer dataset, and an analysis of it running past its first progress. */
async function runningAnalysis(s: Service, thoroughness: string): Promise<string> {
  const { projectId } = await s.payload('/createProject', { name: 'outage' });
  await s.payload('/file/cancer/upload', undefined, fs.readFileSync(path.join(TEST_DATA, 'breast_cancer.csv')));
  const size = fs.statSync(path.join(TEST_DATA, 'breast_cancer.csv')).size;
  const { taskId } = await s.payload('/file/cancer/createDataset', { projectId, name: 'cancer', fileSizeInBytes: size });
  const task = await waitFor(
    async () => {
      const t = await s.payload<{ state: string; datasetId?: string }>(`/task/${taskId}/status`);
      return t.state === 'finished' ? t : undefined;
    },
    60_000,
    'the dataset',
  );
  const { analysisId } = await s.payload(`/dataset/${task.datasetId}/analyze`, {
    outcome: { classification: 'diagnosis' },
    thoroughness,
    coreCount: 2,
    name: 'outage',
  });
  await waitFor(
    async () => {
      const st = await s.payload<Status>(`/analysis/${analysisId}/status`);
      return st.state === 'running' && (st.progress ?? 0) > 0 ? true : undefined;
    },
    120_000,
    'the analysis running',
  );
  return analysisId;
}

const ended = (s: Service, analysisId: string) =>
  waitFor(
    async () => {
      const st = await s.payload<Status>(`/analysis/${analysisId}/status`);
      return st.state === 'finished' || st.state === 'failed' ? st : undefined;
    },
    300_000,
    'the analysis to end',
  );

it('kill -9 of the embedded postmaster mid-analysis: requests answer unavailable-1-0-1 (never 500), the service starts it again, and the analysis finishes on its first attempt', async () => {
  const s = await service();
  try {
    const first = await s.start();
    const analysisId = await runningAnalysis(s, 'typical');
    const killed = s.postmaster();
    process.kill(killed, 'SIGKILL');
    const t0 = Date.now();
    // every answer during the outage is an envelope (or 403 for a token the guard could not check: never 500)
    const answers: string[] = [];
    await waitFor(
      async () => {
        const { http, body } = await s.call('/projects/owned/0/10');
        answers.push(http === 200 ? String(body.status === 'success' ? 'success' : body.code) : `HTTP ${http}`);
        return body.status === 'success' && Date.now() - t0 > 200 ? true : undefined;
      },
      30_000,
      'the service to answer again',
    );
    const recovered = Date.now() - t0;
    expect(answers.filter((a) => a !== 'success' && a !== 'unavailable-1-0-1')).toEqual([]);
    expect(answers).toContain('unavailable-1-0-1');
    expect(recovered).toBeLessThan(30_000);
    expect(s.postmaster()).not.toBe(killed);
    const end = await ended(s, analysisId);
    expect(end.state).toBe('finished');
    expect(await s.query(`SELECT state, attempts FROM jobs WHERE analysis_id = $1`, [analysisId])).toEqual([
      { state: 'done', attempts: 1 },
    ]);
    const lines = s.lines();
    // the outage told once, with its end; requests answered unavailable each with a line
    expect(lines.filter((l) => String(l.msg).startsWith('the embedded PostgreSQL (pid'))).toHaveLength(1);
    expect(lines.some((l) => String(l.msg).startsWith('the embedded PostgreSQL is running again'))).toBe(true);
    expect(lines.some((l) => l.msg === 'database unavailable' && l.level === 'warn')).toBe(true);
    expect(lines.filter((l) => l.level === 'error' && String(l.msg).startsWith('job tick failed'))).toEqual([]);
    expect(lines.filter((l) => l.msg === 'unhandled error')).toEqual([]);
    const done = new Promise<number | null>((resolve) => first.once('exit', resolve));
    first.kill('SIGTERM');
    expect(await done).toBe(0);
    expect(postgresOf(path.join(s.dir, 'pg'))).toEqual([]);
  } finally {
    s.cleanUp();
  }
}, 600_000);

it('SIGTERM mid-analysis hands the job back before the embedded PostgreSQL stops: the restarted service takes it at once, on the same attempt', async () => {
  const s = await service({ JOB_LEASE_SECONDS: '60' });
  try {
    const first = await s.start();
    const analysisId = await runningAnalysis(s, 'typical');
    const done = new Promise<number | null>((resolve) => first.once('exit', resolve));
    first.kill('SIGTERM');
    expect(await done).toBe(0);
    expect(s.lines().filter((l) => l.event === 'job.handBackRetry' || l.event === 'job.handBackFailed')).toEqual([]);
    expect(s.lines().filter((l) => l.event === 'job.handedBack')).toHaveLength(1);
    // the next start takes it at once (its lease of 60 s would hold it otherwise), with no attempt spent
    const restarted = Date.now();
    const second = await s.start();
    await waitFor(
      async () => ((await s.payload<Status>(`/analysis/${analysisId}/status`)).state === 'running' ? true : undefined),
      30_000,
      'running again',
    );
    expect(Date.now() - restarted).toBeLessThan(30_000);
    expect(await s.query(`SELECT state, attempts FROM jobs WHERE analysis_id = $1`, [analysisId])).toEqual([
      { state: 'running', attempts: 1 },
    ]);
    const stopped = new Promise<number | null>((resolve) => second.once('exit', resolve));
    second.kill('SIGTERM');
    expect(await stopped).toBe(0);
  } finally {
    s.cleanUp();
  }
}, 600_000);
