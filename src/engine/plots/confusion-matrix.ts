import { bootstrapIntervals, POOLED_BOOTSTRAP_STREAM } from './bootstrap';
import { CIS_SCHEMA, definePlot, PlotContext } from './plot-kind';

export interface ConfusionMatrix {
  classes: string[];
  /** counts[t][p]: samples of true class t whose predicted class is p */
  counts: number[][];
  perClass: {
    class: string;
    count: number;
    /** recall: the fraction of the class's samples predicted as the class */
    sensitivity: number;
    sensitivityCis: [number, number];
    /** the fraction of the samples predicted as the class that are of it (absent when none is) */
    precision?: number;
    precisionCis?: [number, number];
  }[];
}

/** The predicted class of each sample: the class of highest out-of-fold probability (the first of ties). */
export function predictedClasses(ctx: Pick<PlotContext, 'n' | 'classes' | 'predictions'>): Int32Array {
  const K = ctx.classes.length;
  return Int32Array.from({ length: ctx.n }, (_, i) => {
    let best = 0;
    for (let c = 1; c < K; c++) if (ctx.predictions[i * K + c] > ctx.predictions[i * K + best]) best = c;
    return best;
  });
}

/**
 * `Confusion Matrix` (classification): counts of true class x predicted class (the class of highest out-of-fold
 * probability), with each class's sensitivity and precision and their 95% bootstrap intervals.
 */
export const CONFUSION_MATRIX = definePlot({
  name: 'Confusion Matrix',
  schemaName: 'ConfusionMatrix',
  schema: {
    type: 'object',
    properties: {
      classes: { type: 'array', items: { type: 'string' } },
      counts: {
        type: 'array',
        items: { type: 'array', items: { type: 'integer' } },
        description: 'counts[t][p]: samples of true class classes[t] predicted as classes[p]',
      },
      perClass: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            class: { type: 'string' },
            count: { type: 'integer' },
            sensitivity: { type: 'number' },
            sensitivityCis: CIS_SCHEMA,
            precision: { type: 'number', description: 'absent when no sample is predicted as the class' },
            precisionCis: CIS_SCHEMA,
          },
          required: ['class', 'count', 'sensitivity', 'sensitivityCis'],
        },
      },
    },
    required: ['classes', 'counts', 'perClass'],
    description: 'true class x predicted class (highest out-of-fold probability)',
  },
  appliesTo: (m) => m.task === 'classification',
  async compute(ctx): Promise<ConfusionMatrix> {
    const K = ctx.classes.length;
    const y = ctx.metric.outcome.y;
    const predicted = predictedClasses(ctx);
    const cells = new Float64Array(K * K);
    const rates = (w: Float64Array): Float64Array => {
      cells.fill(0);
      for (let i = 0; i < ctx.n; i++) cells[y[i] * K + predicted[i]] += w[i];
      const out = new Float64Array(2 * K);
      for (let c = 0; c < K; c++) {
        let row = 0;
        let col = 0;
        for (let d = 0; d < K; d++) {
          row += cells[c * K + d];
          col += cells[d * K + c];
        }
        out[c] = row > 0 ? cells[c * K + c] / row : NaN;
        out[K + c] = col > 0 ? cells[c * K + c] / col : NaN;
      }
      return out;
    };
    const stats = await bootstrapIntervals(rates, ctx.metric, ctx.bootstraps, ctx.rng(POOLED_BOOTSTRAP_STREAM));
    rates(new Float64Array(ctx.n).fill(1));
    const counts = Array.from({ length: K }, (_, t) => Array.from({ length: K }, (_, p) => cells[t * K + p]));
    return {
      classes: [...ctx.classes],
      counts,
      perClass: ctx.classes.map((name, c) => ({
        class: name,
        count: counts[c].reduce((s, v) => s + v, 0),
        sensitivity: stats.value[c],
        sensitivityCis: stats.cis[c],
        ...(Number.isFinite(stats.value[K + c]) ? { precision: stats.value[K + c], precisionCis: stats.cis[K + c] } : {}),
      })),
    };
  },
});
