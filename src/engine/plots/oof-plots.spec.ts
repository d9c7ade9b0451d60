import { plotContext } from '../../../test/plot-context';
import { auc, makeEvaluator, MEAN_AUC } from '../metrics';
import { Rng } from '../rng';
import { CALIBRATION, calibrationErrors } from './calibration';
import { CONFUSION_MATRIX } from './confusion-matrix';
import { KAPLAN_MEIER_BY_RISK_GROUP, kaplanMeier, riskThirds } from './kaplan-meier';
import { PREDICTED_VS_ACTUAL } from './predicted-vs-actual';
import { PROBABILITIES } from './probabilities';
import { ROC_CURVE, rocCurve, tprAt, tprAtGrid } from './roc-curve';

const context = plotContext;

/** Probabilities of K classes for n samples that lean towards the true class, with ties (rounded to 0.05). */
function classification(n: number, K: number, seed: number): { p: Float64Array; y: Float64Array } {
  const rng = new Rng(seed);
  const y = Float64Array.from({ length: n }, (_, i) => i % K);
  const p = new Float64Array(n * K);
  for (let i = 0; i < n; i++) {
    const raw = Array.from({ length: K }, (_, c) => rng.next() + (c === y[i] ? 0.6 : 0));
    const s = raw.reduce((a, b) => a + b, 0);
    raw.forEach((v, c) => (p[i * K + c] = Math.round((20 * v) / s) / 20));
  }
  return { p, y };
}

describe('ROC Curve', () => {
  it('has the area of the metric code (ties count 1/2), a curve from (0, 0) to (1, 1) and an interval around it', async () => {
    const { p, y } = classification(300, 2, 1);
    const [roc] = (await ROC_CURVE.compute(context('classification', p, y, ['no', 'yes']))) ?? [];
    const score = Float64Array.from({ length: 300 }, (_, i) => p[i * 2 + 1]);
    expect(roc.class).toBe('yes');
    expect(roc.auc).toBeCloseTo(auc(score, y), 12);
    expect(roc.cis[0]).toBeLessThan(roc.auc);
    expect(roc.cis[1]).toBeGreaterThan(roc.auc);
    expect(roc.points[0]).toEqual({ fpr: 0, tpr: 0 });
    expect(roc.points[roc.points.length - 1]).toMatchObject({ fpr: 1, tpr: 1 });
    // the curve's own points, counted directly: the samples at or above each threshold
    for (const pt of roc.points.slice(1)) {
      const called = Array.from(score.keys()).filter((i) => score[i] >= pt.threshold);
      expect(pt.tpr).toBeCloseTo(called.filter((i) => y[i] === 1).length / 150, 12);
      expect(pt.fpr).toBeCloseTo(called.filter((i) => y[i] === 0).length / 150, 12);
    }
    for (const b of roc.band) {
      expect(b.cis[0]).toBeLessThanOrEqual(b.tpr);
      expect(b.cis[1]).toBeGreaterThanOrEqual(b.tpr);
    }
    expect(roc.band).toHaveLength(51);
  });

  it('draws one curve per class for more than two, each with the one-vs-rest area the mean AUC averages', async () => {
    const { p, y } = classification(240, 3, 2);
    const rocs = (await ROC_CURVE.compute(context('classification', p, y, ['a', 'b', 'c']))) ?? [];
    expect(rocs.map((r) => r.class)).toEqual(['a', 'b', 'c']);
    const mean = makeEvaluator(MEAN_AUC, p, { y }, 3)(new Float64Array(240).fill(1));
    expect(rocs.reduce((s, r) => s + r.auc, 0) / 3).toBeCloseTo(mean, 12);
  });

  it('reads the true-positive rate at a false-positive rate off the curve (the top of a vertical step)', () => {
    const { points } = rocCurve(Float64Array.from([0.9, 0.8, 0.7, 0.6]), Uint8Array.from([1, 1, 0, 0]));
    expect(tprAt(points, 0)).toBe(1);
    expect(tprAt(points, 0.25)).toBe(1);
    // the one-walk version reads the same values
    const { p, y } = classification(100, 2, 4);
    const curve = rocCurve(
      Float64Array.from({ length: 100 }, (_, i) => p[i * 2 + 1]),
      Uint8Array.from(y),
    );
    const grid = Array.from({ length: 51 }, (_, j) => j / 50);
    expect(tprAtGrid(curve.points, grid)).toEqual(grid.map((f) => tprAt(curve.points, f)));
    const tied = rocCurve(Float64Array.from([0.5, 0.5]), Uint8Array.from([1, 0]));
    expect(tied.auc).toBe(0.5);
    expect(tprAt(tied.points, 0.5)).toBeCloseTo(0.5, 12);
  });
});

