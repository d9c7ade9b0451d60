import { loadShared, parameters } from '../../bench/engine-datasets';
import {
  applyCalibration,
  calibrationErrors,
  chooseCalibration,
  crossFitCalibration,
  equalCountBins,
  fitCalibration,
  floorProbabilities,
  probabilityFloor,
  probabilityScores,
} from './calibration';
import { calibrationTargets, fitPlatt, fitTemperature, MAX_SCALE } from './calibration-fit';
import { subsetDataset } from '../../bench/csv-dataset';
import { computeMetrics } from './metrics';
import { Pipeline } from './pipeline';
import { runAnalysis } from './protocol';
import { Rng } from './rng';
import type { SavedPipeline } from './types';

jest.setTimeout(120_000);

/** n samples whose true probability of class 1 is sigmoid(2 z - 1), and overconfident scores sigmoid(6 z - 3). */
function overconfident(n: number, seed: number): { p: Float64Array; y: Float64Array; z: Float64Array } {
  const rng = new Rng(seed);
  const z = Float64Array.from({ length: n }, () => 4 * rng.next() - 2);
  const y = Float64Array.from(z, (v) => (rng.next() < 1 / (1 + Math.exp(-(2 * v - 1))) ? 1 : 0));
  const p = new Float64Array(2 * n);
  z.forEach((v, i) => {
    const q = 1 / (1 + Math.exp(-(6 * v - 3)));
    p[2 * i] = 1 - q;
    p[2 * i + 1] = q;
  });
  return { p, y, z };
}

/**
 * n samples of K classes whose true probabilities are softmax(s) for random scores s, with overconfident probabilities
 * softmax(3 s): temperature scaling should find T = 3.
 */
function overconfidentClasses(n: number, K: number, seed: number): { p: Float64Array; y: Float64Array } {
  const rng = new Rng(seed);
  const p = new Float64Array(n * K);
  const y = new Float64Array(n);
  const softmax = (s: number[]): number[] => {
    const m = Math.max(...s);
    const e = s.map((v) => Math.exp(v - m));
    const t = e.reduce((a, b) => a + b, 0);
    return e.map((v) => v / t);
  };
  for (let i = 0; i < n; i++) {
    const s = Array.from({ length: K }, () => 3 * rng.next());
    const truth = softmax(s);
    let u = rng.next();
    let c = 0;
    while (c < K - 1 && u > truth[c]) u -= truth[c++];
    y[i] = c;
    softmax(s.map((v) => 3 * v)).forEach((v, k) => (p[i * K + k] = v));
  }
  return { p, y };
}

const everyRow = (n: number): Int32Array => Int32Array.from({ length: n }, (_, i) => i);

