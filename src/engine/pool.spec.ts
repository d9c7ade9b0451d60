/**
 * The task runner's two queues: batch tasks first, prefetched tasks on threads no batch task needs. Workers run the
 * compiled engine (dist/), so `npm run build` must run first (`npm test` does).
 */
import { loadShared, parameters } from '../../bench/engine-datasets';
import { prepareData } from './data';
import { buildGrid } from './grid';
import { runTask, TaskData, TaskResult, TaskSpec } from './pipeline';
import { bootstrapMatrix } from './bbc';
import { matrixOnPool } from './compute';
import { sharedFloat64 } from './shared-memory';
import { MEAN_AUC } from './metrics';
import { createRunner, liveWorkerCount } from './pool';
import { Rng } from './rng';

jest.setTimeout(60_000);

const params = parameters({ classification: 'species' }, 'typical');
const prepared = prepareData(loadShared('iris'), params, true);
const data: TaskData = { ...prepared, maxSignatureSize: 25, seed: 1 };
const configs = buildGrid(params, prepared.task, prepared.features.length, prepared.n);
const train = Int32Array.from({ length: 120 }, (_, i) => i);
const test = Int32Array.from({ length: prepared.n - 120 }, (_, i) => 120 + i);
const features = prepared.features.map((_, f) => f);

/** A model fit with id `id` (a configuration of the grid per id). */
const task = (id: number): TaskSpec => ({ id, config: configs[id], train, test, seedIds: [id, 0], fixedFeatures: features });

describe.each([1, 0])('a runner with %i thread(s)', (threads) => {
  it('runs batch tasks before prefetched ones, which run when asked for or when a thread is free, with the same results', async () => {
    const runner = createRunner(data, threads);
    const order: number[] = [];
    const results = new Map<number, TaskResult>();
    const record = (r: TaskResult): void => {
      order.push(r.id);
      results.set(r.id, r);
    };
    try {
      const first = runner.run([task(0)], record);
      const ahead = runner.prefetch([task(10), task(11), task(12)], record);
      ahead.drop((t) => t.id === 12);
      await Promise.all([first, runner.run([task(1), task(2)], record)]);
      // the batch finished without waiting for the prefetch
      expect(order.slice(0, 3)).toEqual([0, 1, 2]);
      await ahead.done();
      expect(order).toEqual([0, 1, 2, 10, 11]);
      for (const id of order)
        expect(Array.from(results.get(id)?.predictions ?? [])).toEqual(Array.from(runTask(data, task(id)).predictions));
    } finally {
      await runner.close();
    }
    expect(liveWorkerCount()).toBe(0);
  });
});

describe('a runner with 2 threads', () => {
  it('gives an idle thread the prefetched tasks while a batch task runs, and ignores the result of one dropped while running', async () => {
    const runner = createRunner(data, 2);
    const order: number[] = [];
    try {
      const ahead = runner.prefetch([task(10), task(11)], (r) => order.push(r.id));
      // both threads took a prefetched task at once: none of the batch waits
      const batch = runner.run([task(0)], (r) => order.push(r.id));
      ahead.drop((t) => t.id === 11);
      await batch;
      await ahead.done();
      // task 11 was running when dropped: its result never reaches the callback
      await runner.run([task(1), task(2), task(3)], (r) => order.push(r.id));
      expect(order.filter((id) => id >= 10)).toEqual([10]);
      expect(order.filter((id) => id < 10).sort()).toEqual([0, 1, 2, 3]);
    } finally {
      await runner.close();
    }
  });
});

describe.each([2, 0])('a bootstrap matrix on a runner with %i thread(s)', (threads) => {
  it('is the matrix computed here, to the bit (metric and losses), its sets in pieces on the threads', async () => {
    const K = prepared.classes.length;
    const ctx = {
      outcome: { y: prepared.y },
      classCount: K,
      units: Int32Array.from({ length: prepared.n }, (_, i) => i),
      unitCount: prepared.n,
    };
    // 7 sets of noisy probabilities over shared arrays, two repeats each
    const rng = new Rng(5);
    const sets = Array.from({ length: 7 }, () =>
      Array.from({ length: 2 }, () => {
        const p = sharedFloat64(prepared.n * K);
        for (let i = 0; i < prepared.n; i++) {
          for (let k = 0; k < K; k++) p[i * K + k] = rng.next() + (prepared.y[i] === k ? 0.5 : 0);
          const s = p.subarray(i * K, (i + 1) * K).reduce((a, v) => a + v, 0);
          for (let k = 0; k < K; k++) p[i * K + k] /= s;
        }
        return p;
      }),
    );
    // and each set's per-sample losses (the winner rule's log loss), weighted on the same bootstraps
    const losses = sets.map(() => Float64Array.from({ length: prepared.n }, () => rng.next()));
    const args = { sets, losses, metric: MEAN_AUC, ctx, draw: ctx, B: 50 };
    const expected = bootstrapMatrix({ ...args, rng: new Rng(9) });
    const runner = createRunner(data, threads);
    try {
      const got = await matrixOnPool(runner)({ ...args, rng: new Rng(9) });
      expect(Array.from(got.point)).toEqual(Array.from(expected.point));
      expect(Array.from(got.values)).toEqual(Array.from(expected.values));
      expect(Array.from(got.losses ?? [])).toEqual(Array.from(expected.losses ?? [NaN]));
    } finally {
      await runner.close();
    }
  });
});
