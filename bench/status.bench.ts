/**
 * GET status latency while two analyses run on both cores (issue 4: p99 < 100 ms).
 *   npm run build && node dist/bench/status.bench.js [--requests 400] [--concurrency 8]
 * Starts the real service on 127.0.0.1 with its own embedded PostgreSQL; traffic goes to 127.0.0.1 only.
 */
import { breastCancerDataset, call, percentile, startServer } from './server';

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};

async function main() {
  const requests = arg('requests', 400);
  const concurrency = arg('concurrency', 8);
  const s = await startServer({ WORKER_CORES: '2' });
  try {
    const { task } = await breastCancerDataset(s);
    const body = { outcome: { classification: 'diagnosis' }, thoroughness: 'extensive', coreCount: 1, name: 'load' };
    const ids = [
      (await call<{ analysisId: string }>(s, 'POST', `/dataset/${task.datasetId}/analyze`, body)).analysisId,
      (await call<{ analysisId: string }>(s, 'POST', `/dataset/${task.datasetId}/analyze`, body)).analysisId,
    ];
    const running = async () =>
      (await Promise.all(ids.map((id) => call<{ state: string }>(s, 'GET', `/analysis/${id}/status`)))).every((x) => x.state === 'running');
    while (!(await running())) await new Promise((r) => setTimeout(r, 100));

    const measure = async (count: number, parallel: number) => {
      const latencies: number[] = [];
      let next = 0;
      const deadline = Date.now() + 60_000;
      const one = async () => {
        while (next < count && Date.now() < deadline) {
          const id = ids[next++ % 2];
          const t0 = performance.now();
          await call(s, 'GET', `/analysis/${id}/status`);
          latencies.push(performance.now() - t0);
        }
      };
      const t0 = Date.now();
      await Promise.all(Array.from({ length: parallel }, one));
      const wall = (Date.now() - t0) / 1000;
      latencies.sort((a, b) => a - b);
      const f = (x: number) => `${x.toFixed(1)} ms`;
      const p99 = percentile(latencies, 99);
      process.stdout.write(
        `concurrency ${parallel}: ${latencies.length} requests in ${wall.toFixed(1)} s; ` +
          `p50 ${f(percentile(latencies, 50))}  p90 ${f(percentile(latencies, 90))}  p99 ${f(p99)}  max ${f(latencies[latencies.length - 1])}` +
          `  (target p99 < 100 ms: ${p99 < 100 ? 'met' : 'MISSED'})\n`,
      );
    };
    process.stdout.write('GET /analysis/:id/status while two analyses run on 2 cores (extensive, breast_cancer)\n');
    await measure(Math.ceil(requests / 2), 1);
    await measure(requests, concurrency);
    process.stdout.write(`both analyses still running at the end: ${await running()}\n`);
    for (const id of ids) await call(s, 'POST', `/analysis/${id}/delete`);
  } finally {
    await s.stop();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exit(1);
  },
);
