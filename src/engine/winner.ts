import { bootstrapWeights, MetricContext, OofMatrix, RepeatedEvaluator } from './bbc';
import type { Configuration } from './grid';
import type { ModelSpec } from './models';
import type { Rng } from './rng';
import { TimeSlices } from './time-slices';

/**
 * THE WINNER RULE: the simplest of the configurations statistically tied with the leader.
 *
 * 1. The leader is the configuration with the highest pooled out-of-fold primary metric.
 * 2. A configuration c is tied with the leader L when its metric is not reliably worse: the leader's lead
 *    m(L) - m(c) is at most one standard error of that difference, the standard deviation of m_b(L) - m_b(c) over
 *    the bootstraps b of the out-of-fold predictions (the same bootstraps BBC-CV draws; paired, so two
 *    configurations that err on the same samples have a small standard error).
 * 3. Among the tied configurations the simplest wins (`simplicityOrder`): the fewest selected features (the mean
 *    signature size of its selector over the cross-validation folds, rounded), then the more interpretable model
 *    family (linear, tree, linear SVM, forest, RBF SVM), then, for classification, a log loss of the model's own
 *    out-of-fold probabilities within one standard error of the best of its size and family, then the stronger
 *    regularisation; then the higher metric.
 *
 * BBC-CV applies the same rule in each bootstrap (leader, ties and choice on the in-bag samples), so the estimate is
 * honest for the rule actually used. `interpretable` applies it among the interpretable configurations.
 */
export class TieRule {
  /** standard error of m(leader) - m(c) for every candidate position c, by leader position */
  private readonly errors = new Map<number, Float64Array>();

  /**
   * `inBag[b][j]`: the primary metric of candidate position j on bootstrap b's in-bag samples; `rank[j]`: its
   * position in the simplicity order (0 = simplest).
   */
  constructor(
    private readonly inBag: Float64Array[],
    private readonly rank: Int32Array,
  ) {}

  /** The position chosen among `among` (default all) for the metric values `values` (by candidate position). */
  choose(values: Float64Array, among?: readonly number[]): number {
    const { leader, tied } = this.standings(values, among);
    if (leader < 0) return (among ?? [0])[0];
    return tied.reduce((chosen, j) => (this.rank[j] < this.rank[chosen] ? j : chosen), leader);
  }

  /** The tied positions (leader included) for `values`, for reports and tests. */
  tied(values: Float64Array, among?: readonly number[]): number[] {
    return this.standings(values, among).tied;
  }

  /**
   * What the rule sees among `among` (default all): the leader's position (-1 when no value is a number), the standard
   * error of the leader's lead over each position (0 for the leader itself; NaN outside `among`), and the tied positions
   * (the leader's lead at most one standard error), leader included, in position order.
   */
  standings(values: Float64Array, among?: readonly number[]): { leader: number; standardErrors: Float64Array; tied: number[] } {
    const positions = among ?? Array.from(values, (_, j) => j);
    let leader = -1;
    for (const j of positions) if (!Number.isNaN(values[j]) && (leader < 0 || values[j] > values[leader])) leader = j;
    const standardErrors = new Float64Array(values.length).fill(NaN);
    if (leader < 0) return { leader, standardErrors, tied: [] };
    const se = this.standardErrors(leader);
    for (const j of positions) standardErrors[j] = se[j];
    const tied = positions.filter((j) => !Number.isNaN(values[j]) && values[leader] - values[j] <= se[j]);
    return { leader, standardErrors, tied };
  }

  private standardErrors(leader: number): Float64Array {
    let se = this.errors.get(leader);
    if (se) return se;
    const C = this.rank.length;
    const sum = new Float64Array(C);
    const squares = new Float64Array(C);
    const count = new Float64Array(C);
    for (const row of this.inBag) {
      const l = row[leader];
      if (Number.isNaN(l)) continue;
      for (let j = 0; j < C; j++) {
        const d = l - row[j];
        if (Number.isNaN(d)) continue;
        sum[j] += d;
        squares[j] += d * d;
        count[j]++;
      }
    }
    se = Float64Array.from(sum, (s, j) => (count[j] > 1 ? Math.sqrt(Math.max(0, (squares[j] - (s * s) / count[j]) / (count[j] - 1))) : 0));
    this.errors.set(leader, se);
    return se;
  }
}

/**
 * The primary metric of each candidate on each bootstrap's in-bag samples: `[b][j]`, bootstraps drawn from `rng` in
 * order. It yields to the event loop in time slices (hundreds of candidates x 1,000 bootstraps take a while, and the
 * caller's progress heartbeat must go on).
 */
export async function inBagValues(
  oof: OofMatrix,
  candidates: readonly number[],
  metric: string,
  ctx: MetricContext,
  B: number,
  rng: Rng,
): Promise<Float64Array[]> {
  const slices = new TimeSlices();
  const evaluators = candidates.map((c) => new RepeatedEvaluator(metric, oof[c] as Float64Array[], ctx));
  const out: Float64Array[] = [];
  for (let b = 0; b < B; b++) {
    await slices.next();
    const w = bootstrapWeights(ctx, rng);
    out.push(Float64Array.from(evaluators, (ev) => ev.evaluate(w)));
  }
  return out;
}

