/**
 * The fifth review's database and shutdown checks (issue 41, findings 4 and 5), on the service as `npm start` runs it
 * (its embedded PostgreSQL):
 *   npm run bench:outage [-- --kills 3 --stops 10 --thoroughness typical]
 * - kill -9 of the embedded postmaster while an analysis runs (`--kills` times): every answer to an authenticated route
 *   polled every 100 ms until the service answers again (their codes; an HTTP 500 is a failure), the seconds until it
 *   does, and the attempts the analysis's job had spent when it finished (1: none lost to the outage).
 * - `--stops` clean stops (SIGTERM) of the service while an analysis runs, each followed by a start on the same data:
 *   the exit codes, the job's state and attempts right after each stop (queued with 0: handed back), and the attempts
 *   when the analysis finished.
 * The machine is shared (2 cores): the recovery times differ between runs.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DATA_DIR } from './engine-datasets';
import { call, percentile, queryOnce, startService } from './server';

const arg = (name: string, d: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : d;
};

type Service = Awaited<ReturnType<typeof startService>>;

async function waitFor<T>(read: () => Promise<T>, done: (v: T) => boolean, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read().catch(() => undefined);
    if (v !== undefined && done(v)) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Status {
  state: string;
  progress?: number;
}

/** The breast cancer dataset of a new project. */
async function cancer(s: Service): Promise<string> {
  const csv = fs.readFileSync(path.join(DATA_DIR, 'breast_cancer.csv'));
  await fetch(`${s.base}/file/bc/upload`, { method: 'POST', headers: { authorization: s.auth, 'content-type': 'text/csv' }, body: csv });
  const { projectId } = await call<{ projectId: string }>(s, 'POST', '/createProject', { name: 'outage' });
  const { taskId } = await call<{ taskId: string }>(s, 'POST', '/file/bc/createDataset', {
    projectId,
    name: 'breast_cancer',
    fileSizeInBytes: csv.length,
  });
  const task = await waitFor(
    () => call<{ state: string; datasetId?: string }>(s, 'GET', `/task/${taskId}/status`),
    (t) => t.state === 'finished',
    120_000,
  );
  return task.datasetId!;
}

async function analysisRunning(s: Service, datasetId: string, thoroughness: string): Promise<string> {
  const { analysisId } = await call<{ analysisId: string }>(s, 'POST', `/dataset/${datasetId}/analyze`, {
    outcome: { classification: 'diagnosis' },
    thoroughness,
    coreCount: 2,
    name: 'outage',
  });
  await midRun(s, analysisId);
  return analysisId;
}

const midRun = (s: Service, analysisId: string) =>
  waitFor(
    () => call<Status>(s, 'GET', `/analysis/${analysisId}/status`),
    (a) => a.state === 'running' && (a.progress ?? 0) > 0,
    180_000,
  );

const ended = (s: Service, analysisId: string) =>
  waitFor(
    () => call<Status>(s, 'GET', `/analysis/${analysisId}/status`),
    (a) => a.state === 'finished' || a.state === 'failed',
    1_800_000,
  );

async function kills(count: number, thoroughness: string): Promise<void> {
  process.stdout.write(`kill -9 of the embedded postmaster mid-analysis (${count} times)\n`);
  for (let k = 1; k <= count; k++) {
    const s = await startService({ WORKER_CORES: '2' });
    try {
      const analysisId = await analysisRunning(s, await cancer(s), thoroughness);
      const postmaster = Number(fs.readFileSync(path.join(s.dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(postmaster, 'SIGKILL');
      const killed = Date.now();
      const answers = new Map<string, number>();
      let back = 0;
      while (Date.now() - killed < 120_000) {
        const res = await fetch(`${s.base}/projects/owned/0/10`, { headers: { authorization: s.auth } }).catch(() => undefined);
        const body = res && ((await res.json().catch(() => ({}))) as { status?: string; code?: string });
        const said = !res
          ? 'no answer'
          : res.status !== 200
            ? `HTTP ${res.status}`
            : body?.status === 'success'
              ? 'success'
              : String(body?.code);
        answers.set(said, (answers.get(said) ?? 0) + 1);
        if (said === 'success' && Date.now() - killed > 200) {
          back = Date.now() - killed;
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      const said = [...answers].map(([a, n]) => `${n} x ${a}`).join('; ');
      if (!back) {
        process.stdout.write(`  run ${k}: not answering again within 120 s (${said})\n`);
        continue;
      }
      const end = await ended(s, analysisId);
      const [job] = await queryOnce<{ attempts: number; state: string }>(
        s.databaseUrl,
        'SELECT state, attempts FROM jobs WHERE analysis_id = $1',
        [analysisId],
      );
      process.stdout.write(
        `  run ${k}: answering again after ${(back / 1000).toFixed(1)} s (${said}); analysis ${end.state}, job ${job.state} on attempt ${job.attempts}\n`,
      );
    } finally {
      await s.stop();
    }
  }
}

async function stops(count: number, thoroughness: string): Promise<void> {
  process.stdout.write(`\n${count} clean stops (SIGTERM) mid-analysis, each followed by a start on the same data\n`);
  let s = await startService({ WORKER_CORES: '2' });
  const again = { dir: s.dir, port: s.port, pgPort: s.pgPort };
  const seconds: number[] = [];
  try {
    const analysisId = await analysisRunning(s, await cancer(s), thoroughness);
    for (let k = 1; k <= count; k++) {
      const t = Date.now();
      process.kill(s.pid, 'SIGTERM');
      const code = await s.exited;
      seconds.push((Date.now() - t) / 1000);
      // the database is stopped with the service: read the job row through a start of the service's own server
      s = await startService({ WORKER_CORES: '2', RUN_WORKERS: 'false' }, again);
      const [job] = await queryOnce<{ state: string; attempts: number }>(
        s.databaseUrl,
        'SELECT state, attempts FROM jobs WHERE analysis_id = $1',
        [analysisId],
      );
      process.kill(s.pid, 'SIGTERM');
      await s.exited;
      process.stdout.write(
        `  stop ${k}: exit code ${code} after ${seconds[k - 1].toFixed(1)} s; job ${job.state}, attempts ${job.attempts}\n`,
      );
      s = await startService({ WORKER_CORES: '2' }, again);
      if (k < count) await midRun(s, analysisId);
    }
    const end = await ended(s, analysisId);
    const [job] = await queryOnce<{ attempts: number; state: string }>(
      s.databaseUrl,
      'SELECT state, attempts FROM jobs WHERE analysis_id = $1',
      [analysisId],
    );
    const sorted = [...seconds].sort((a, b) => a - b);
    process.stdout.write(
      `  analysis ${end.state}, job ${job.state} on attempt ${job.attempts}; stops took ${percentile(sorted, 50).toFixed(1)} s (median), ${sorted[sorted.length - 1].toFixed(1)} s (max)\n`,
    );
  } finally {
    process.kill(s.pid, 'SIGTERM');
    await s.exited;
    fs.rmSync(again.dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const thoroughness = arg('thoroughness', 'typical');
  await kills(Number(arg('kills', '3')), thoroughness);
  await stops(Number(arg('stops', '10')), thoroughness);
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});
