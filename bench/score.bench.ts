/**
 * Latency of scoring rows within a request (POST /analysis/:id/score): p50 and p99 over `--calls` calls each of 1,
 * 100 and 1,000 rows of breast_cancer, scored by a preliminary analysis's best model, while an `extensive` analysis
 * of the same data runs on every core (`--busy 0`: with nothing else running, the baseline on a busy machine).
 *   npm run bench:score [-- --calls 100 --busy 1]
 * Starts the service as `npm start` runs it (dist/src/main.js) on 127.0.0.1 with its own embedded PostgreSQL; the
 * calls go one after another from this process.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DATA_DIR } from './engine-datasets';
import { breastCancerDataset, call, percentile, startService } from './server';

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};

/** breast_cancer's rows as the score body takes them (feature name -> number). */
function rows(): Record<string, number>[] {
  const [head, ...lines] = fs.readFileSync(path.join(DATA_DIR, 'breast_cancer.csv'), 'utf8').trim().split('\n');
  const names = head.split(',');
  return lines.map((l) =>
    Object.fromEntries(l.split(',').flatMap((cell, k) => (names[k] === 'diagnosis' ? [] : [[names[k], Number(cell)]]))),
  );
}

async function analysis(s: Parameters<typeof call>[0], datasetId: string, thoroughness: string, cores: number): Promise<string> {
  const body = { outcome: { classification: 'diagnosis' }, thoroughness, coreCount: cores, name: `score bench ${thoroughness}` };
  return (await call<{ analysisId: string }>(s, 'POST', `/dataset/${datasetId}/analyze`, body)).analysisId;
}

async function main(): Promise<void> {
  const calls = arg('calls', 100);
  const busy = arg('busy', 1) > 0;
  const cores = os.availableParallelism();
  const s = await startService({ WORKER_CORES: String(cores) });
  try {
    const { task } = await breastCancerDataset(s);
    const datasetId = task.datasetId as string;
    const model = await analysis(s, datasetId, 'preliminary', 1);
    for (let state = ''; state !== 'finished';) {
      await new Promise((r) => setTimeout(r, 500));
      state = (await call<{ state: string }>(s, 'GET', `/analysis/${model}/status`)).state;
      if (state === 'failed') throw new Error('the analysis failed');
    }
    const result = await call<{ models: { best: { model: string } } }>(s, 'GET', `/analysis/${model}/result`);
    const background = busy ? await analysis(s, datasetId, 'extensive', cores) : undefined;
    if (background) await new Promise((r) => setTimeout(r, 3000));
    const all = rows();
    // the first call starts the scoring thread (score-thread.ts): timed apart
    const first = performance.now();
    await call(s, 'POST', `/analysis/${model}/score`, { modelKey: 'best', rows: all.slice(0, 1) });
    console.log(`score: ${calls} calls per size, one after another; model: ${result.models.best.model}`);
    console.log(`the first call (the scoring thread started): ${(performance.now() - first).toFixed(1)} ms`);
    console.log(busy ? `while an extensive analysis runs on ${cores} cores (breast_cancer)` : 'nothing else running');
    console.log('rows\tp50 ms\tp99 ms\tmax ms');
    for (const n of [1, 100, 1000]) {
      const body = { modelKey: 'best', rows: Array.from({ length: n }, (_, i) => all[i % all.length]) };
      const times: number[] = [];
      for (let k = 0; k < calls; k++) {
        const start = performance.now();
        await call(s, 'POST', `/analysis/${model}/score`, body);
        times.push(performance.now() - start);
      }
      times.sort((a, b) => a - b);
      console.log(`${n}\t${percentile(times, 50).toFixed(1)}\t${percentile(times, 99).toFixed(1)}\t${times[times.length - 1].toFixed(1)}`);
    }
    if (background) {
      const state = (await call<{ state: string }>(s, 'GET', `/analysis/${background}/status`)).state;
      console.log(`the extensive analysis was ${state} at the end`);
    }
  } finally {
    process.kill(s.pid, 'SIGTERM');
    await s.exited;
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