/** A model's family: its kind, an SVM's with its kernel. */
export type Family = Exclude<ModelSpec['kind'], 'svm'> | `svm-${Extract<ModelSpec, { kind: 'svm' }>['kernel']}`;

/** Model families from the most to the least interpretable (a new kind of model is a compile error until it has its rank). */
const FAMILY: Record<Family, number> = { linear: 0, tree: 1, 'svm-linear': 2, forest: 3, 'svm-rbf': 4 };

/** The family of a model, as the leaderboard names it. */
export function familyOf(model: ModelSpec): Family {
  return model.kind === 'svm' ? (`svm-${model.kernel}` as const) : model.kind;
}

function family(model: ModelSpec): number {
  return FAMILY[familyOf(model)];
}

/** How flexible a model is within its family (smaller = more strongly regularised). */
export function flexibility(model: ModelSpec): number {
  switch (model.kind) {
    case 'linear':
      return -Math.log(model.lambda);
    case 'tree':
      return model.maxDepth * 1000 - model.minLeaf;
    case 'forest':
      return model.mtryFactor * 1000 - model.minLeaf;
    case 'svm':
      return Math.log(model.C) + Math.log(model.gammaFactor);
  }
}

/** What the simplicity order reads of a configuration besides the configuration itself. */
export interface SimplicityFacts {
  /** the mean reference-signature size of its selector over the folds (compared rounded) */
  size: (c: Configuration) => number;
  /** its pooled out-of-fold primary metric */
  metric: (c: Configuration) => number;
  /**
   * classification: whether the log loss of its own out-of-fold probabilities is within one standard error of the best
   * among the configurations of its size and family (probabilityBand), the third key
   */
  nearBestLogLoss?: (c: Configuration) => boolean;
}

/**
 * Negative when configuration a is simpler than b: fewer selected features (rounded mean signature size), then the
 * more interpretable family, then (classification) a log loss of its own probabilities near the best of its size and
 * family, then the stronger regularisation, then the higher pooled metric, then the lower index.
 *
 * Why the log loss before the regularisation for classification: the primary metric (AUC) ranks, and cannot see a
 * model whose probabilities are all pulled towards the class frequencies, so with the stronger regularisation third the
 * rule took the most heavily penalised model of a tied family (a multinomial ridge with lambda = 3 on wine: held-out log
 * loss 0.65 against scikit-learn's 0.07); the lowest log loss alone takes the least penalised one (lambda = 1e-4: 0.18,
 * a handful of confident mistakes). Within one standard error of the best log loss, the strongest regularisation is
 * glmnet's lambda.1se on a proper score (bench/winner-rule.bench.ts).
 */
export function simplicityOrder(a: Configuration, b: Configuration, facts: SimplicityFacts): number {
  const value = (c: Configuration): number => (Number.isNaN(facts.metric(c)) ? -Infinity : facts.metric(c));
  const band = facts.nearBestLogLoss;
  return (
    Math.round(facts.size(a)) - Math.round(facts.size(b)) ||
    family(a.model) - family(b.model) ||
    (band ? Number(!band(a)) - Number(!band(b)) : 0) ||
    flexibility(a.model) - flexibility(b.model) ||
    (value(b) > value(a) ? 1 : value(b) < value(a) ? -1 : 0) ||
    a.index - b.index
  );
}

/**
 * For classification: whether each configuration's own out-of-fold probabilities have a log loss within one standard
 * error of the best among the configurations of the same rounded signature size and family. `losses.get(c)`: the log
 * loss of each sample (mean over the repeats); the standard error is that of the mean paired difference from the best
 * of the group over the samples.
 */
export function probabilityBand(
  configs: Configuration[],
  size: (c: Configuration) => number,
  losses: Map<number, Float64Array>,
): Map<number, boolean> {
  const groups = new Map<string, Configuration[]>();
  for (const c of configs) {
    const key = `${Math.round(size(c))}|${family(c.model)}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  const near = new Map<number, boolean>();
  const mean = (x: Float64Array): number => x.reduce((s, v) => s + v, 0) / x.length;
  for (const group of groups.values()) {
    const known = group.filter((c) => losses.has(c.index) && Number.isFinite(mean(losses.get(c.index) as Float64Array)));
    const best = known.reduce<Configuration | undefined>(
      (b, c) => (!b || mean(losses.get(c.index) as Float64Array) < mean(losses.get(b.index) as Float64Array) ? c : b),
      undefined,
    );
    for (const c of group) {
      if (!best || !known.includes(c)) {
        near.set(c.index, false);
        continue;
      }
      const a = losses.get(c.index) as Float64Array;
      const b = losses.get(best.index) as Float64Array;
      const d = Float64Array.from(a, (v, i) => v - b[i]);
      const m = mean(d);
      const se = Math.sqrt(d.reduce((s, v) => s + (v - m) ** 2, 0) / Math.max(1, d.length - 1) / d.length);
      near.set(c.index, m <= se);
    }
  }
  return near;
}
