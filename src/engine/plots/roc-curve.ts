import { bootstrapIntervals } from './bootstrap';
import { CIS_SCHEMA, definePlot, PlotContext } from './plot-kind';

/** The classes a one-vs-rest plot shows: the positive class (the second) of two, else every class. */
export function shownClasses(ctx: Pick<PlotContext, 'classes'>): number[] {
  return ctx.classes.length === 2 ? [1] : ctx.classes.map((_, c) => c);
}

/** Column `c` of the n x K out-of-fold probabilities and whether each sample is of class c. */
export function oneVsRest(ctx: PlotContext, c: number): { score: Float64Array; positive: Uint8Array } {
  const K = ctx.classes.length;
  return {
    score: Float64Array.from({ length: ctx.n }, (_, i) => ctx.predictions[i * K + c]),
    positive: Uint8Array.from(ctx.metric.outcome.y, (v) => (v === c ? 1 : 0)),
  };
}

export interface RocPoint {
  fpr: number;
  tpr: number;
  /** samples with a score at or above it are called positive */
  threshold: number;
}

/**
 * The weighted ROC curve of scores (one point per distinct score, from the highest, after (0, 0)) and its area by the
 * trapezoid rule: tied scores make a diagonal segment, so the area is the Mann-Whitney statistic with ties counting 1/2.
 */
export function rocCurve(
  score: Float64Array,
  positive: Uint8Array,
  w?: Float64Array,
  order?: Int32Array,
): { points: RocPoint[]; auc: number } {
  const idx = order ?? descending(score);
  let P = 0;
  let N = 0;
  for (let i = 0; i < score.length; i++) {
    const wi = w ? w[i] : 1;
    if (positive[i]) P += wi;
    else N += wi;
  }
  const points: RocPoint[] = [{ fpr: 0, tpr: 0, threshold: Infinity }];
  let tp = 0;
  let fp = 0;
  let area = 0;
  for (let k = 0; k < idx.length;) {
    const s = score[idx[k]];
    const [tp0, fp0] = [tp, fp];
    for (; k < idx.length && score[idx[k]] === s; k++) {
      const wi = w ? w[idx[k]] : 1;
      if (positive[idx[k]]) tp += wi;
      else fp += wi;
    }
    if (tp === tp0 && fp === fp0) continue;
    area += ((fp - fp0) * (tp + tp0)) / 2;
    points.push({ fpr: N > 0 ? fp / N : NaN, tpr: P > 0 ? tp / P : NaN, threshold: s });
  }
  return { points, auc: P > 0 && N > 0 ? area / (P * N) : NaN };
}

function descending(score: Float64Array): Int32Array {
  return Int32Array.from(score.keys()).sort((a, b) => score[b] - score[a] || a - b);
}

/** The true-positive rate of a curve at a false-positive rate: the highest of the curve's points there, else interpolated. */
export function tprAt(points: RocPoint[], fpr: number): number {
  let k = 0;
  while (k < points.length && points[k].fpr < fpr) k++;
  if (k === points.length) return NaN;
  if (points[k].fpr === fpr) {
    let tpr = points[k].tpr;
    for (; k < points.length && points[k].fpr === fpr; k++) tpr = Math.max(tpr, points[k].tpr);
    return tpr;
  }
  if (k === 0) return points[0].tpr;
  const a = points[k - 1];
  const b = points[k];
  return a.tpr + ((b.tpr - a.tpr) * (fpr - a.fpr)) / (b.fpr - a.fpr);
}

/** `tprAt` at each of the increasing false-positive rates `grid`, in one walk along the curve. */
export function tprAtGrid(points: RocPoint[], grid: readonly number[]): number[] {
  const out: number[] = [];
  let k = 0;
  for (const fpr of grid) {
    while (k < points.length && points[k].fpr < fpr) k++;
    if (k === points.length) out.push(NaN);
    else if (points[k].fpr === fpr) {
      let tpr = points[k].tpr;
      for (let m = k; m < points.length && points[m].fpr === fpr; m++) tpr = Math.max(tpr, points[m].tpr);
      out.push(tpr);
    } else if (k === 0) out.push(points[0].tpr);
    else {
      const a = points[k - 1];
      const b = points[k];
      out.push(a.tpr + ((b.tpr - a.tpr) * (fpr - a.fpr)) / (b.fpr - a.fpr));
    }
  }
  return out;
}

/** At most this many points are listed per curve (evenly thinned; the area is computed before). */
export const MAX_CURVE_POINTS = 201;
const BAND_FPR = Array.from({ length: 51 }, (_, j) => j / 50);

export function thin<T>(points: T[], max = MAX_CURVE_POINTS): T[] {
  if (points.length <= max) return points;
  return Array.from({ length: max }, (_, j) => points[Math.round((j * (points.length - 1)) / (max - 1))]);
}

export interface RocCurveEntry {
  class: string;
  auc: number;
  cis: [number, number];
  points: RocPoint[];
  band: { fpr: number; tpr: number; cis: [number, number] }[];
}

/**
 * `ROC Curve` (classification): the ROC curve of the out-of-fold probabilities of the positive class (of each class,
 * one-vs-rest, for more than two), its area and a 95% bootstrap interval of the area, and a 95% bootstrap band of the
 * true-positive rate at 51 false-positive rates.
 */
export const ROC_CURVE = definePlot({
  name: 'ROC Curve',
  schemaName: 'RocCurve',
  schema: {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        class: { type: 'string', description: 'the class called positive (the others negative)' },
        auc: { type: 'number', description: 'area under the curve of the out-of-fold probabilities' },
        cis: CIS_SCHEMA,
        points: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              fpr: { type: 'number' },
              tpr: { type: 'number' },
              threshold: { type: 'number', description: 'probability at or above which a sample is called positive (absent at (0, 0))' },
            },
            required: ['fpr', 'tpr'],
          },
          description: `from (0, 0) to (1, 1), at most ${MAX_CURVE_POINTS} points`,
        },
        band: {
          type: 'array',
          items: {
            type: 'object',
            properties: { fpr: { type: 'number' }, tpr: { type: 'number' }, cis: CIS_SCHEMA },
            required: ['fpr', 'tpr', 'cis'],
          },
          description: '95% bootstrap band of the true-positive rate at false-positive rates 0, 0.02, ..., 1',
        },
      },
      required: ['class', 'auc', 'cis', 'points', 'band'],
    },
    description: 'one curve per class shown: the positive class of a binary outcome, each class (one-vs-rest) of more',
  },
  appliesTo: (m) => m.task === 'classification',
  async compute(ctx): Promise<RocCurveEntry[]> {
    const rng = ctx.rng(0x20c);
    const entries: RocCurveEntry[] = [];
    for (const c of shownClasses(ctx)) {
      const { score, positive } = oneVsRest(ctx, c);
      const order = descending(score);
      const { points, auc } = rocCurve(score, positive, undefined, order);
      const stats = await bootstrapIntervals(
        (w) => {
          const curve = rocCurve(score, positive, w, order);
          return [curve.auc, ...tprAtGrid(curve.points, BAND_FPR)];
        },
        ctx.metric,
        ctx.bootstraps,
        rng,
      );
      entries.push({
        class: ctx.classes[c],
        auc,
        cis: stats.cis[0],
        // JSON has no Infinity: the first point has no threshold
        points: thin(points).map((p) => (Number.isFinite(p.threshold) ? p : { fpr: p.fpr, tpr: p.tpr }) as RocPoint),
        band: BAND_FPR.map((fpr, j) => ({ fpr, tpr: stats.value[j + 1], cis: stats.cis[j + 1] })),
      });
    }
    return entries;
  },
});
