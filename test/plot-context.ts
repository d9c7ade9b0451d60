import type { MetricContext } from '../src/engine/bbc';
import type { PlotContext } from '../src/engine/plots/plot-kind';
import { Rng } from '../src/engine/rng';

/** A plot context over given out-of-fold predictions (no refits), for the plot kinds' unit tests. */
export function plotContext(
  task: PlotContext['task'],
  predictions: Float64Array,
  y: Float64Array,
  classes: string[] = [],
  event?: Float64Array,
  extra: Partial<PlotContext> = {},
): PlotContext {
  const n = y.length;
  const metric: MetricContext = {
    outcome: { y, event },
    classCount: classes.length,
    units: Int32Array.from({ length: n }, (_, i) => i),
    unitCount: n,
  };
  return {
    task,
    classCount: classes.length,
    n,
    classes,
    oof: [predictions],
    predictions,
    metric,
    primaryMetric: '',
    bootstraps: 200,
    rng: (s) => new Rng(7, s),
    signature: [],
    selection: { signatures: [[]], signatureCount: 1 },
    foldSignatures: [],
    featureName: String,
    refit: () => Promise.reject(new Error('no refits here')),
    memo: (_, f) => f(),
    ...extra,
  };
}
