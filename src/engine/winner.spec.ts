import { bbcEstimate, bootstrapWeights, MetricContext, OofMatrix } from './bbc';
import type { Configuration } from './grid';
import { ACCURACY } from './metrics';
import type { ModelSpec } from './models';
import { Rng } from './rng';
import { inBagValues, probabilityBand, simplicityOrder, TieRule } from './winner';

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
  const sort = (cs: Configuration[], size: (c: Configuration) => number, nearBestLogLoss?: (c: Configuration) => boolean) =>
    [...cs]
      .sort((a, b) => simplicityOrder(a, b, { size, metric: () => 0.5, ...(nearBestLogLoss ? { nearBestLogLoss } : {}) }))
      .map((c) => c.index);

  it('orders by rounded signature size, then family (linear, tree, forest, RBF SVM), then regularisation', () => {
    expect(sort([rbf, forest, tree, ridgeWeak, ridgeStrong], () => 5)).toEqual([2, 1, 3, 0, 4]);
    // fewer features first whatever the model; 4.4 and 4.0 features count as the same size
    expect(sort([ridgeStrong, forest], (c) => (c === forest ? 3 : 5))).toEqual([0, 2]);
    expect(sort([ridgeWeak, ridgeStrong], (c) => (c === ridgeStrong ? 4.4 : 4.0))).toEqual([2, 1]);
  });

  it('classification: within a family on as many features, a log loss near the best before the stronger regularisation', () => {
    const ridgeMiddle = config(5, { kind: 'linear', lambda: 0.1 });
    // the strongly penalised ridge pulls every probability to the class frequencies: its log loss is far from the best
    const near = (c: Configuration): boolean => c !== ridgeStrong;
    expect(sort([ridgeStrong, ridgeWeak, ridgeMiddle, tree], () => 5, near)).toEqual([5, 1, 2, 3]);
    // features and family still come first
    expect(sort([ridgeStrong, ridgeWeak, forest], (c) => (c === ridgeStrong ? 3 : 5), near)).toEqual([2, 1, 0]);
  });
});

describe('probabilityBand', () => {
  const config = (index: number, lambda: number): Configuration => ({
    index,
    selector: { kind: 'ses', maxK: 2, alpha: 0.05 },
    model: { kind: 'linear', lambda },
    interpretable: true,
  });
  it('marks the configurations of a size and family whose log loss is within one standard error of their best', () => {
    const rng = new Rng(5);
    const base = Float64Array.from({ length: 400 }, () => 0.2 + 0.2 * rng.next());
    const losses = new Map([
      [0, base],
      // a hair above the best on average (0.0002), by much more on each sample (0.01): within one standard error (0.0005)
      [1, Float64Array.from(base, (v, i) => v + (i % 2 ? 0.01 : -0.0096))],
      // far above
      [2, Float64Array.from(base, (v) => v + 0.3)],
      // another size: its own group, so the best of it
      [3, Float64Array.from(base, (v) => v + 0.5)],
    ]);
    const configs = [config(0, 0.01), config(1, 0.1), config(2, 3), config(3, 3)];
    const band = probabilityBand(configs, (c) => (c.index === 3 ? 2 : 5), losses);
    expect([0, 1, 2, 3].map((c) => band.get(c))).toEqual([true, true, false, true]);
  });
});

describe('BBC-CV with a choice rule', () => {
  const y = [0, 1, 0, 1, 1, 0, 1, 0];
  const ctx: MetricContext = { outcome: { y: Float64Array.from(y) }, classCount: 2, units: Int32Array.from(y, (_, i) => i), unitCount: 8 };
  const predicting = (classes: number[]): Float64Array => Float64Array.from(classes.flatMap((c) => (c === 1 ? [0.2, 0.8] : [0.9, 0.1])));
  const oof: OofMatrix = [[predicting([0, 1, 0, 1, 1, 0, 1, 1])], [predicting([0, 1, 1, 1, 0, 0, 1, 0])]];

  it('scores the configuration the rule chooses in each bootstrap, on the same bootstraps as inBagValues', async () => {
    const inBag = await inBagValues(oof, [0, 1], ACCURACY, ctx, 50, new Rng(3));
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
