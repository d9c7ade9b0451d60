import { bootstrapIntervals, POOLED_BOOTSTRAP_STREAM } from './bootstrap';
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

/** A curve as arrays: its points' rates and thresholds in [0, length), and its area. */
interface CurveArrays {
  fpr: Float64Array;
  tpr: Float64Array;
  threshold: Float64Array;
  length: number;
  auc: number;
}

/** Arrays for the curves of `n` scores (at most n + 1 points), reused from curve to curve. */
function curveArrays(n: number): CurveArrays {
  return { fpr: new Float64Array(n + 1), tpr: new Float64Array(n + 1), threshold: new Float64Array(n + 1), length: 0, auc: NaN };
}

/** rocCurve into `out` (no object per point: bootstraps draw thousands of curves). */
function rocInto(score: Float64Array, positive: Uint8Array, w: Float64Array | undefined, idx: Int32Array, out: CurveArrays): void {
  let P = 0;
  let N = 0;
  for (let i = 0; i < score.length; i++) {
    const wi = w ? w[i] : 1;
    if (positive[i]) P += wi;
    else N += wi;
  }
  out.fpr[0] = 0;
  out.tpr[0] = 0;
  out.threshold[0] = Infinity;
  let m = 1;
  let tp = 0;
  let fp = 0;
  let area = 0;
  for (let k = 0; k < idx.length;) {
    const s = score[idx[k]];
    const tp0 = tp;
    const fp0 = fp;
    for (; k < idx.length && score[idx[k]] === s; k++) {
      const wi = w ? w[idx[k]] : 1;
      if (positive[idx[k]]) tp += wi;
      else fp += wi;
    }
    if (tp === tp0 && fp === fp0) continue;
    area += ((fp - fp0) * (tp + tp0)) / 2;
    out.fpr[m] = N > 0 ? fp / N : NaN;
    out.tpr[m] = P > 0 ? tp / P : NaN;
    out.threshold[m] = s;
    m++;
  }
  out.length = m;
  out.auc = P > 0 && N > 0 ? area / (P * N) : NaN;
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
  const curve = curveArrays(score.length);
  rocInto(score, positive, w, order ?? descending(score), curve);
  const points = Array.from({ length: curve.length }, (_, k) => ({ fpr: curve.fpr[k], tpr: curve.tpr[k], threshold: curve.threshold[k] }));
  return { points, auc: curve.auc };
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
  const out = new Float64Array(grid.length);
  gridInto(
    Float64Array.from(points, (p) => p.fpr),
    Float64Array.from(points, (p) => p.tpr),
    points.length,
    grid,
    out,
    0,
  );
  return Array.from(out);
}

/** tprAtGrid of the curve's first `length` points, written into out[at, at + grid.length). */
function gridInto(fprs: Float64Array, tprs: Float64Array, length: number, grid: readonly number[], out: Float64Array, at: number): void {
  let k = 0;
  for (let g = 0; g < grid.length; g++) {
    const fpr = grid[g];
    while (k < length && fprs[k] < fpr) k++;
    let v: number;
    if (k === length) v = NaN;
    else if (fprs[k] === fpr) {
      v = tprs[k];
      for (let m = k; m < length && fprs[m] === fpr; m++) v = Math.max(v, tprs[m]);
    } else if (k === 0) v = tprs[0];
    else v = tprs[k - 1] + ((tprs[k] - tprs[k - 1]) * (fpr - fprs[k - 1])) / (fprs[k] - fprs[k - 1]);
    out[at + g] = v;
  }
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
    const rng = ctx.rng(POOLED_BOOTSTRAP_STREAM);
    const entries: RocCurveEntry[] = [];
    for (const c of shownClasses(ctx)) {
      const { score, positive } = oneVsRest(ctx, c);
      const order = descending(score);
      const { points, auc } = rocCurve(score, positive, undefined, order);
      const curve = curveArrays(score.length);
      const drawn = new Float64Array(1 + BAND_FPR.length);
      const stats = await bootstrapIntervals(
        (w) => {
          rocInto(score, positive, w, order, curve);
          drawn[0] = curve.auc;
          gridInto(curve.fpr, curve.tpr, curve.length, BAND_FPR, drawn, 1);
          return drawn;
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
