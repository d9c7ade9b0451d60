import { heldOutPerformance, holdout, loadShared, parameters, SHARED_DATASETS } from '../bench/engine-datasets';
import { predict, runAnalysis } from '../src/engine';
import { MULTICLASS_AUC_TOLERANCE } from '../src/engine/calibration';
import { metricNames } from '../src/engine/metrics';

/**
 * The engine's quality gates on the shared datasets, judged on samples it never saw (`npm run test:quality`, not part of
 * `npm test`: 40 typical analyses take about ten minutes on two cores). For each dataset, ten stratified 70/30 splits
 * (bench/engine-datasets.ts, as `npm run bench:quality`); an analysis on the 70%, then its models on the 30%:
 * - the 95% intervals of the best model's estimate hold the held-out value in at least 85% of the analyses (each
 *   dataset's count is printed: on ten splits of one dataset it is noisy, a test set of 45 to 171 samples);
 * - calibration leaves a binary held-out AUC exactly as it is, lowers a multiclass one by at most
 *   MULTICLASS_AUC_TOLERANCE (temperature scaling keeps every predicted class, not every class's order of the samples),
 *   and no probability is 0 or 1.
 */
const SPLITS = Array.from({ length: 10 }, (_, i) => i + 1);

interface Split {
  dataset: string;
  inside: boolean;
  calibrations: { classes: number; calibrated: number; uncalibrated: number; extreme: number }[];
}

const splits: Split[] = [];

beforeAll(async () => {
  for (const ds of SHARED_DATASETS) {
    const data = loadShared(ds.name);
    const task = 'classification' in ds.outcome ? 'classification' : 'regression' in ds.outcome ? 'regression' : 'survival';
    const primary = metricNames(task, ds.name === 'iris' ? 3 : 2)[0];
    for (const s of SPLITS) {
      const { train, test } = holdout(data, ds.outcome, 0.3, s);
      const result = await runAnalysis(train, parameters(ds.outcome, 'typical', 2), { seed: s, threads: 2 });
      const held = heldOutPerformance(result.pipelines.best[0], test, ds.outcome);
      const [lo, hi] = result.models.best.performanceCis[primary];
      splits.push({
        dataset: ds.name,
        inside: lo <= held && held <= hi,
        calibrations:
          task === 'classification'
            ? Object.values(result.pipelines).map(([pipeline]) => ({
                classes: pipeline.classes.length,
                calibrated: heldOutPerformance(pipeline, test, ds.outcome),
                uncalibrated: heldOutPerformance({ ...pipeline, calibration: undefined }, test, ds.outcome),
                extreme: predict(pipeline, test)
                  .flatMap((r) => Object.values(r.probabilities as Record<string, number>))
                  .filter((p) => p <= 0 || p >= 1).length,
              }))
            : [],
      });
    }
  }
}, 3_600_000);

describe('the engine on the shared datasets, ten 70/30 splits each', () => {
  it('95% intervals cover the held-out value in at least 85% of the analyses', () => {
    const covered = splits.filter((s) => s.inside).length;
    console.log(
      `coverage: ${covered} of ${splits.length}; ` +
        SHARED_DATASETS.map((d) => `${d.name} ${splits.filter((s) => s.dataset === d.name && s.inside).length}/10`).join(', '),
    );
    expect(covered / splits.length).toBeGreaterThanOrEqual(0.85);
  });

  it('calibration leaves a binary held-out AUC as it is, a multiclass one within the tolerance, and no held-out probability is 0 or 1', () => {
    const calibrations = splits.flatMap((s) => s.calibrations);
    expect(calibrations.length).toBeGreaterThanOrEqual(20);
    for (const c of calibrations) {
      if (c.classes === 2) expect(Math.abs(c.calibrated - c.uncalibrated)).toBeLessThan(1e-12);
      else expect(c.calibrated).toBeGreaterThanOrEqual(c.uncalibrated - MULTICLASS_AUC_TOLERANCE);
      expect(c.extreme).toBe(0);
    }
  });
});
