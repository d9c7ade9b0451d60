import type { ShapleyValues } from '../explain/types';
import { explainedClasses } from '../models/shapley-form';
import type { TaskSpec } from '../pipeline';
import { survivalGridTimes } from '../plots/survival-metrics';
import type { OutOfFoldExplanation } from '../plots/plot-kind';
import type { ReferenceModels } from './final-models';
import { AnalysisRun, KeyedModel } from './run';
import type { Winners } from './winners';
import { sharedFloat64 } from '../shared-memory';

/**
 * 4b. The out-of-fold explanations of each shown model: its configuration refitted with its reference signature on
 * each plot fold's training samples (the refits of Feature Importance, repeat 0's folds merged), explaining the
 * samples of the fold against a background of the training samples (explain/background.ts), and for survival their
 * predicted survival on the Brier score's grid of times. The contributions add up to each such refit's output, not to
 * the stored out-of-fold prediction (a mean over repeats of models whose selection may have chosen other features).
 */
export interface ExplainedOutOfFold {
  /** by shown model */
  explanations: Promise<OutOfFoldExplanation[]>;
  /**
   * by shown model: its refits' predictions of their fold's samples (samples x output width, shared): Feature
   * Importance's full signature, whose refits these are (the same seeds), reads them rather than fitting them again
   */
  predictions: Promise<Float64Array>[];
}

export function explainOutOfFold(run: AnalysisRun, winners: Winners, reference: ReferenceModels): ExplainedOutOfFold {
  const { prepared, plotFolds } = run;
  const { n, classes, task } = prepared;
  const plotFold = Int32Array.from(run.plan.assignment[0], (f) => f % plotFolds);
  const all = Int32Array.from({ length: n }, (_, i) => i);
  const folds = Array.from({ length: plotFolds }, (_, p) => ({
    train: Int32Array.from(all.filter((i) => plotFold[i] !== p)),
    test: Int32Array.from(all.filter((i) => plotFold[i] === p)),
  }));
  const times = task === 'survival' ? survivalGridTimes(prepared.y, prepared.event as Float64Array) : undefined;
  const explained = winners.keyed.map((km, i) => explainModel(run, km, reference.signatures[i], folds, times, classes));
  return {
    explanations: Promise.all(explained.map((e) => e.then((m) => m.explanation))),
    predictions: explained.map((e) => e.then((m) => m.predictions)),
  };
}

async function explainModel(
  run: AnalysisRun,
  km: KeyedModel,
  signature: number[],
  folds: { train: Int32Array; test: Int32Array }[],
  times: number[] | undefined,
  classes: string[],
): Promise<{ explanation: OutOfFoldExplanation; predictions: Float64Array }> {
  const n = run.prepared.n;
  const W = run.W;
  const predictions = sharedFloat64(n * W);
  const specs: TaskSpec[] = folds.map((rows, p) => ({
    id: p,
    config: km.config,
    train: rows.train,
    test: rows.test,
    // the seeds of the signature's refit on plot fold p (model-plots.ts), so that the model explained is that refit
    seedIds: [km.config.index, 0x9100 + p, 0],
    fixedFeatures: signature,
    explain: true,
    ...(times ? { survivalTimes: times } : {}),
  }));
  const results: { values: ShapleyValues; features: number[]; survival?: Float64Array }[] = [];
  await run.runner.run(specs, (res) => {
    results[res.id] = { values: res.explanation as ShapleyValues, features: res.explainedFeatures ?? [], survival: res.survival };
    const test = folds[res.id].test;
    for (let k = 0; k < test.length; k++) predictions.set(res.predictions.subarray(k * W, (k + 1) * W), test[k] * W);
    run.progress.add(run.work.refit);
    run.progress.emit();
  });
  run.fits += specs.length;
  // every fold's players are the signature's features its preprocessing kept: a feature constant on a fold's
  // training samples is left out there, and contributes 0 to that fold's samples
  const M = signature.length;
  const first = results[0].values;
  const H = first.heads;
  const values = new Float64Array(n * H * M);
  const base = new Float64Array(n * H);
  const output = new Float64Array(n * H);
  const standardErrors = results.some((r) => r.values.standardErrors) ? new Float64Array(n * H * M) : undefined;
  const T = times?.length ?? 0;
  const survival = times ? new Float64Array(n * T) : undefined;
  folds.forEach((rows, p) => {
    const { values: sv, features, survival: s } = results[p];
    const at = features.map((f) => signature.indexOf(f));
    rows.test.forEach((i, k) => {
      for (let h = 0; h < H; h++) {
        base[i * H + h] = sv.base[h];
        output[i * H + h] = sv.output[k * H + h];
        at.forEach((m, q) => {
          values[(i * H + h) * M + m] = sv.values[(k * H + h) * sv.players + q];
          if (standardErrors && sv.standardErrors) standardErrors[(i * H + h) * M + m] = sv.standardErrors[(k * H + h) * sv.players + q];
        });
      }
      if (survival && s && s.length > 0) survival.set(s.subarray(k * T, (k + 1) * T), i * T);
    });
  });
  const explanation: OutOfFoldExplanation = {
    features: signature.map((f) => run.prepared.features[f].name),
    scale: first.scale,
    method: first.method,
    ...(run.prepared.task === 'classification' ? { classes: explainedClasses(classes.length).map((c) => classes[c]) } : {}),
    heads: H,
    values,
    base,
    output,
    ...(standardErrors ? { standardErrors } : {}),
    ...(survival && times ? { survival: { times, values: survival } } : {}),
  };
  return { explanation, predictions };
}
