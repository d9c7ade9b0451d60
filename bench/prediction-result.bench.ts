/**
 * How long a large prediction holds up the service's event loop: an iris model predicts a dataset of `rows` samples
 * (default 300,000: iris rows with noise), in the API process with its job workers (the default set-up). A timer
 * every 10 ms in this process (the service's) records the longest stall of its event loop, for the prediction job
 * (from the predict call until finished), the JSON result read and the CSV result read, with their wall times.
 *   npm run build && node dist/bench/prediction-result.bench.js [--rows 300000]
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, startServer, BenchClient } from './server';
import { DATA_DIR } from './engine-datasets';

const arg = (name: string, d: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};

/** The longest gap between ticks of a 10 ms timer while `work` runs, and the work's wall time. */
async function stallDuring<T>(work: () => Promise<T>): Promise<{ value: T; seconds: number; stallMs: number }> {
  let last = performance.now();
  let stall = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last - 10);
    last = now;
  }, 10);
  const t0 = performance.now();
  try {
    const value = await work();
    return { value, seconds: (performance.now() - t0) / 1000, stallMs: stall };
  } finally {
    clearInterval(timer);
  }
}

async function dataset(s: BenchClient, projectId: string, name: string, csv: Buffer): Promise<string> {
  await fetch(`${s.base}/file/${name}/upload`, {
    method: 'POST',
    headers: { authorization: s.auth, 'content-type': 'text/csv' },
    body: csv,
  });
  const { taskId } = await call<{ taskId: string }>(s, 'POST', `/file/${name}/createDataset`, {
    projectId,
    name,
    fileSizeInBytes: csv.length,
  });
  for (;;) {
    const task = await call<{ state: string; datasetId?: string }>(s, 'GET', `/task/${taskId}/status`);
    if (task.state === 'finished') return task.datasetId as string;
    if (task.state === 'failed') throw new Error(`dataset ${name} failed`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function until(s: BenchClient, route: string): Promise<void> {
  for (;;) {
    const { state } = await call<{ state: string }>(s, 'GET', route);
    if (state === 'finished') return;
    if (state === 'failed') throw new Error(`${route}: failed`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function main(): Promise<void> {
  const rows = arg('rows', 300_000);
  const s = await startServer({ WORKER_CORES: '2' });
  try {
    const iris = fs.readFileSync(path.join(DATA_DIR, 'iris.csv'), 'utf8').trim().split('\n');
    const { projectId } = await call<{ projectId: string }>(s, 'POST', '/createProject', { name: 'bench' });
    const irisId = await dataset(s, projectId, 'iris', Buffer.from(iris.join('\n') + '\n'));
    const { analysisId } = await call<{ analysisId: string }>(s, 'POST', `/dataset/${irisId}/analyze`, {
      outcome: { classification: 'species' },
      thoroughness: 'preliminary',
      coreCount: 2,
      name: 'model',
    });
    await until(s, `/analysis/${analysisId}/status`);
    const lines = [iris[0]];
    for (let i = 0; i < rows; i++) {
      const cells = iris[1 + (i % (iris.length - 1))].split(',');
      lines.push([...cells.slice(0, 4).map((v) => (Number(v) + (((i * 7919) % 100) - 50) / 1000).toFixed(3)), cells[4]].join(','));
    }
    const bigId = await dataset(s, projectId, 'big', Buffer.from(lines.join('\n') + '\n'));
    console.log(`signet prediction-result benchmark: ${rows} rows predicted by an iris model, node ${process.version}`);
    const job = await stallDuring(async () => {
      const { predictionId } = await call<{ predictionId: string }>(s, 'POST', `/analysis/${analysisId}/predict/${bigId}`, {
        modelKey: 'best',
      });
      await until(s, `/prediction/${predictionId}/status`);
      return predictionId;
    });
    const id = job.value;
    const json = await stallDuring(async () =>
      (await fetch(`${s.base}/prediction/${id}/result`, { headers: { authorization: s.auth } })).text(),
    );
    const csv = await stallDuring(async () =>
      (await fetch(`${s.base}/prediction/${id}/result?format=csv`, { headers: { authorization: s.auth } })).text(),
    );
    const parsed = JSON.parse(json.value) as { payload: { predictions: unknown[] } };
    if (parsed.payload.predictions.length !== rows) throw new Error('the result lacks rows');
    const show = (what: string, r: { seconds: number; stallMs: number }, mb?: number) =>
      console.log(
        `${what.padEnd(22)} ${r.seconds.toFixed(2).padStart(7)} s   longest event-loop stall ${r.stallMs.toFixed(0).padStart(6)} ms${mb ? `   ${mb.toFixed(1)} MB` : ''}`,
      );
    show('prediction job', job);
    show('result (JSON)', json, Buffer.byteLength(json.value) / 1e6);
    show('result (CSV)', csv, Buffer.byteLength(csv.value) / 1e6);
  } finally {
    await s.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