describe('Calibration', () => {
  it('bins the probabilities in tenths of the samples (ties together) with their ranges, counts, observed frequencies, Brier score and calibration error', async () => {
    // 20 samples, probability of "yes" 0.02 ... 0.40 by 0.02 and two of 0.9: ten bins of two, the tie in the last
    const py = [...Array.from({ length: 18 }, (_, i) => 0.02 * (i + 1)), 0.9, 0.9];
    const y = Float64Array.from(py.map((v, i) => (i === 3 || i >= 17 ? 1 : 0)));
    const p = Float64Array.from(py.flatMap((v) => [1 - v, v]));
    const [cal] = (await CALIBRATION.compute(context('classification', p, y, ['no', 'yes']))) ?? [];
    expect(cal.bins.map((b) => b.count)).toEqual(Array.from({ length: 10 }, () => 2));
    expect(cal.bins.map((b) => [b.lower, b.upper])).toEqual([
      ...Array.from({ length: 9 }, (_, b) => [py[2 * b], py[2 * b + 1]]),
      [0.9, 0.9],
    ]);
    expect(cal.bins.map((b) => b.observed)).toEqual([0, 0.5, 0, 0, 0, 0, 0, 0, 0.5, 1]);
    cal.bins.forEach((b, j) => expect(b.meanPredicted).toBeCloseTo((py[2 * j] + py[2 * j + 1]) / 2, 12));
    expect(cal.brier).toBeCloseTo(py.reduce((s, v, i) => s + (v - y[i]) ** 2, 0) / 20, 12);
    const gaps = cal.bins.map((b) => b.count * Math.abs(b.observed - b.meanPredicted));
    expect(cal.ece).toBeCloseTo(gaps.reduce((a, b) => a + b, 0) / 20, 12);
    expect(calibrationErrors(py, y).ece).toBeCloseTo(cal.ece, 12);
  });
});

describe('Confusion Matrix', () => {
  it('counts true x predicted classes (highest probability) with sensitivity and precision', async () => {
    const p = Float64Array.from([0.8, 0.2, 0.6, 0.4, 0.3, 0.7, 0.1, 0.9, 0.45, 0.55]);
    const y = Float64Array.from([0, 0, 1, 1, 0]);
    const cm = await CONFUSION_MATRIX.compute(context('classification', p, y, ['no', 'yes']));
    expect(cm?.counts).toEqual([
      [2, 1],
      [0, 2],
    ]);
    expect(cm?.perClass.map((c) => [c.class, c.count, c.sensitivity, c.precision])).toEqual([
      ['no', 3, 2 / 3, 1],
      ['yes', 2, 1, 2 / 3],
    ]);
  });
});

describe('Probabilities', () => {
  it('summarizes the probability of every class among the samples of each true class', async () => {
    const p = Float64Array.from([0.8, 0.2, 0.6, 0.4, 0.3, 0.7, 0.1, 0.9, 0.45, 0.55]);
    const y = Float64Array.from([0, 0, 1, 1, 0]);
    const probs = (await PROBABILITIES.compute(context('classification', p, y, ['no', 'yes']))) ?? [];
    expect(probs.map((t) => [t.trueClass, t.count])).toEqual([
      ['no', 3],
      ['yes', 2],
    ]);
    expect(probs[0].probabilities[1]).toMatchObject({ class: 'yes', min: 0.2, median: 0.4, max: 0.55, values: [0.2, 0.4, 0.55] });
    expect(probs[0].probabilities[1].mean).toBeCloseTo((0.2 + 0.4 + 0.55) / 3, 12);
  });
});

describe('Predicted vs Actual', () => {
  it('gives the pairs, the least-squares line of actual on predicted and R squared around the identity', async () => {
    const predicted = Float64Array.from([1, 2, 3, 4, 5, 6]);
    const actual = Float64Array.from([2, 4, 6, 8, 10, 12]);
    const pva = await PREDICTED_VS_ACTUAL.compute(context('regression', predicted, actual));
    expect(pva?.points).toHaveLength(6);
    expect(pva?.points[2]).toEqual({ actual: 6, predicted: 3 });
    expect(pva?.slope).toBeCloseTo(2, 12);
    expect(pva?.intercept).toBeCloseTo(0, 12);
    const sse = predicted.reduce((s, v, i) => s + (actual[i] - v) ** 2, 0);
    expect(pva?.rSquared).toBeCloseTo(1 - sse / 70, 12);
    expect(pva?.meanError).toBeCloseTo(-3.5, 12);
  });
});

describe('Kaplan-Meier by Risk Group', () => {
  it('gives the Kaplan-Meier curve of each third of the risks and the log-rank test', async () => {
    const rng = new Rng(3);
    const n = 90;
    const risk = Float64Array.from({ length: n }, () => rng.next());
    const time = Float64Array.from(risk, (r) => Math.round(100 * (1 - r) * rng.next() + 1));
    const event = Float64Array.from({ length: n }, (_, i) => (i % 4 === 0 ? 0 : 1));
    const plot = await KAPLAN_MEIER_BY_RISK_GROUP.compute(context('survival', risk, time, [], event));
    const thirds = riskThirds(risk);
    expect(plot?.groups.map((g) => [g.group, g.count])).toEqual([
      ['low', 30],
      ['middle', 30],
      ['high', 30],
    ]);
    plot?.groups.forEach((g, k) => {
      const rows = Array.from(thirds.keys()).filter((i) => thirds[i] === k);
      expect(g.curve).toEqual(kaplanMeier(time, event, rows));
      expect(g.events).toBe(rows.filter((i) => event[i] === 1).length);
      expect(g.riskRange).toEqual([Math.min(...rows.map((i) => risk[i])), Math.max(...rows.map((i) => risk[i]))]);
    });
    // the risk separates the times here: the high third dies first
    expect(plot?.logRank.pValue).toBeLessThan(0.001);
    expect(plot?.logRank.df).toBe(2);
  });
});
