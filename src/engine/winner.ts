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
 *    family (linear, tree, linear SVM, forest, RBF SVM), then the stronger regularisation; then the higher metric.
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
    const positions = among ?? Array.from(values, (_, j) => j);
    let leader = -1;
    for (const j of positions) if (!Number.isNaN(values[j]) && (leader < 0 || values[j] > values[leader])) leader = j;
    if (leader < 0) return positions[0];
    const se = this.standardErrors(leader);
    let chosen = leader;
    for (const j of positions) {
      if (Number.isNaN(values[j]) || !(values[leader] - values[j] <= se[j])) continue;
      if (this.rank[j] < this.rank[chosen]) chosen = j;
    }
    return chosen;
  }

  /** The tied positions (leader included) for `values`, for reports and tests. */
  tied(values: Float64Array, among?: readonly number[]): number[] {
    const positions = among ?? Array.from(values, (_, j) => j);
    let leader = -1;
    for (const j of positions) if (!Number.isNaN(values[j]) && (leader < 0 || values[j] > values[leader])) leader = j;
    if (leader < 0) return [];
    const se = this.standardErrors(leader);
    return positions.filter((j) => !Number.isNaN(values[j]) && values[leader] - values[j] <= se[j]);
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
type Family = Exclude<ModelSpec['kind'], 'svm'> | `svm-${Extract<ModelSpec, { kind: 'svm' }>['kernel']}`;

/** Model families from the most to the least interpretable (a new kind of model is a compile error until it has its rank). */
const FAMILY: Record<Family, number> = { linear: 0, tree: 1, 'svm-linear': 2, forest: 3, 'svm-rbf': 4 };

function family(model: ModelSpec): number {
  return FAMILY[model.kind === 'svm' ? (`svm-${model.kernel}` as const) : model.kind];
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

/**
 * Negative when configuration a is simpler than b: fewer selected features (rounded mean signature size), then the
 * more interpretable family, then the stronger regularisation, then the higher pooled metric, then the lower index.
 */
export function simplicityOrder(
  a: Configuration,
  b: Configuration,
  size: (c: Configuration) => number,
  metric: (c: Configuration) => number,
): number {
  const value = (c: Configuration): number => (Number.isNaN(metric(c)) ? -Infinity : metric(c));
  return (
    Math.round(size(a)) - Math.round(size(b)) ||
    family(a.model) - family(b.model) ||
    flexibility(a.model) - flexibility(b.model) ||
    (value(b) > value(a) ? 1 : value(b) < value(a) ? -1 : 0) ||
    a.index - b.index
  );
}
