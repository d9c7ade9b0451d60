import { BATCH_LANES, sortedOrder } from './auc';
import {
  auc,
  computeMetrics,
  concordanceIndex,
  makeEvaluator,
  makeBatchEvaluator,
  AUC,
  MEAN_AUC,
  BALANCED_ACCURACY,
  R_SQUARED,
  MAE,
  RMSE,
  SENSITIVITY,
  SPECIFICITY,
} from './metrics';

describe('metrics', () => {
  it('AUC counts ties as half (Mann-Whitney)', () => {
    // positives 0.8, 0.4, 0.4; negatives 0.4, 0.2
    // pairs: (0.8>0.4)1 (0.8>0.2)1 (0.4=0.4).5 (0.4>0.2)1 (0.4=0.4).5 (0.4>0.2)1 => 5/6
    expect(auc([0.8, 0.4, 0.4, 0.4, 0.2], [1, 1, 1, 0, 0])).toBeCloseTo(5 / 6, 12);
    expect(auc([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 1])).toBe(1);
    expect(auc([0.5, 0.5, 0.5], [0, 1, 1])).toBe(0.5);
  });

  it("Harrell's C handles censoring and ties", () => {
    // times 1(event) 2(censored) 3(event) 4(event) 3(censored)
    const time = [1, 2, 3, 4, 3];
    const event = [1, 0, 1, 1, 0];
    const risk = [5, 1, 3, 3, 2];
    // comparable pairs (i event earlier): i=0 vs 1,2,3,4 -> risk 5 > all: 4 concordant
    // i=2 (t=3 event) vs 3 (t=4): risk 3 = 3 -> 0.5 ; vs 4 (t=3 censored, same time) comparable: 3 > 2 -> 1
    // i=3 (t=4): nobody later. total = 4 + 0.5 + 1 = 5.5 of 6
    expect(concordanceIndex(risk, time, event)).toBeCloseTo(5.5 / 6, 12);
    // two events at the same time are not comparable
    expect(concordanceIndex([1, 2, 0], [1, 1, 2], [1, 1, 0])).toBe(1);
  });

  it('weighted evaluation equals evaluation on the repeated rows', () => {
    const score = Float64Array.from([0.1, 0.9, 0.4, 0.35, 0.8, 0.5]);
    const y = Float64Array.from([0, 1, 0, 1, 1, 0]);
    const pred = new Float64Array(12);
    score.forEach((s, i) => {
      pred[2 * i] = 1 - s;
      pred[2 * i + 1] = s;
    });
    const w = Float64Array.from([2, 1, 0, 3, 1, 1]);
    const weighted = makeEvaluator(AUC, pred, { y }, 2)(w);
    const rows = Array.from(w).flatMap((k, i) => Array<number>(k).fill(i));
    expect(weighted).toBeCloseTo(
      auc(
        rows.map((i) => score[i]),
        rows.map((i) => y[i]),
      ),
      12,
    );
  });

  it('weighted AUC equals the weighted count of ordered pairs exactly, with and without tied scores', () => {
    // bootstrap weights are counts: every sum is an integer or a half, so the evaluator's value is exact
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    // sizes that leave 0 to 3 samples after the last whole quarter of the fast path
    for (const [ties, n] of [
      [false, 300],
      [false, 301],
      [false, 303],
      [true, 302],
    ] as const) {
      const score = Float64Array.from({ length: n }, () => (ties ? Math.floor(next() * 20) / 20 : next()));
      const y = Float64Array.from({ length: n }, (_, i) => (next() < 0.3 + 0.4 * score[i] ? 1 : 0));
      const pred = Float64Array.from(Array.from(score).flatMap((s) => [1 - s, s]));
      const evaluate = makeEvaluator(AUC, pred, { y }, 2);
      for (let b = 0; b < 5; b++) {
        const w = Float64Array.from({ length: n }, () => Math.floor(next() * 3));
        let num = 0;
        let pairs = 0;
        for (let i = 0; i < n; i++)
          for (let j = 0; j < n; j++)
            if (y[i] === 1 && y[j] === 0) {
              pairs += w[i] * w[j];
              num += w[i] * w[j] * (score[i] > score[j] ? 1 : score[i] === score[j] ? 0.5 : 0);
            }
        expect(evaluate(w)).toBe(num / pairs);
      }
    }
  });

  it('regression metrics', () => {
    const y = Float64Array.from([1, 2, 3, 4]);
    const pred = Float64Array.from([1.5, 2, 2.5, 4]);
    const m = computeMetrics('regression', pred, { y }, 0);
    expect(m[R_SQUARED]).toBeCloseTo(1 - 0.5 / 5, 12);
    expect(m[MAE]).toBeCloseTo(0.25, 12);
    expect(m[RMSE]).toBeCloseTo(Math.sqrt(0.125), 12);
  });

  it('binary classification metrics use the second class as positive', () => {
    const y = Float64Array.from([0, 0, 1, 1, 1]);
    const p1 = [0.2, 0.7, 0.9, 0.6, 0.3];
    const pred = Float64Array.from(p1.flatMap((p) => [1 - p, p]));
    const m = computeMetrics('classification', pred, { y }, 2);
    expect(m.Accuracy).toBeCloseTo(3 / 5, 12);
    expect(m.Sensitivity).toBeCloseTo(2 / 3, 12);
    expect(m.Specificity).toBeCloseTo(1 / 2, 12);
    expect(m['Balanced Accuracy']).toBeCloseTo((2 / 3 + 1 / 2) / 2, 12);
    expect(m['F1 Score']).toBeCloseTo((2 * 2) / (2 * 2 + 1 + 1), 12);
    expect(m['Area Under the ROC Curve']).toBeCloseTo(4 / 6, 12);
  });

  it('Balanced Accuracy is the mean of the per-class recalls, undefined when a class is absent (as Sensitivity or Specificity)', () => {
    // an imbalanced outcome: 5 negatives, one positive, always predicted negative
    const y = Float64Array.from([0, 0, 0, 0, 0, 1]);
    const pred = Float64Array.from([0.1, 0.2, 0.1, 0.3, 0.2, 0.4].flatMap((p) => [1 - p, p]));
    const at = (name: string, w: number[]) => makeEvaluator(name, pred, { y }, 2)(Float64Array.from(w));
    const all = [1, 1, 1, 1, 1, 1];
    expect(at(BALANCED_ACCURACY, all)).toBeCloseTo((at(SENSITIVITY, all) + at(SPECIFICITY, all)) / 2, 12);
    expect(at(BALANCED_ACCURACY, all)).toBeCloseTo(0.5, 12);
    // a resample without the positive (a bootstrap's out-of-bag samples): no Sensitivity, and no Balanced Accuracy
    // either (it was 1, the negatives' recall, and lifted the estimate to 0.83 beside Sensitivity 0)
    const negativesOnly = [1, 2, 0, 1, 1, 0];
    expect(at(SENSITIVITY, negativesOnly)).toBeNaN();
    expect(at(BALANCED_ACCURACY, negativesOnly)).toBeNaN();
    // three classes, one absent: the mean of the two present
    const y3 = Float64Array.from([0, 1, 2, 2]);
    const pred3 = Float64Array.from([1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1]);
    expect(makeEvaluator(BALANCED_ACCURACY, pred3, { y: y3 }, 3)(Float64Array.from([1, 1, 0, 0]))).toBeCloseTo(0.5, 12);
  });
});

