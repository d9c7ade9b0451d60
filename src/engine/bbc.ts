import { BATCH_LANES, BatchEvaluator, Evaluator } from './auc';
import { stageWeights } from './models/simd-auc';
import { batchable, makeBatchEvaluator, makeEvaluator, OutcomeArrays } from './metrics';
import { Rng } from './rng';
import { TimeSlices } from './time-slices';

/**
 * Out-of-fold predictions of every configuration: `oof[config][repeat]` is n x width (row-major),
 * null for configurations dropped by BBCD-CV.
 */
export type OofMatrix = (Float64Array[] | null)[];

export interface MetricContext {
  outcome: OutcomeArrays;
  classCount: number;
  /** unit (group) of each sample; bootstraps resample units */
  units: Int32Array;
  unitCount: number;
}

/** Bootstrap weights over samples: counts of each sample's unit in a resample of units. */
export function bootstrapWeights(ctx: MetricContext, rng: Rng): Float64Array {
  return drawBootstrapWeights(ctx, rng, new Float64Array(ctx.unitCount), new Float64Array(ctx.units.length));
}

/** bootstrapWeights into `w` (one weight per sample), counting units in `unitCounts` (both reused by the caller). */
export function drawBootstrapWeights(ctx: MetricContext, rng: Rng, unitCounts: Float64Array, w: Float64Array): Float64Array {
  unitCounts.fill(0);
  for (let k = 0; k < ctx.unitCount; k++) unitCounts[rng.int(ctx.unitCount)]++;
  for (let i = 0; i < w.length; i++) w[i] = unitCounts[ctx.units[i]];
  return w;
}

/** What `bootstrapMatrix` computes: one metric of several prediction sets on B bootstraps. */
export interface BootstrapMatrixArgs {
  /** the prediction sets, each one array per repeat (n x width) */
  sets: Float64Array[][];
  metric: string;
  /**
   * each set's loss of every sample (n; not with `rows`): the weighted mean over each bootstrap's samples is given
   * too (BootstrapMatrix.losses)
   */
  losses?: Float64Array[];
  /** the outcome and units the evaluators read */
  ctx: MetricContext;
  /** evaluate on these samples only (their weights in that order); default every sample */
  rows?: Int32Array;
  /** the units the weights are drawn over (`ctx`, or the units of `rows` renumbered) */
  draw: MetricContext;
  B: number;
  /** the generator the bootstraps are drawn from in order, or its position (Rng.resume: a worker thread's copy) */
  rng: Rng | number;
}

/** The metric of each set on all its samples (`point`), and on each bootstrap: values[b * sets + j]. */
export interface BootstrapMatrix {
  point: Float64Array;
  values: Float64Array;
  /** with `losses`: each set's weighted mean loss on each bootstrap, losses[b * sets + j] */
  losses?: Float64Array;
}

/**
 * The metric of each set on its samples and on each of B bootstraps drawn in order from `rng` (bootstrapWeights over
 * `draw`). A function of its arguments alone: a worker thread computes it (compute.ts) as the calling thread would,
 * and a set's values do not depend on the sets computed with it.
 */
export function bootstrapMatrix(a: BootstrapMatrixArgs): BootstrapMatrix {
  const { matrix, blocks, block } = matrixSteps(a);
  for (let k = 0; k < blocks; k++) block(k);
  return matrix;
}

/** The bootstraps of a batch (BatchEvaluator) hold about this many weights. */
const BATCH_WEIGHTS = 1 << 17;
const roundUp = (v: number, m: number): number => Math.ceil(v / m) * m;

/**
 * A bootstrapMatrix's point values, and its bootstraps in `blocks` blocks drawn in order: `block(k)` draws block k's
 * bootstraps and fills their values. A metric with a BatchEvaluator (AUC) evaluates a block of bootstraps in one pass
 * per set; any other, one bootstrap per block. The values are the same either way, to the bit.
 */
