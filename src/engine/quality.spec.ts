/**
 * Quality on the shared datasets, judged on samples the engine never saw: for three stratified 30% hold-out
 * splits, runAnalysis (typical thoroughness) on the rest, then the `best` pipeline on the held-out part.
 * A single hold-out of ~70 samples (lung) has a standard error near 0.04, so the minimum applies to the mean
 * over the splits. Uses worker threads: needs the compiled engine (npm run build, as `npm test` does first).
 */
import { heldOutPerformance, holdout, loadShared, parameters, SHARED_DATASETS } from '../../bench/engine-datasets';
import { runAnalysis } from './index';
import { metricNames } from './metrics';

jest.setTimeout(240_000);

const SPLITS = [1, 2, 3];
const gaps: number[] = [];

describe.each(SHARED_DATASETS)('quality on $name (typical)', (ds) => {
  it('mean held-out primary metric over three splits reaches the required minimum', async () => {
    const data = loadShared(ds.name);
    const task = 'classification' in ds.outcome ? 'classification' : 'regression' in ds.outcome ? 'regression' : 'survival';
    const primary = metricNames(task, ds.name === 'iris' ? 3 : 2)[0];
    const held: number[] = [];
    for (const split of SPLITS) {
      const { train, test } = holdout(data, ds.outcome, 0.3, split);
      const result = await runAnalysis(train, parameters(ds.outcome, 'typical'), { seed: 7, threads: 2 });
      const best = result.models.best;
      const estimate = best.performance[primary];
      const [lo, hi] = best.performanceCis[primary];
      expect(lo).toBeLessThanOrEqual(estimate);
      expect(hi).toBeGreaterThanOrEqual(estimate);
      const h = heldOutPerformance(result.pipelines.best[0], test, ds.outcome);
      held.push(h);
      gaps.push(Math.abs(estimate - h));
    }
    const mean = held.reduce((a, b) => a + b, 0) / held.length;
    expect(mean).toBeGreaterThanOrEqual(ds.minimum);
  });
});

describe('BBC-CV estimates', () => {
  it('are within 0.03 of held-out performance on average over the twelve analyses', () => {
    expect(gaps).toHaveLength(SHARED_DATASETS.length * SPLITS.length);
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    expect(mean).toBeLessThanOrEqual(0.03);
  });
});
