import { bootstrapIntervals } from './bootstrap';
import { CIS_SCHEMA, definePlot } from './plot-kind';
import { oneVsRest, thin, MAX_CURVE_POINTS } from './roc-curve';

export interface PrecisionRecallPoint {
  recall: number;
  precision: number;
  /** samples with a probability at or above it are called positive */
  threshold: number;
}

export interface PrecisionRecallCurve {
  class: string;
  /** average precision: sum over thresholds of (recall - previous recall) x precision, as scikit-learn's */
  averagePrecision: number;
  cis: [number, number];
  /** the share of samples of the class: the precision of a ranking at random */
  prevalence: number;
  points: PrecisionRecallPoint[];
}

/** Samples by descending score (ties by index). */
export function descendingScores(score: Float64Array): Int32Array {
  return Int32Array.from(score.keys()).sort((a, b) => score[b] - score[a] || a - b);
}

/**
 * The weighted precision-recall curve (one point per distinct score, from the highest) and the average precision.
 * `out`, when given, receives the points; the average precision is NaN without a positive sample.
 */
export function precisionRecall(
  score: Float64Array,
  positive: Uint8Array,
  w: ArrayLike<number>,
  order: Int32Array,
  out?: PrecisionRecallPoint[],
): number {
  let P = 0;
  for (let i = 0; i < score.length; i++) if (positive[i]) P += w[i];
  let tp = 0;
  let called = 0;
  let ap = 0;
  let previousRecall = 0;
  for (let k = 0; k < order.length;) {
    const s = score[order[k]];
    for (; k < order.length && score[order[k]] === s; k++) {
      const i = order[k];
      called += w[i];
      if (positive[i]) tp += w[i];
    }
    if (called === 0) continue;
    const recall = P > 0 ? tp / P : NaN;
    const precision = tp / called;
    ap += (recall - previousRecall) * precision;
    previousRecall = recall;
    out?.push({ recall, precision, threshold: s });
  }
  return P > 0 ? ap : NaN;
}

/**
 * `Precision-Recall Curve` (binary classification): the precision (positive predictive value) against the recall
 * (sensitivity) of the out-of-fold probabilities of the positive class at every threshold, the average precision with
 * a 95% bootstrap interval, and the prevalence that a ranking at random would reach.
 */
export const PRECISION_RECALL_CURVE = definePlot({
  name: 'Precision-Recall Curve',
  schemaName: 'PrecisionRecallCurve',
  schema: {
    type: 'object',
    properties: {
      class: { type: 'string', description: 'the class called positive' },
      averagePrecision: {
        type: 'number',
        description: "sum over thresholds of the recall gained x the precision (scikit-learn's average_precision_score)",
      },
      cis: CIS_SCHEMA,
      prevalence: { type: 'number', description: 'share of the samples of the class: the average precision of a ranking at random' },
      points: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            recall: { type: 'number' },
            precision: { type: 'number' },
            threshold: { type: 'number', description: 'probability at or above which a sample is called positive' },
          },
          required: ['recall', 'precision', 'threshold'],
        },
        description: `one per distinct out-of-fold probability from the highest, at most ${MAX_CURVE_POINTS}`,
      },
    },
    required: ['class', 'averagePrecision', 'cis', 'prevalence', 'points'],
  },
  appliesTo: (m) => m.task === 'classification' && m.classCount === 2,
  async compute(ctx): Promise<PrecisionRecallCurve> {
    const { score, positive } = oneVsRest(ctx, 1);
    const order = descendingScores(score);
    const points: PrecisionRecallPoint[] = [];
    const ones = new Float64Array(ctx.n).fill(1);
    precisionRecall(score, positive, ones, order, points);
    const stats = await bootstrapIntervals((w) => [precisionRecall(score, positive, w, order)], ctx.metric, ctx.bootstraps, ctx.rng(0x9c));
    return {
      class: ctx.classes[1],
      averagePrecision: stats.value[0],
      cis: stats.cis[0],
      prevalence: positive.reduce((s, v) => s + v, 0) / ctx.n,
      points: thin(points),
    };
  },
});