function matrixSteps(a: BootstrapMatrixArgs): { matrix: BootstrapMatrix; blocks: number; block: (k: number) => void } {
  const evaluators = a.sets.map((p) => new RepeatedEvaluator(a.metric, p, a.ctx, a.rows));
  const m = evaluators.length;
  const rng = typeof a.rng === 'number' ? Rng.resume(a.rng) : a.rng;
  const unitCounts = new Float64Array(a.draw.unitCount);
  const n = a.draw.units.length;
  const w = new Float64Array(n).fill(1);
  const batch = batchable(a.metric);
  const point = batch ? new Float64Array(m) : Float64Array.from(evaluators, (ev) => ev.evaluate(w));
  if (batch) {
    const ones = new Float64Array(n * BATCH_LANES);
    for (let i = 0; i < n; i++) ones[i * BATCH_LANES] = 1;
    evaluators.forEach((ev, j) => ev.evaluateBatch(ones, BATCH_LANES, 1, point.subarray(j, j + 1)));
  }
  const values = new Float64Array(a.B * m);
  const sampleLosses = a.losses;
  const losses = sampleLosses ? new Float64Array(a.B * m) : undefined;
  const draw = (b: number): void => {
    drawBootstrapWeights(a.draw, rng, unitCounts, w);
    if (!sampleLosses || !losses) return;
    let total = 0;
    for (let i = 0; i < n; i++) total += w[i];
    sampleLosses.forEach((l, j) => {
      let s = 0;
      for (let i = 0; i < n; i++) s += w[i] * l[i];
      losses[b * m + j] = s / total;
    });
  };
  if (!batch) {
    const block = (b: number): void => {
      draw(b);
      for (let j = 0; j < m; j++) values[b * m + j] = evaluators[j].evaluate(w);
    };
    return { matrix: { point, values, ...(losses ? { losses } : {}) }, blocks: a.B, block };
  }
  const size = roundUp(Math.max(1, Math.min(a.B, Math.floor(BATCH_WEIGHTS / Math.max(1, n)))), BATCH_LANES);
  const W = new Float64Array(n * size);
  const out = new Float64Array(size);
  const block = (k: number): void => {
    const from = k * size;
    const count = Math.min(size, a.B - from);
    const stride = roundUp(count, BATCH_LANES);
    if (stride > count) W.fill(0);
    for (let t = 0; t < count; t++) {
      draw(from + t);
      for (let i = 0; i < n; i++) W[i * stride + t] = w[i];
    }
    // the block once into the WebAssembly kernels' memory, where every set's passes read it
    const staged = stageWeights(W.subarray(0, n * stride), n, stride);
    for (let j = 0; j < m; j++) {
      evaluators[j].evaluateBatch(staged, stride, count, out);
      for (let t = 0; t < count; t++) values[(from + t) * m + j] = out[t];
    }
  };
  return { matrix: { point, values, ...(losses ? { losses } : {}) }, blocks: Math.ceil(a.B / size), block };
}

/**
 * Computes a bootstrapMatrix: `localMatrix` here (the default of the functions below), or the analysis's, which splits
 * the sets over its worker threads (compute.ts, matrixOnPool).
 */
export type MatrixRunner = (args: BootstrapMatrixArgs) => Promise<BootstrapMatrix>;

/**
 * bootstrapMatrix on this thread, yielding to the event loop in time slices (hundreds of sets x 1,000 bootstraps take
 * a while, and the caller's progress heartbeat and the engine process's messages must go on).
 */
export const localMatrix: MatrixRunner = async (args) => {
  const slices = new TimeSlices();
  const { matrix, blocks, block } = matrixSteps(args);
  for (let k = 0; k < blocks; k++) {
    await slices.next();
    block(k);
  }
  return matrix;
};

/** Evaluators of one metric for each repeat of a configuration's predictions (mean over repeats). */
export class RepeatedEvaluator {
  /** each repeat's predictions and outcome (of `rows` when given) */
  private readonly inputs: { pred: Float64Array; outcome: OutcomeArrays }[];
  private evs?: Evaluator[];
  private batches?: BatchEvaluator[];
  private sum = new Float64Array(0);
  private one = new Float64Array(0);

  /** what it evaluates (bootstrapMatrix builds it again from these on another thread) */
  constructor(
    readonly metric: string,
    readonly predictions: Float64Array[],
    private readonly ctx: MetricContext,
    readonly rows?: Int32Array,
  ) {
    this.inputs = predictions.map((p) => {
      if (!rows) return { pred: p, outcome: ctx.outcome };
      const W = p.length / ctx.outcome.y.length;
      const sub = new Float64Array(rows.length * W);
      rows.forEach((r, i) => sub.set(p.subarray(r * W, (r + 1) * W), i * W));
      const outcome: OutcomeArrays = {
        y: Float64Array.from(rows, (r) => ctx.outcome.y[r]),
        event: ctx.outcome.event ? Float64Array.from(rows, (r) => ctx.outcome.event?.[r] as number) : undefined,
      };
      return { pred: sub, outcome };
    });
  }