describe('Platt scaling (two classes)', () => {
  it('recovers the map from overconfident scores to the true probabilities (logit 6z - 3 to 2z - 1: a = 1/3, b = 0)', () => {
    const { p, y } = overconfident(20000, 1);
    const x = Float64Array.from({ length: 20000 }, (_, i) => Math.log(p[2 * i + 1] / p[2 * i]));
    const [a, b] = fitPlatt(x, y, everyRow(20000));
    expect(a).toBeCloseTo(1 / 3, 1);
    expect(b).toBeCloseTo(0, 1);
    const cal = fitCalibration(p, y, 2);
    expect(cal?.method).toBe('platt');
    const q = Float64Array.from(p);
    applyCalibration(cal as NonNullable<typeof cal>, q, 2);
    const before = probabilityScores(p, y, 2);
    const after = probabilityScores(q, y, 2);
    expect(after.logLoss).toBeLessThan(before.logLoss);
    expect(after.brier).toBeLessThan(before.brier);
    expect(after.ece).toBeLessThan(before.ece / 3);
  });

  it('is strictly increasing: the AUC of calibrated probabilities is the uncalibrated one on any rows', () => {
    const { p, y } = overconfident(500, 4);
    const cal = fitCalibration(p, y, 2);
    const q = Float64Array.from(p);
    applyCalibration(cal as NonNullable<typeof cal>, q, 2);
    for (const rows of [everyRow(500), everyRow(120), Int32Array.from({ length: 90 }, (_, i) => 3 * i + 7)]) {
      const pick = (a: Float64Array): Float64Array => Float64Array.from(Array.from(rows).flatMap((i) => [a[2 * i], a[2 * i + 1]]));
      const yy = Float64Array.from(rows, (i) => y[i]);
      const auc = (a: Float64Array): number => computeMetrics('classification', pick(a), { y: yy }, 2)['Area Under the ROC Curve'];
      expect(Math.abs(auc(q) - auc(p))).toBeLessThan(1e-12);
    }
  });

  it("fits Platt's targets, not the bare outcomes: perfectly separated scores of 50 + 50 samples sharpen until each gets 51 / 52", () => {
    const separated = (perClass: number): { p: Float64Array; y: Float64Array } => ({
      p: Float64Array.from({ length: 4 * perClass }, (_, k) => (k % 2 ? (k < 2 * perClass ? 0.3 : 0.7) : k < 2 * perClass ? 0.7 : 0.3)),
      y: Float64Array.from({ length: 2 * perClass }, (_, i) => (i < perClass ? 0 : 1)),
    });
    const { p, y } = separated(50);
    expect(calibrationTargets(y, 2, everyRow(100))[0]).toBe(51 / 52);
    const cal = fitCalibration(p, y, 2);
    const [a, b] = cal?.method === 'platt' ? [cal.a[0], cal.b[0]] : [NaN, NaN];
    // sigmoid(a logit(0.7)) = 51 / 52: a = log(51) / logit(0.7) (to the fit's tiny ridge)
    expect(a).toBeCloseTo(Math.log(51) / Math.log(0.7 / 0.3), 4);
    expect(Math.abs(b)).toBeLessThan(1e-6);
    // the same samples pooled from 4 repeats of a cross-validation are still 50 per class
    const pooled = fitCalibration(
      Float64Array.from({ length: 800 }, (_, k) => p[k % 200]),
      Float64Array.from({ length: 400 }, (_, i) => y[i % 100]),
      2,
      undefined,
      4,
    );
    expect(pooled?.method === 'platt' ? pooled.a[0] : NaN).toBeCloseTo(a, 4);
    // three classes, 10 samples each, 0.5 on its own class: softmax(log p / T) puts 11 / 12 on it at 1 / T = log2(22)
    const three = Float64Array.from({ length: 90 }, (_, k) => (k % 3 === Math.floor(k / 30) ? 0.5 : 0.25));
    const t = fitCalibration(
      three,
      Float64Array.from({ length: 30 }, (_, i) => Math.floor(i / 10)),
      3,
    );
    expect(t?.method === 'temperature' ? t.temperature : NaN).toBeCloseTo(1 / Math.log2(22), 6);
  });

  it('sharpens at most MAX_SCALE times: on 500 + 500 perfectly separated scores the slope stops at 5', () => {
    const p = Float64Array.from({ length: 2000 }, (_, k) => (k % 2 ? (k < 1000 ? 0.3 : 0.7) : k < 1000 ? 0.7 : 0.3));
    const y = Float64Array.from({ length: 1000 }, (_, i) => (i < 500 ? 0 : 1));
    const cal = fitCalibration(p, y, 2);
    expect(cal?.method === 'platt' ? [cal.a[0], Math.abs(cal.b[0]) < 1e-6] : []).toEqual([MAX_SCALE, true]);
    const three = Float64Array.from({ length: 4500 }, (_, k) => (k % 3 === Math.floor(k / 1500) ? 0.5 : 0.25));
    const t = fitCalibration(
      three,
      Float64Array.from({ length: 1500 }, (_, i) => Math.floor(i / 500)),
      3,
    );
    expect(t?.method).toBe('temperature');
    expect(t?.method === 'temperature' ? t.temperature : NaN).toBeCloseTo(1 / MAX_SCALE, 9);
  });

  it('refuses a map that is not increasing: scores that rank the classes backwards', () => {
    const { p, y } = overconfident(400, 6);
    expect(
      fitCalibration(
        p,
        Float64Array.from(y, (v) => 1 - v),
        2,
      ),
    ).toBeUndefined();
  });
});

