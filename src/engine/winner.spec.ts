import { bbcEstimate, bootstrapWeights, MetricContext, OofMatrix } from './bbc';
import type { Configuration } from './grid';
import { ACCURACY } from './metrics';
import type { ModelSpec } from './models';
import { Rng } from './rng';
import { inBagValues, sampleLogLoss, simplicityOrder, TieRule } from './winner';

/** rows of in-bag values, one per bootstrap, from columns of values per candidate */
function byBootstrap(columns: number[][]): Float64Array[] {
  return columns[0].map((_, b) => Float64Array.from(columns, (col) => col[b]));
}

describe('TieRule', () => {
  // candidate 0 leads; 1 trails it by 0.01 with a paired standard error of 0.0141 (tied); 2 trails by 0.1 (not tied)
  const inBag = byBootstrap([
    [0.9, 0.92, 0.88, 0.9],
    [0.9, 0.89, 0.88, 0.89],
    [0.8, 0.82, 0.78, 0.8],
  ]);
  const pooled = Float64Array.from([0.9, 0.89, 0.8]);

  it('takes the leader and the configurations within one standard error of the paired difference', () => {
    const rule = new TieRule(inBag, Int32Array.from([2, 1, 0]));
    expect(rule.tied(pooled)).toEqual([0, 1]);
    // the simplest of the tied (rank 1) wins; candidate 2, simpler still, is reliably worse
    expect(rule.choose(pooled)).toBe(1);
  });

  it('keeps the leader when it is also the simplest of the tied, and chooses within a subset', () => {
    expect(new TieRule(inBag, Int32Array.from([0, 1, 2])).choose(pooled)).toBe(0);
    const rule = new TieRule(inBag, Int32Array.from([2, 1, 0]));
    expect(rule.choose(pooled, [1, 2])).toBe(1);
    expect(rule.choose(pooled, [2])).toBe(2);
  });

  it('never lets a NaN lead or tie', () => {
    const rule = new TieRule(inBag, Int32Array.from([2, 1, 0]));
    expect(rule.choose(Float64Array.from([NaN, 0.89, 0.8]))).toBe(1);
    expect(rule.tied(Float64Array.from([NaN, 0.89, 0.8]))).not.toContain(0);
  });

  it('classification: keeps tied only the configurations whose log loss is within one standard error of the lowest of those tied on the metric', () => {
    // four candidates with the same AUC on every bootstrap (all tied on it); log losses: 3 lowest; 2 a hair above it
    // (within its standard error); 1 and 0 far above (a model separating the classes by a thin margin)
    const same = byBootstrap([0, 1, 2, 3].map(() => [1, 1, 1, 1]));
    const losses = byBootstrap([
      [0.5, 0.6, 0.4, 0.5],
      [0.3, 0.35, 0.25, 0.3],
      [0.105, 0.14, 0.06, 0.1],
      [0.1, 0.12, 0.08, 0.1],
    ]);
    const rule = new TieRule(same, Int32Array.from([0, 1, 2, 3]), losses);
    const auc = Float64Array.from([1, 1, 1, 1]);
    const loss = Float64Array.from([0.5, 0.3, 0.101, 0.1]);
    const s = rule.standings(auc, undefined, loss);
    expect(s.tiedOnMetric).toEqual([0, 1, 2, 3]);
    expect(s.bestLoss).toBe(3);
    expect(s.tied).toEqual([2, 3]);
    // the simplest of those: candidate 2 (rank 2), not 0 (rank 0, whose probabilities are poor)
    expect(rule.choose(auc, undefined, loss)).toBe(2);
    // without log losses (regression, survival) the metric alone decides
    expect(rule.choose(auc)).toBe(0);
    // the log-loss tie is among those tied on the metric: a far lower log loss of a configuration not tied on it is not the reference
    const auc2 = Float64Array.from([1, 1, 1, 0.5]);
    const s2 = new TieRule(
      byBootstrap([
        [1, 1, 1, 1],
        [1, 1, 1, 1],
        [1, 1, 1, 1],
        [0.5, 0.6, 0.4, 0.5],
      ]),
      Int32Array.from([0, 1, 2, 3]),
      losses,
    ).standings(auc2, undefined, loss);
    expect(s2.tiedOnMetric).toEqual([0, 1, 2]);
    expect(s2.bestLoss).toBe(2);
  });

  it("sampleLogLoss averages each sample's log loss over the repeats", () => {
    const a = Float64Array.from([0.2, 0.8, 0.6, 0.4]);
    const b = Float64Array.from([0.4, 0.6, 0.2, 0.8]);
    const l = sampleLogLoss([a, b], [1, 0], 2);
    expect(l[0]).toBeCloseTo(-(Math.log(0.8) + Math.log(0.6)) / 2, 14);
    expect(l[1]).toBeCloseTo(-(Math.log(0.6) + Math.log(0.2)) / 2, 14);
  });
});

