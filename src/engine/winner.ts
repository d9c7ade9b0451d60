import { localMatrix, MatrixRunner, MetricContext, OofMatrix } from './bbc';
import type { Configuration } from './grid';
import { kindOf } from './models';
import type { ModelSpec } from './models';
import type { Rng } from './rng';

/**
 * THE WINNER RULE: the simplest of the configurations statistically tied with the leader.
 *
 * 1. The leader is the configuration with the highest pooled out-of-fold primary metric.
 * 2. A configuration c is tied with the leader L on the metric when its metric is not reliably worse: the leader's
 *    lead m(L) - m(c) is at most one standard error of that difference, the standard deviation of m_b(L) - m_b(c)
 *    over the bootstraps b of the out-of-fold predictions (the same bootstraps BBC-CV draws; paired, so two
 *    configurations that err on the same samples have a small standard error).
 * 3. Classification: among those, the tie must hold on a proper score too. With B the configuration tied on the
 *    metric whose probabilities have the lowest log loss, c stays tied when ll(c) - ll(B) is at most one standard
 *    error of that difference (over the same bootstraps). An AUC ranks the samples and cannot tell a model that
 *    separates them by a wide margin from one that barely does, nor see probabilities pulled towards the class
 *    frequencies: on 180 images of digits 0, 1 and 2 every configuration had a cross-validated AUC of 1, and the
 *    fewest features (2, out-of-fold log loss 0.165 against 0.020 with 21) held 5 of 60 new images wrong.
 * 4. Among the tied configurations the simplest wins (`simplicityOrder`): the fewest selected features (the mean
 *    signature size of its selector over the cross-validation folds, rounded), then the more interpretable model
 *    family (linear, tree, linear SVM, forest, RBF SVM), then the stronger regularisation; then the higher metric.
 *
 * BBC-CV applies the same rule in each bootstrap (leader, ties and choice on the in-bag samples), so the estimate is
 * honest for the rule actually used. `interpretable` applies it among the interpretable configurations.
 */
export class TieRule {
  /** standard error of m(leader) - m(c) for every candidate position c, by leader position */
  private readonly errors = new Map<number, Float64Array>();
  /** standard error of ll(c) - ll(best) for every candidate position c, by the position of the lowest log loss */
  private readonly lossErrors = new Map<number, Float64Array>();

  /**
   * `inBag[b][j]`: the primary metric of candidate position j on bootstrap b's in-bag samples; `rank[j]`: its
   * position in the simplicity order (0 = simplest); `inBagLoss[b][j]` (classification): the log loss of its
   * probabilities on the same samples.
   */
  constructor(
    private readonly inBag: Float64Array[],
    private readonly rank: Int32Array,
    private readonly inBagLoss?: Float64Array[],
  ) {}

  /**
   * The position chosen among `among` (default all) for the metric values `values` and (classification) the log
   * losses `losses` of the same samples (by candidate position).
   */
  choose(values: Float64Array, among?: readonly number[], losses?: Float64Array): number {
    const { leader, tied } = this.standings(values, among, losses);
    if (leader < 0) return (among ?? [0])[0];
    return tied.reduce((chosen, j) => (this.rank[j] < this.rank[chosen] ? j : chosen), tied[0] ?? leader);
  }

  /** The tied positions (both stages) for `values` and `losses`, for reports and tests. */
  tied(values: Float64Array, among?: readonly number[], losses?: Float64Array): number[] {
    return this.standings(values, among, losses).tied;
  }