describe('temperature scaling (more classes)', () => {
  it('recovers T = 3 from probabilities three times too sharp, and keeps every predicted class', () => {
    const { p, y } = overconfidentClasses(20000, 4, 7);
    const logp = Float64Array.from(p, Math.log);
    expect(fitTemperature(logp, y, 4, everyRow(20000))).toBeCloseTo(3, 1);
    const cal = fitCalibration(p, y, 4);
    expect(cal?.method).toBe('temperature');
    const q = Float64Array.from(p);
    applyCalibration(cal as NonNullable<typeof cal>, q, 4);
    const argmax = (a: Float64Array, i: number): number => [0, 1, 2, 3].reduce((b, c) => (a[i * 4 + c] > a[i * 4 + b] ? c : b), 0);
    for (let i = 0; i < 20000; i++) {
      expect(q[i * 4] + q[i * 4 + 1] + q[i * 4 + 2] + q[i * 4 + 3]).toBeCloseTo(1, 12);
      expect(argmax(q, i)).toBe(argmax(p, i));
    }
    expect(probabilityScores(q, y, 4).logLoss).toBeLessThan(probabilityScores(p, y, 4).logLoss);
  });
});

describe('the probability floor', () => {
  it('keeps every probability at least 1 / (2n) from 0 and 1, sums at 1, and changes no order', () => {
    const floor = probabilityFloor(50);
    expect(floor).toBe(0.01);
    const p = Float64Array.from([1, 0, 0, 0.2, 0.5, 0.3, 0, 1, 0]);
    const before = Float64Array.from(p);
    floorProbabilities(p, 3, floor);
    for (let i = 0; i < 3; i++) expect(p[3 * i] + p[3 * i + 1] + p[3 * i + 2]).toBeCloseTo(1, 14);
    expect(Math.min(...p)).toBe(0.01);
    expect(Math.max(...p)).toBeCloseTo(0.98, 14);
    for (let a = 0; a < 9; a++) for (let b = 0; b < 9; b++) expect(Math.sign(p[a] - p[b])).toBe(Math.sign(before[a] - before[b]));
  });
});

describe('cross-fitting and the decision', () => {
  it('calibrates each fold with a map that never saw its outcomes', () => {
    const { p, y } = overconfident(400, 3);
    const fold = Int32Array.from({ length: 400 }, (_, i) => i % 5);
    const a = crossFitCalibration(p, y, 2, fold) as Float64Array;
    // other outcomes in fold 0 change the calibrated predictions of folds 1-4 only
    const y2 = Float64Array.from(y, (v, i) => (fold[i] === 0 ? 1 - v : v));
    const b = crossFitCalibration(p, y2, 2, fold) as Float64Array;
    for (let i = 0; i < 400; i++) {
      if (fold[i] === 0) expect(b[2 * i + 1]).toBe(a[2 * i + 1]);
      else expect(b[2 * i + 1]).not.toBe(a[2 * i + 1]);
    }
  });

  it('keeps a map only when it lowers both the cross-fitted log loss and Brier score', () => {
    const fold = [Int32Array.from({ length: 2000 }, (_, i) => i % 10)];
    const floor = probabilityFloor(2000);
    const { p, y } = overconfident(2000, 8);
    floorProbabilities(p, 2, floor);
    const sharp = chooseCalibration([p], y, 2, fold, floor);
    expect(sharp.map?.method).toBe('platt');
    expect(sharp.crossFitted?.logLoss).toBeLessThan(sharp.before.logLoss);
    expect(sharp.crossFitted?.brier).toBeLessThan(sharp.before.brier);
    // probabilities that are already calibrated (the true ones): a map rarely improves both, by chance, and then barely
    // moves them (|a - 1|, |b| small)
    let kept = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const rng = new Rng(seed);
      const z = Float64Array.from({ length: 2000 }, () => 4 * rng.next() - 2);
      const truth = Float64Array.from(z, (v) => 1 / (1 + Math.exp(-(2 * v - 1))));
      const yt = Float64Array.from(truth, (q) => (rng.next() < q ? 1 : 0));
      const pt = Float64Array.from({ length: 4000 }, (_, k) => (k % 2 ? truth[k >> 1] : 1 - truth[k >> 1]));
      const { map } = chooseCalibration([pt], yt, 2, fold, floor);
      if (!map || map.method !== 'platt') continue;
      kept++;
      expect(Math.abs(map.a[0] - 1)).toBeLessThan(0.2);
      expect(Math.abs(map.b[0])).toBeLessThan(0.2);
    }
    expect(kept).toBeLessThanOrEqual(5);
  });
});