describe('simplicityOrder', () => {
  const config = (index: number, model: ModelSpec): Configuration => ({
    index,
    selector: { kind: 'ses', maxK: 2, alpha: 0.05 },
    model,
    interpretable: model.kind === 'linear' || model.kind === 'tree',
  });
  const forest = config(0, { kind: 'forest', trees: 100, mtryFactor: 1, minLeaf: 1 });
  const ridgeWeak = config(1, { kind: 'linear', lambda: 0.01 });
  const ridgeStrong = config(2, { kind: 'linear', lambda: 1 });
  const tree = config(3, { kind: 'tree', maxDepth: 3, minLeaf: 5 });
  const rbf = config(4, { kind: 'svm', kernel: 'rbf', C: 1, gammaFactor: 1, epsilon: 0 });
  const sort = (cs: Configuration[], size: (c: Configuration) => number) =>
    [...cs].sort((a, b) => simplicityOrder(a, b, size, () => 0.5)).map((c) => c.index);

  it('orders by rounded signature size, then family (linear, tree, forest, RBF SVM), then regularisation', () => {
    expect(sort([rbf, forest, tree, ridgeWeak, ridgeStrong], () => 5)).toEqual([2, 1, 3, 0, 4]);
    // fewer features first whatever the model; 4.4 and 4.0 features count as the same size
    expect(sort([ridgeStrong, forest], (c) => (c === forest ? 3 : 5))).toEqual([0, 2]);
    expect(sort([ridgeWeak, ridgeStrong], (c) => (c === ridgeStrong ? 4.4 : 4.0))).toEqual([2, 1]);
  });
});

describe('BBC-CV with a choice rule', () => {
  const y = [0, 1, 0, 1, 1, 0, 1, 0];
  const ctx: MetricContext = { outcome: { y: Float64Array.from(y) }, classCount: 2, units: Int32Array.from(y, (_, i) => i), unitCount: 8 };
  const predicting = (classes: number[]): Float64Array => Float64Array.from(classes.flatMap((c) => (c === 1 ? [0.2, 0.8] : [0.9, 0.1])));
  const oof: OofMatrix = [[predicting([0, 1, 0, 1, 1, 0, 1, 1])], [predicting([0, 1, 1, 1, 0, 0, 1, 0])]];

  it('scores the configuration the rule chooses in each bootstrap, on the same bootstraps as inBagValues', async () => {
    const { values: inBag } = await inBagValues(oof, [0, 1], ACCURACY, ctx, 50, new Rng(3));
    // the in-bag values are the metric on the bootstrap weights drawn in order
    const rng = new Rng(3);
    const first = bootstrapWeights(ctx, rng);
    const correct = [1, 1, 1, 1, 1, 1, 1, 0];
    expect(inBag[0][0]).toBeCloseTo(first.reduce((s, w, i) => s + w * correct[i], 0) / first.reduce((s, w) => s + w, 0), 12);
    // a rule that always takes candidate 1 estimates candidate 1 alone
    const always = await bbcEstimate(oof, [0, 1], [ACCURACY], ctx, 50, new Rng(3), { inBag, choose: () => 1 });
    const alone = await bbcEstimate(oof, [1], [ACCURACY], ctx, 50, new Rng(3));
    expect(always).toEqual(alone);
    // the rule sees each bootstrap's in-bag values
    const seen: number[] = [];
    await bbcEstimate(oof, [0, 1], [ACCURACY], ctx, 50, new Rng(3), { inBag, choose: (v) => (seen.push(v[0]), 0) });
    expect(seen).toEqual(inBag.map((row) => row[0]));
  });
});
