import { drawBootstrapWeights, Estimate, localMatrix, MatrixRunner, MetricContext, percentile, RepeatedEvaluator } from '../bbc';
import { makeEvaluator } from '../metrics';
import { Rng } from '../rng';
import { TimeSlices } from '../time-slices';
import { weightedSums } from '../models/simd-means';

/**
 * The random stream of the bootstraps of a model's pooled out-of-fold figures: its pooled performance, the ROC Curve,
 * Calibration and Confusion Matrix plots draw the same resamples from it, so a sensitivity and its interval are the same
 * numbers wherever they are shown.
 */
export const POOLED_BOOTSTRAP_STREAM = 0xc0f;

/**
 * Bootstrap weights as bbc.ts's `bootstrapWeights` draws them (the same draws from the same generator), written into
 * one reused buffer: a plot draws thousands of them, and a new array per draw was most of a plot's time.
 */
function weightDrawer(ctx: MetricContext, rng: Rng): () => Float64Array {
  const unitCounts = new Float64Array(ctx.unitCount);
  const w = new Float64Array(ctx.units.length);
  return () => drawBootstrapWeights(ctx, rng, unitCounts, w);
}

/**
 * Metric of every set on the full data and on B bootstraps (the same resampled rows for every set): one
 * bootstrapMatrix of the sets' predictions (`matrix` computes it: here, or the analysis's on its worker threads).
 */
export async function bootstrapValues(
  sets: RepeatedEvaluator[],
  ctx: MetricContext,
  B: number,
  rng: Rng,
  matrix: MatrixRunner = localMatrix,
): Promise<{ point: number[]; boot: Float64Array[] }> {
  const m = sets.length;
  if (m === 0) return { point: [], boot: Array.from({ length: B }, () => new Float64Array(0)) };
  const { metric, rows } = sets[0];
  const { point, values } = await matrix({ sets: sets.map((s) => s.predictions), metric, ctx, rows, draw: ctx, B, rng });
  return { point: Array.from(point), boot: Array.from({ length: B }, (_, b) => values.slice(b * m, (b + 1) * m)) };
}

/**
 * The 95% percentile interval of the bootstrap draws, widened when needed to contain the point value: with a
 * skewed bootstrap distribution the plain percentile interval can miss the value it is reported with.
 */
export function interval(draws: ArrayLike<number>, value: number): [number, number] {
  // the finite draws, sorted as numbers (a typed array's sort: a plot's thousands of statistics each sort theirs)
  const finite = new Float64Array(draws.length);
  let m = 0;
  for (let b = 0; b < draws.length; b++) if (Number.isFinite(draws[b])) finite[m++] = draws[b];
  const ok = finite.subarray(0, m).sort();
  const lo = percentile(ok, 0.025);
  const hi = percentile(ok, 0.975);
  if (!Number.isFinite(value)) return [lo, hi];
  return [Number.isFinite(lo) ? Math.min(lo, value) : value, Number.isFinite(hi) ? Math.max(hi, value) : value];
}

/** Draws of bootstrapIntervals written to their statistics together (one cache line of doubles per statistic). */
const STAGED = 8;

/**
 * The 95% intervals of several statistics at once: `stat(weights)` gives their values on weighted samples (weights 1
 * for the data as they are), drawn again on B bootstraps of the units. Statistics that cannot be computed (NaN) on a
 * draw are left out of that statistic's interval.
 */
export async function bootstrapIntervals(
  stat: (w: Float64Array) => ArrayLike<number>,
  ctx: MetricContext,
  B: number,
  rng: Rng,
): Promise<{ value: number[]; cis: [number, number][] }> {
  const value = Array.from(stat(new Float64Array(ctx.outcome.y.length).fill(1)));
  const J = value.length;
  return stagedIntervals(value, ctx, B, rng, (weights, stage) => weights.forEach((w, t) => stage.set(stat(w), t * J)));
}

/**
 * The intervals of the J statistics whose point values are `value`, over B draws: STAGED draws' weights at a time go
 * to `fill`, which writes their J values each into `stage` (draw after draw), then those values go to each statistic's
 * draws together (at draws[j * B, (j + 1) * B)): a curve's thousands of statistics would otherwise each take a write
 * to another part of memory on every draw (most of a ROC curve's time on ten classes).
 */
