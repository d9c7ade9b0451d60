import { parameters } from '../../bench/engine-datasets';
import { syntheticMulticlass, syntheticWide } from '../../bench/synthetic-shapes';
import { startRun } from './analysis/run';
import { runAnalysis } from './protocol';
import type { EngineDataset } from './types';

const outcome = { classification: 'class' };

/** The progress reported when the first fold's selections are done (the first result of an inline run), and the run's prices. */
async function firstProgress(data: EngineDataset): Promise<{ first: number; tasks: number; work: ReturnType<typeof startRun>['work'] }> {
  const reported: number[] = [];
  const params = parameters(outcome, 'preliminary', 0);
  const run = startRun(data, params, { seed: 1, threads: 0 });
  await run.runner.close();
  run.progress.stop();
  await runAnalysis(data, params, { seed: 1, threads: 0, onProgress: (f) => reported.push(f) });
  return { first: reported.find((f) => f > 0) ?? 0, tasks: run.cvTasks, work: run.work };
}

describe('Progress', () => {
  it('counts each task as its price in the cost model, so a selection on thousands of features is most of the work', async () => {
    const wide = await firstProgress(syntheticWide(60, 2000, 3));
    // one selection task on 2,000 features is priced as a hundred model fits on its signature
    expect(wide.work.selection / wide.work.fit).toBeGreaterThan(100);
    // so the first fold's selection, one of the cross-validation's 800 tasks (50 folds x 14 models and a selection),
    // is about 1% of the work, not 1/800
    expect(wide.first).toBeGreaterThan(6 / wide.tasks);
    // on 5 features a selection is priced below a model fit: the first fold's selection is less than one task's share
    const narrow = await firstProgress(syntheticMulticlass(120, 5, 2, 3, 7, 2));
    expect(narrow.work.selection).toBeLessThan(narrow.work.fit);
    expect(narrow.first).toBeLessThan(1 / narrow.tasks);
  });
});