  evaluate(w: Float64Array): number {
    this.evs ??= this.inputs.map((i) => makeEvaluator(this.metric, i.pred, i.outcome, this.ctx.classCount));
    let s = 0;
    for (const ev of this.evs) s += ev(w);
    return s / this.evs.length;
  }

  /**
   * `evaluate` on `count` bootstraps at once (BatchEvaluator: weights[i * stride + b]), for a metric `batchable` names:
   * the same values, to the bit.
   */
  evaluateBatch(weights: Float64Array, stride: number, count: number, out: Float64Array): void {
    this.batches ??= this.inputs.map((i) => makeBatchEvaluator(this.metric, i.pred, i.outcome, this.ctx.classCount));
    if (this.sum.length < count) [this.sum, this.one] = [new Float64Array(count), new Float64Array(count)];
    const { sum, one } = this;
    sum.fill(0, 0, count);
    // as evaluate: the repeats' values summed in order, then divided by their number
    for (const ev of this.batches) {
      ev(weights, stride, count, one);
      for (let b = 0; b < count; b++) sum[b] += one[b];
    }
    for (let b = 0; b < count; b++) out[b] = sum[b] / this.batches.length;
  }
}

export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export interface Estimate {
  estimate: Record<string, number>;
  cis: Record<string, [number, number]>;
}

function summarize(values: Record<string, number[]>): Estimate {
  const estimate: Record<string, number> = {};
  const cis: Record<string, [number, number]> = {};
  for (const [name, vs] of Object.entries(values)) {
    const ok = vs.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
    estimate[name] = ok.length ? ok.reduce((a, b) => a + b, 0) / ok.length : NaN;
    cis[name] = [percentile(ok, 0.025), percentile(ok, 0.975)];
  }
  return { estimate, cis };
}

const better = (a: number, b: number): boolean => !Number.isNaN(a) && (Number.isNaN(b) || a > b);

/**
 * How BBC-CV picks the configuration of a bootstrap when not simply by the best in-bag metric: the in-bag metric of
 * each candidate per bootstrap (`inBag[b][j]`, the same bootstraps that `rng` draws), and the choice from them.
 */
export interface ChoiceRule {
  inBag: Float64Array[];
  /** the position chosen on bootstrap `b` from its in-bag metric values */
  choose(values: Float64Array, b: number): number;
}

/**
 * Bootstrap Bias Corrected CV (Tsamardinos, Greasidou & Borboudakis 2018): B bootstraps of the rows of
 * the out-of-fold matrix; in each, the configuration with the best primary metric on the in-bag rows (or the one
 * `rule` chooses from the in-bag metrics) is scored on the out-of-bag rows. The mean is the estimate, the 2.5 / 97.5 percentiles the 95% interval.
 */
export async function bbcEstimate(
  oof: OofMatrix,
  candidates: number[],
  metrics: string[],
  ctx: MetricContext,
  B: number,
  rng: Rng,
  rule?: ChoiceRule,
): Promise<Estimate> {
  const slices = new TimeSlices();
  const primary = rule ? [] : candidates.map((c) => new RepeatedEvaluator(metrics[0], oof[c] as Float64Array[], ctx));
  const others = new Map<string, RepeatedEvaluator>();
  const values: Record<string, number[]> = Object.fromEntries(metrics.map((m) => [m, []]));
  const n = ctx.outcome.y.length;
  const out = new Float64Array(n);
  for (let b = 0; b < B; b++) {
    await slices.next();
    const w = bootstrapWeights(ctx, rng);
    let best = 0;
    if (rule) best = rule.choose(rule.inBag[b], b);
    else {
      let bestValue = NaN;
      primary.forEach((ev, k) => {
        const v = ev.evaluate(w);
        if (better(v, bestValue)) {
          best = k;
          bestValue = v;
        }
      });
    }
    for (let i = 0; i < n; i++) out[i] = w[i] > 0 ? 0 : 1;
    const c = candidates[best];
    for (const m of metrics) {
      const key = `${c}:${m}`;
      let ev = m === metrics[0] && !rule ? primary[best] : others.get(key);
      if (!ev) {
        ev = new RepeatedEvaluator(m, oof[c] as Float64Array[], ctx);
        others.set(key, ev);
      }
      values[m].push(ev.evaluate(out));
    }
  }
  return summarize(values);
}