async function stagedIntervals(
  value: ArrayLike<number>,
  ctx: MetricContext,
  B: number,
  rng: Rng,
  fill: (weights: Float64Array[], stage: Float64Array) => void,
): Promise<{ value: number[]; cis: [number, number][] }> {
  const J = value.length;
  const slices = new TimeSlices();
  const draws = new Float64Array(J * B);
  const stage = new Float64Array(J * STAGED);
  const draw = weightDrawer(ctx, rng);
  const weights = Array.from({ length: STAGED }, () => new Float64Array(ctx.units.length));
  for (let b0 = 0; b0 < B; b0 += STAGED) {
    const count = Math.min(STAGED, B - b0);
    for (let t = 0; t < count; t++) {
      await slices.next();
      weights[t].set(draw());
    }
    fill(weights.slice(0, count), stage);
    for (let j = 0; j < J; j++) for (let t = 0; t < count; t++) draws[j * B + b0 + t] = stage[t * J + j];
  }
  return { value: Array.from(value), cis: Array.from(value, (v, j) => interval(draws.subarray(j * B, (j + 1) * B), v)) };
}

/**
 * bootstrapIntervals of the weighted means of J statistics of each sample (`values`: n x J, sample after sample): the
 * same draws and the same numbers as a stat that adds each sample's values times its weight, samples in order, and
 * divides by the weights' sum; STAGED draws at a time, so that each sample's J values are read once for all of them
 * (for thousands of values a sample, a pass over all of them a draw is most of the time).
 */
export async function bootstrapMeans(
  values: Float64Array,
  J: number,
  ctx: MetricContext,
  B: number,
  rng: Rng,
  simdSums = true,
): Promise<{ value: number[]; cis: [number, number][] }> {
  const n = ctx.outcome.y.length;
  // the sums in WebAssembly SIMD when the values fit (the same sums to the bit), else here (`simdSums` false: tests)
  const simd = simdSums ? weightedSums(values, n, J, STAGED) : undefined;
  const means = (weights: Float64Array[], out: Float64Array): void => {
    const T = weights.length;
    const totals = new Float64Array(T);
    for (let t = 0; t < T; t++) for (let i = 0; i < n; i++) if (weights[t][i] !== 0) totals[t] += weights[t][i];
    if (simd) simd.sums(weights, out);
    else {
      out.fill(0, 0, T * J);
      for (let i = 0; i < n; i++) {
        const row = i * J;
        for (let t = 0; t < T; t++) {
          const wi = weights[t][i];
          if (wi === 0) continue;
          for (let k = 0, o = t * J; k < J; k++, o++) out[o] += wi * values[row + k];
        }
      }
    }
    for (let t = 0; t < T; t++) for (let k = 0, o = t * J; k < J; k++, o++) out[o] /= totals[t];
  };
  const value = new Float64Array(J);
  means([new Float64Array(n).fill(1)], value);
  return stagedIntervals(value, ctx, B, rng, means);
}

/**
 * A model's pooled out-of-fold performance: each metric of its out-of-fold predictions (each sample's averaged over the
 * repeats: those of its plots), with 95% percentile intervals over the bootstraps of POOLED_BOOTSTRAP_STREAM (those of
 * its ROC Curve, Calibration and Confusion Matrix), so a sensitivity here is the confusion matrix's, interval included.
 */
export async function pooledPerformance(
  predictions: Float64Array,
  metrics: string[],
  ctx: MetricContext,
  B: number,
  rng: Rng,
): Promise<Estimate> {
  const evaluators = metrics.map((m) => makeEvaluator(m, predictions, ctx.outcome, ctx.classCount));
  const out = new Float64Array(metrics.length);
  const stats = await bootstrapIntervals(
    (w) => {
      evaluators.forEach((ev, j) => (out[j] = ev(w)));
      return out;
    },
    ctx,
    B,
    rng,
  );
  return {
    estimate: Object.fromEntries(metrics.map((m, j) => [m, stats.value[j]])),
    cis: Object.fromEntries(metrics.map((m, j) => [m, stats.cis[j]])),
  };
}
