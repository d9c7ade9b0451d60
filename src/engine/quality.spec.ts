/**
 * Quality on the shared datasets, judged on samples the engine never saw: for three stratified 30% hold-out
 * splits, runAnalysis (typical thoroughness) on the rest, then the `best` pipeline on the held-out part.
 * A single hold-out of ~70 samples (lung) has a standard error near 0.04, so the minimum applies to the mean
 * over the splits. Uses worker threads: needs the compiled engine (npm run build, as `npm test` does first).
 *
 * Each test asks for the analyses it judges (heldOutAnalyses); they run once per file, whichever test asks
 * first, so any test can run alone or in any order.
 */
import { heldOutPerformance, holdout, loadShared, parameters, SHARED_DATASETS, SharedDataset } from '../../bench/engine-datasets';
import { MULTICLASS_AUC_TOLERANCE } from './calibration';
import { predict, runAnalysis } from './index';
import { metricNames } from './metrics';

/** One analysis takes up to about a minute on two busy cores. */
const PER_DATASET_MS = 240_000;

const SPLITS = [1, 2, 3];

/**
 * One hold-out split's analysis: the BBC-CV estimate of the best model, its interval, and its held-out value; for
 * classification, each shown model's held-out primary metric with and without its calibration map, and its held-out
 * probabilities.
 */
interface SplitResult {
  estimate: number;
  interval: [number, number];
  heldOut: number;
  calibrations: { calibrated: number; uncalibrated: number; probabilities: number[]; classes: number }[];
}

const analyses = new Map<string, Promise<SplitResult[]>>();

/** The analyses of `ds` on its three splits (run on first request, then shared by the tests of this file). */
function heldOutAnalyses(ds: SharedDataset): Promise<SplitResult[]> {
  let pending = analyses.get(ds.name);
  if (!pending) {
    pending = analyze(ds);
    analyses.set(ds.name, pending);
  }
  return pending;
}

async function analyze(ds: SharedDataset): Promise<SplitResult[]> {
  const data = loadShared(ds.name);
  const task = 'classification' in ds.outcome ? 'classification' : 'regression' in ds.outcome ? 'regression' : 'survival';
  const primary = metricNames(task, ds.name === 'iris' ? 3 : 2)[0];
  const results: SplitResult[] = [];
  for (const split of SPLITS) {
    const { train, test } = holdout(data, ds.outcome, 0.3, split);
    const result = await runAnalysis(train, parameters(ds.outcome, 'typical'), { seed: 7, threads: 2 });
    const best = result.models.best;
    const calibrations =
      task === 'classification'
        ? Object.values(result.pipelines).map(([pipeline]) => ({
            calibrated: heldOutPerformance(pipeline, test, ds.outcome),
            uncalibrated: heldOutPerformance({ ...pipeline, calibration: undefined }, test, ds.outcome),
            probabilities: predict(pipeline, test).flatMap((r) => Object.values(r.probabilities as Record<string, number>)),
            classes: pipeline.classes.length,
          }))
        : [];
    results.push({
      estimate: best.performance[primary],
      interval: best.performanceCis[primary],
      heldOut: heldOutPerformance(result.pipelines.best[0], test, ds.outcome),
      calibrations,
    });
  }
  return results;
}

describe.each(SHARED_DATASETS)('quality on $name (typical)', (ds) => {
  it(
    'mean held-out primary metric over three splits reaches the required minimum, and no less than before signatures',
    async () => {
      const results = await heldOutAnalyses(ds);
      for (const { estimate, interval } of results) {
        expect(interval[0]).toBeLessThanOrEqual(estimate);
        expect(interval[1]).toBeGreaterThanOrEqual(estimate);
      }
      const mean = results.reduce((a, r) => a + r.heldOut, 0) / results.length;
      expect(mean).toBeGreaterThanOrEqual(ds.minimum);
      // signatures (SES, LASSO) cost at most the tolerance against the univariate filter they replaced
      expect(mean).toBeGreaterThanOrEqual(ds.beforeSignatures.mean - ds.beforeSignatures.tolerance);
    },
    PER_DATASET_MS,
  );
});

describe('BBC-CV estimates', () => {
  it(
    'are within 0.03 of held-out performance on average over the twelve analyses',
    async () => {
      const gaps: number[] = [];
      for (const ds of SHARED_DATASETS) for (const r of await heldOutAnalyses(ds)) gaps.push(Math.abs(r.estimate - r.heldOut));
      expect(gaps).toHaveLength(SHARED_DATASETS.length * SPLITS.length);
      const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
      expect(mean).toBeLessThanOrEqual(0.03);
    },
    PER_DATASET_MS * SHARED_DATASETS.length,
  );
});

describe.each(SHARED_DATASETS.filter((d) => 'classification' in d.outcome))('calibration on $name (typical)', (ds) => {
  it(
    'leaves a binary held-out AUC as it is, lowers a multiclass one by at most MULTICLASS_AUC_TOLERANCE, and gives no probability of exactly 0 or 1',
    async () => {
      for (const { calibrations } of await heldOutAnalyses(ds)) {
        expect(calibrations.length).toBeGreaterThan(0);
        for (const c of calibrations) {
          if (c.classes === 2) expect(Math.abs(c.calibrated - c.uncalibrated)).toBeLessThan(1e-12);
          else expect(c.calibrated).toBeGreaterThanOrEqual(c.uncalibrated - MULTICLASS_AUC_TOLERANCE);
          expect(c.probabilities.every((p) => p > 0 && p < 1)).toBe(true);
        }
      }
    },
    PER_DATASET_MS,
  );
});