/**
 * BBCD-CV dropping: on the rows predicted so far, the probability (over B bootstraps) that each candidate
 * is worse than the current leader of its pool; returns the candidates losing with probability above `threshold`.
 * The candidates' values on the bootstraps are one bootstrapMatrix (`matrix` computes it).
 */
export async function configurationsToDrop(
  oof: OofMatrix,
  pools: number[][],
  metric: string,
  ctx: MetricContext,
  rows: Int32Array,
  B: number,
  threshold: number,
  rng: Rng,
  matrix: MatrixRunner = localMatrix,
): Promise<Set<number>> {
  const sub: MetricContext = {
    outcome: {
      y: Float64Array.from(rows, (r) => ctx.outcome.y[r]),
      event: ctx.outcome.event ? Float64Array.from(rows, (r) => ctx.outcome.event?.[r] as number) : undefined,
    },
    classCount: ctx.classCount,
    units: Int32Array.from(rows, (r) => ctx.units[r]),
    unitCount: ctx.unitCount,
  };
  // renumber units so bootstraps draw among the units present
  const ids = new Map<number, number>();
  sub.units = sub.units.map((u) => {
    if (!ids.has(u)) ids.set(u, ids.size);
    return ids.get(u) as number;
  });
  sub.unitCount = ids.size;
  const all = [...new Set(pools.flat())].sort((a, b) => a - b);
  // configurations with the same predictions on these rows (a model fit shared by selectors) are evaluated once
  const width = all.length > 0 ? (oof[all[0]] as Float64Array[])[0].length / ctx.outcome.y.length : 1;
  const same = samePredictions(all, oof, rows, width);
  const distinct = all.filter((c) => same.get(c) === c);
  const column = new Map(distinct.map((c, j) => [c, j]));
  const m = distinct.length;
  const { point, values } = await matrix({
    sets: distinct.map((c) => [(oof[c] as Float64Array[])[0]]),
    metric,
    ctx,
    rows,
    draw: sub,
    B,
    rng,
  });
  const of = (c: number): number => column.get(same.get(c) as number) as number;
  const leaders = pools.map((pool) => pool.reduce((a, c) => (better(point[of(c)], point[of(a)]) ? c : a), pool[0]));
  const losses = new Map(all.map((c) => [c, 0]));
  for (let b = 0; b < B; b++) {
    pools.forEach((pool, p) => {
      const lv = values[b * m + of(leaders[p])];
      for (const c of pool) if (c !== leaders[p] && better(lv, values[b * m + of(c)])) losses.set(c, (losses.get(c) as number) + 1);
    });
  }
  const drop = new Set<number>();
  const inPools = pools.map((pool) => new Set(pool));
  for (const c of all) {
    // a configuration is dropped only if it loses in every pool it belongs to
    const lossesAll = pools.every((pool, p) => !inPools[p].has(c) || c !== leaders[p]);
    if (lossesAll && (losses.get(c) as number) / (B * pools.filter((_, p) => inPools[p].has(c)).length) > threshold) drop.add(c);
  }
  return drop;
}

/**
 * For each configuration, the first of `configs` whose first-repeat predictions on `rows` are the same, value for
 * value (itself when none is). `width` values per sample.
 */
function samePredictions(configs: number[], oof: OofMatrix, rows: Int32Array, width: number): Map<number, number> {
  const byHash = new Map<number, number[]>();
  const out = new Map<number, number>();
  const equal = (a: Float64Array, b: Float64Array): boolean => {
    for (const r of rows) for (let k = r * width; k < (r + 1) * width; k++) if (!Object.is(a[k], b[k])) return false;
    return true;
  };
  for (const c of configs) {
    const p = (oof[c] as Float64Array[])[0];
    let h = 0;
    for (const r of rows) for (let k = r * width; k < (r + 1) * width; k++) h = (Math.imul(h, 31) + Math.round(p[k] * 1e9)) | 0;
    const candidates = byHash.get(h) ?? [];
    const match = candidates.find((d) => equal((oof[d] as Float64Array[])[0], p));
    out.set(c, match ?? c);
    if (match === undefined) byHash.set(h, [...candidates, c]);
  }
  return out;
}