describe('bins of equal count', () => {
  it('gives each of 10 bins a tenth of the samples, ties in one bin', () => {
    const p = Float64Array.from({ length: 100 }, (_, i) => (i * 37) % 100);
    const bins = equalCountBins(p);
    for (let b = 0; b < 10; b++) expect(bins.filter((v) => v === b).length).toBe(10);
    const tied = equalCountBins(Float64Array.from([0.1, 0.1, 0.1, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]));
    expect(new Set(Array.from(tied.subarray(0, 4))).size).toBe(1);
  });

  it('computes the calibration error on them: a bin of two samples weighs two samples', () => {
    // 98 samples at 0.02 (2 of the class), 2 at 0.5 (both of it): the equal-count bins see 0.02 against 0.02 in 9 bins
    const p = Float64Array.from({ length: 100 }, (_, i) => (i < 98 ? 0.02 : 0.5));
    const y = Float64Array.from({ length: 100 }, (_, i) => (i < 2 || i >= 98 ? 1 : 0));
    const { ece } = calibrationErrors(p, y);
    expect(ece).toBeCloseTo((Math.abs(2 - 98 * 0.02) + Math.abs(2 - 1)) / 100, 12);
  });
});

describe('pipelines of engine 0.2', () => {
  it('still apply their isotonic maps (and no floor) exactly as they were fitted', () => {
    const p = Float64Array.from([0.05, 0.15, 0.25, 0.35, 0.7].flatMap((q) => [1 - q, q]));
    applyCalibration({ method: 'isotonic', x: [[0.1, 0.2, 0.3, 0.4, 0.6]], y: [[0, 0.5, 0.5, 0.75, 0.75]] }, p, 2);
    [0, 0.25, 0.5, 0.625, 0.75].forEach((q, i) => expect(p[2 * i + 1]).toBeCloseTo(q, 12));
  });
});

describe('calibration in an analysis', () => {
  it('breast_cancer: no probability of 0 or 1, the held-out AUC of the calibrated model is the uncalibrated one', async () => {
    const data = loadShared('breast_cancer');
    const rng = new Rng(9);
    const order = Array.from({ length: data.sampleCount }, (_, i) => i).sort(() => rng.next() - 0.5);
    const train = subsetDataset(data, order.slice(0, 400));
    const test = subsetDataset(data, order.slice(400));
    const result = await runAnalysis(train, parameters({ classification: 'diagnosis' }, 'preliminary'), { seed: 3, threads: 0 });
    const labels = test.columns.find((c) => c.name === 'diagnosis') as { codes: Int32Array; levels: string[] };
    const y = Float64Array.from(labels.codes, (c) => (labels.levels[c] === 'malignant' ? 1 : 0));
    const auc = (saved: SavedPipeline): number =>
      computeMetrics(
        'classification',
        Float64Array.from(
          Pipeline.fromJSON(saved)
            .predict(test)
            .flatMap((r) => [r.probabilities?.benign as number, r.probabilities?.malignant as number]),
        ),
        { y },
        2,
      )['Area Under the ROC Curve'];
    for (const key of Object.keys(result.models)) {
      const pipeline = result.pipelines[key][0];
      expect(pipeline.probabilityFloor).toBe(1 / 800);
      const probabilities = Pipeline.fromJSON(pipeline)
        .predict(test)
        .flatMap((r) => Object.values(r.probabilities as Record<string, number>));
      expect(Math.min(...probabilities)).toBeGreaterThanOrEqual(1 / 800);
      expect(Math.max(...probabilities)).toBeLessThanOrEqual(1 - 1 / 800);
      const oof = result.outOfFold[key].values;
      expect(Math.min(...oof)).toBeGreaterThan(0);
      expect(Math.max(...oof)).toBeLessThan(1);
      const facts = result.models[key].calibration;
      if (facts?.method) {
        expect(pipeline.calibration?.method).toBe('platt');
        expect(facts.logLoss).toBeLessThan(facts.uncalibrated?.logLoss as number);
        const { calibration: _, ...raw } = pipeline;
        expect(Math.abs(auc(pipeline) - auc(raw))).toBeLessThan(1e-12);
      }
    }
  });
});
