/**
 * Worker-thread behaviour. Workers run the compiled engine (dist/), so `npm run build` must run first
 * (`npm test` does).
 */
import { loadShared, parameters } from '../../bench/engine-datasets';
import { EngineAbortError, runAnalysis } from './index';
import { liveWorkerCount } from './pool';

// typical analyses inline take ~15 s on a quiet machine; the margin is for a loaded CI machine
jest.setTimeout(300_000);

describe('parallel execution', () => {
  it('gives identical results with 1 and 2 threads for one seed', async () => {
    const lung = loadShared('lung');
    const params = parameters({ survival: { event: 'status', timeToEvent: 'time' } }, 'preliminary');
    const one = await runAnalysis(lung, params, { seed: 42, threads: 1 });
    const two = await runAnalysis(lung, params, { seed: 42, threads: 2 });
    expect(two).toEqual(one);
    expect(one.models.best.performance['Concordance Index']).toBeGreaterThan(0.55);
    expect(liveWorkerCount()).toBe(0);
  });

  it('gives identical classification results inline and on workers', async () => {
    const iris = loadShared('iris');
    const params = parameters({ classification: 'species' }, 'typical');
    const inline = await runAnalysis(iris, params, { seed: 5, threads: 0 });
    const workers = await runAnalysis(iris, params, { seed: 5, threads: 2 });
    expect(workers).toEqual(inline);
  });

  it('stops within 2 seconds of an abort, leaving no worker thread', async () => {
    const bc = loadShared('breast_cancer');
    const controller = new AbortController();
    const progress: number[] = [];
    const run = runAnalysis(bc, parameters({ classification: 'diagnosis' }, 'typical'), {
      seed: 1,
      threads: 2,
      signal: controller.signal,
      onProgress: (f) => progress.push(f),
    });
    const outcome = run.then(
      () => 'finished',
      (e: Error) => e,
    );
    await new Promise((r) => setTimeout(r, 1500));
    expect(liveWorkerCount()).toBe(2);
    const t0 = Date.now();
    controller.abort();
    const err = await outcome;
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(err).toBeInstanceOf(EngineAbortError);
    expect((err as Error).name).toBe('AbortError');
    expect(liveWorkerCount()).toBe(0);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[progress.length - 1]).toBeLessThan(1);
  });

  it('reports progress at least every 2 seconds, never decreasing, up to 1', async () => {
    const calls: [number, number][] = [];
    const t0 = Date.now();
    const result = await runAnalysis(loadShared('diabetes'), parameters({ regression: 'progression' }, 'typical'), {
      seed: 3,
      threads: 2,
      onProgress: (f) => calls.push([Date.now(), f]),
    });
    const end = Date.now();
    expect(result.models.best.performance['R Squared']).toBeGreaterThan(0.4);
    const times = [t0, ...calls.map((c) => c[0]), end];
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeLessThan(2000);
    for (let i = 1; i < calls.length; i++) expect(calls[i][1]).toBeGreaterThanOrEqual(calls[i - 1][1]);
    expect(calls[calls.length - 1][1]).toBe(1);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      runAnalysis(loadShared('iris'), parameters({ classification: 'species' }, 'preliminary'), {
        seed: 1,
        threads: 2,
        signal: controller.signal,
      }),
    ).rejects.toThrow(EngineAbortError);
  });
});
