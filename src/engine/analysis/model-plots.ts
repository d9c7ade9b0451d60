import { Estimate, RepeatedEvaluator } from '../bbc';
import { POOLED_BOOTSTRAP_STREAM, pooledPerformance } from '../plots/bootstrap';
import type { TaskSpec } from '../pipeline';
import { computePlots, plannedRefits } from '../plots';
import { Rng } from '../rng';
import { selectorKey } from '../selection';
import type { ModelPlots } from '../types';
import type { CrossValidation } from './cross-validation';
import type { FinalModels } from './final-models';
import { AnalysisRun, BOOTSTRAPS, KeyedModel, meanOverRepeats } from './run';
import type { Winners } from './winners';

/**
 * 5. The plots of each shown model (the registry in ../plots), from its configuration's out-of-fold predictions and
 * from refits of the configuration on subsets of its reference signature (on the plot folds: repeat 0's folds merged),
 * and its pooled out-of-fold performance (the same predictions, the same bootstraps as its ROC Curve, Calibration and
 * Confusion Matrix).
 */
export async function plotModels(
  run: AnalysisRun,
  cv: CrossValidation,
  winners: Winners,
  finals: FinalModels,
): Promise<{ plots: Record<string, ModelPlots>; pooled: Estimate[] }> {
  const { prepared, plotFolds, plotModel, progress, metrics, W } = run;
  const { n, classes } = prepared;
  const signatures = finals.selections.map((sel) => sel.signatures[0]);
  progress.setTotal(
    run.cvTasks + winners.keyed.length + signatures.reduce((s, sig) => s + plannedRefits(plotModel, sig.length, plotFolds), 0),
  );
  const plotFold = Int32Array.from(run.plan.assignment[0], (f) => f % plotFolds);
  const all = Int32Array.from({ length: n }, (_, i) => i);
  const plotRows = Array.from({ length: plotFolds }, (_, p) => ({
    train: Int32Array.from(all.filter((i) => plotFold[i] !== p)),
    test: Int32Array.from(all.filter((i) => plotFold[i] === p)),
  }));
  /** Out-of-fold predictions of the configuration on each feature set, as evaluators of the primary metric. */
  const oofOfSets = async (km: KeyedModel, sets: number[][], setOffset: number): Promise<RepeatedEvaluator[]> => {
    const preds = sets.map(() => new Float64Array(n * W));
    const specs: TaskSpec[] = [];
    sets.forEach((features, s) =>
      plotRows.forEach((rows, p) =>
        specs.push({
          id: s * plotFolds + p,
          config: km.config,
          train: rows.train,
          test: rows.test,
          seedIds: [km.config.index, 0x9100 + p, setOffset + s],
          fixedFeatures: features,
        }),
      ),
    );
    await run.runner.run(specs, (res) => {
      const s = Math.floor(res.id / plotFolds);
      const test = plotRows[res.id % plotFolds].test;
      for (let i = 0; i < test.length; i++) preds[s].set(res.predictions.subarray(i * W, (i + 1) * W), test[i] * W);
      progress.add(1);
      progress.emit();
    });
    run.fits += specs.filter((s) => (s.fixedFeatures as number[]).length > 0).length;
    return preds.map((p) => new RepeatedEvaluator(metrics[0], [p], run.ctx));
  };
  // the models' plots side by side too (their refits share the pool; each draws from its own random streams)
  const computed = await Promise.all(
    winners.keyed.map((km, i) => {
      const repeats = cv.oof[km.config.index] as Float64Array[];
      const memo = new Map<string, Promise<unknown>>();
      return computePlots({
        ...plotModel,
        n,
        classes,
        oof: repeats,
        predictions: meanOverRepeats(repeats),
        metric: run.ctx,
        primaryMetric: metrics[0],
        bootstraps: BOOTSTRAPS,
        rng: (stream) => new Rng(run.seed, stream, i),
        signature: signatures[i],
        selection: finals.selections[i],
        foldSignatures: cv.foldSignatures.get(selectorKey(km.config.selector)) ?? [],
        featureName: (f) => prepared.features[f].name,
        refit: (sets, setOffset) => oofOfSets(km, sets, setOffset),
        memo: <T>(key: string, compute: () => Promise<T>): Promise<T> => {
          if (!memo.has(key)) memo.set(key, compute());
          return memo.get(key) as Promise<T>;
        },
      });
    }),
  );
  const pooled = await Promise.all(
    winners.keyed.map((km, i) =>
      pooledPerformance(
        meanOverRepeats(cv.oof[km.config.index] as Float64Array[]),
        metrics,
        run.ctx,
        BOOTSTRAPS,
        new Rng(run.seed, POOLED_BOOTSTRAP_STREAM, i),
      ),
    ),
  );
  const plots: Record<string, ModelPlots> = {};
  winners.keyed.forEach((km, i) => (plots[km.key] = computed[i]));
  return { plots, pooled };
}