  /**
   * What the rule sees among `among` (default all): the leader's position (-1 when no value is a number), the standard
   * error of the leader's lead over each position (0 for the leader itself; NaN outside `among`), the positions tied
   * with it on the metric; with `losses` (and in-bag losses given to the rule), the position of the lowest log loss
   * among those (`bestLoss`), the standard error of each one's excess over it (`lossStandardErrors`, NaN for the
   * others), and the positions tied on both (`tied`), in position order.
   */
  standings(
    values: Float64Array,
    among?: readonly number[],
    losses?: Float64Array,
  ): {
    leader: number;
    standardErrors: Float64Array;
    tiedOnMetric: number[];
    bestLoss: number;
    lossStandardErrors: Float64Array;
    tied: number[];
  } {
    const positions = among ?? Array.from(values, (_, j) => j);
    let leader = -1;
    for (const j of positions) if (!Number.isNaN(values[j]) && (leader < 0 || values[j] > values[leader])) leader = j;
    const standardErrors = new Float64Array(values.length).fill(NaN);
    const lossStandardErrors = new Float64Array(values.length).fill(NaN);
    if (leader < 0) return { leader, standardErrors, tiedOnMetric: [], bestLoss: -1, lossStandardErrors, tied: [] };
    const se = this.standardErrors(leader, this.inBag, this.errors);
    for (const j of positions) standardErrors[j] = se[j];
    const tiedOnMetric = positions.filter((j) => !Number.isNaN(values[j]) && values[leader] - values[j] <= se[j]);
    if (!losses || !this.inBagLoss) return { leader, standardErrors, tiedOnMetric, bestLoss: -1, lossStandardErrors, tied: tiedOnMetric };
    let bestLoss = -1;
    for (const j of tiedOnMetric) if (Number.isFinite(losses[j]) && (bestLoss < 0 || losses[j] < losses[bestLoss])) bestLoss = j;
    if (bestLoss < 0) return { leader, standardErrors, tiedOnMetric, bestLoss, lossStandardErrors, tied: tiedOnMetric };
    const lse = this.standardErrors(bestLoss, this.inBagLoss, this.lossErrors);
    for (const j of tiedOnMetric) lossStandardErrors[j] = lse[j];
    const tied = tiedOnMetric.filter((j) => Number.isFinite(losses[j]) && losses[j] - losses[bestLoss] <= lse[j]);
    return { leader, standardErrors, tiedOnMetric, bestLoss, lossStandardErrors, tied };
  }

  /**
   * The standard deviation over the bootstraps of v_b(from) - v_b(c) for every candidate c, from the rows
   * `rows[b]`, cached in `cache` by `from`.
   */
  private standardErrors(from: number, rows: Float64Array[], cache: Map<number, Float64Array>): Float64Array {
    let se = cache.get(from);
    if (se) return se;
    const C = this.rank.length;
    const sum = new Float64Array(C);
    const squares = new Float64Array(C);
    const count = new Float64Array(C);
    for (const row of rows) {
      const l = row[from];
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
    cache.set(from, se);
    return se;
  }
}

/** Each sample's log loss under n x K probabilities, the mean over the repeats of the cross-validation. */
export function sampleLogLoss(repeats: Float64Array[], y: ArrayLike<number>, K: number): Float64Array {
  return Float64Array.from(y, (cls, i) => repeats.reduce((s, p) => s - Math.log(p[i * K + cls]), 0) / repeats.length);
}

/**
 * The primary metric of each candidate on each bootstrap's in-bag samples: `values[b][j]`, bootstraps drawn from `rng`
 * in order; with `losses` (each candidate's per-sample log loss, classification), the weighted mean log loss on the
 * same samples as `losses[b][j]`: one bootstrapMatrix (`matrix` computes it; the analysis's splits the candidates over
 * its worker threads).
 */
export async function inBagValues(
  oof: OofMatrix,
  candidates: readonly number[],
  metric: string,
  ctx: MetricContext,
  B: number,
  rng: Rng,
  losses?: Float64Array[],
  matrix: MatrixRunner = localMatrix,
): Promise<{ values: Float64Array[]; losses?: Float64Array[] }> {
  const m = candidates.length;
  const sets = candidates.map((c) => oof[c] as Float64Array[]);
  const out = await matrix({ sets, metric, ctx, draw: ctx, B, rng, ...(losses ? { losses } : {}) });
  const rows = (v: Float64Array): Float64Array[] => Array.from({ length: B }, (_, b) => v.slice(b * m, (b + 1) * m));
  return { values: rows(out.values), ...(out.losses ? { losses: rows(out.losses) } : {}) };
}

/** A model's family, as the leaderboard names it: linear, tree, svm-linear, forest, svm-rbf (its kind says which). */
export type Family = string;

/** The family of a model, as its kind names it (models/kind.ts). */
export function familyOf(model: ModelSpec): Family {
  return kindOf(model).family(model);
}

/** A model's family's place from the most to the least interpretable, as its kind ranks it. */
function family(model: ModelSpec): number {
  const kind = kindOf(model);
  return kind.families[kind.family(model)];
}

/** How flexible a model is within its family (smaller = more strongly regularised), as its kind says. */
export function flexibility(model: ModelSpec): number {
  return kindOf(model).flexibility(model);
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