describe('batch evaluators', () => {
  it("give each bootstrap of a batch the Evaluator's value to the bit: AUC and mean AUC, ties or none, a class absent", () => {
    let seed = 11;
    const next = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const n = 120;
    const y2 = Float64Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 1 : 0));
    const y4 = Float64Array.from({ length: n }, (_, i) => i % 4);
    const binary = (ties: boolean): Float64Array =>
      Float64Array.from({ length: 2 * n }, (_, k) => {
        const q = ties ? Math.round(next() * 5) / 5 : next();
        return k % 2 ? q : 1 - q;
      });
    const four = Float64Array.from({ length: 4 * n }, () => Math.round(next() * 7) / 7);
    const cases = [
      { name: AUC, pred: binary(false), y: y2, K: 2 },
      { name: AUC, pred: binary(true), y: y2, K: 2 },
      { name: MEAN_AUC, pred: four, y: y4, K: 4 },
    ];
    for (const { name, pred, y, K } of cases) {
      const one = makeEvaluator(name, pred, { y }, K);
      const batch = makeBatchEvaluator(name, pred, { y }, K);
      for (const count of [1, 3, 4, 9]) {
        const stride = Math.ceil(count / BATCH_LANES) * BATCH_LANES;
        const weights = Array.from({ length: count }, (_, b) => {
          const w = new Float64Array(n);
          for (let k = 0; k < n; k++) w[Math.floor(next() * n)]++;
          // the first bootstrap holds no sample of the second class: that class's AUC is undefined
          if (b === 0) for (let i = 0; i < n; i++) if (y[i] === 1) w[i] = 0;
          return w;
        });
        const W = new Float64Array(n * stride);
        weights.forEach((w, b) => w.forEach((v, i) => (W[i * stride + b] = v)));
        const out = new Float64Array(count);
        batch(W, stride, count, out);
        weights.forEach((w, b) => expect(Object.is(out[b], one(w))).toBe(true));
        expect(name === AUC ? Number.isNaN(out[0]) : Number.isFinite(out[0])).toBe(true);
      }
    }
  });
});

describe('sortedOrder', () => {
  it('orders by ascending score, ties (-0 and 0 among them) by index, as a comparison sort does, NaN included', () => {
    let seed = 11;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const bySort = (s: Float64Array): number[] => Array.from(s.keys()).sort((a, b) => s[a] - s[b] || a - b);
    const cases = [
      new Float64Array(0),
      Float64Array.from([0.5]),
      Float64Array.from({ length: 500 }, () => next()),
      Float64Array.from({ length: 500 }, () => Math.floor(next() * 7) - 3),
      Float64Array.from([0, -0, 1e-300, -1e-300, 0, -0, Infinity, -Infinity, 2, 2, -0]),
    ];
    for (const s of cases) expect(Array.from(sortedOrder(s))).toEqual(bySort(s));
    const withNaN = Float64Array.from([3, NaN, 1, 2]);
    expect(Array.from(sortedOrder(withNaN))).toEqual(
      Array.from(Int32Array.from([0, 1, 2, 3]).sort((a, b) => withNaN[a] - withNaN[b] || a - b)),
    );
  });
});
