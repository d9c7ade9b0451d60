import { loadShared, parameters } from '../../bench/engine-datasets';
import { applyCalibration, calibrationReport, crossFitCalibration, fitCalibration, fitIsotonic, fitPlatt } from './calibration';
import { subsetDataset } from '../../bench/csv-dataset';
import { Pipeline } from './pipeline';
import { calibrationErrors } from './plots/calibration';
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

describe('Platt scaling', () => {
  it('recovers the map from overconfident scores to the true probabilities (logit 6z - 3 to 2z - 1: a = 1/3, b = 0)', () => {
    const { p, y } = overconfident(20000, 1);
    const x = Float64Array.from({ length: 20000 }, (_, i) => Math.log(p[2 * i + 1] / p[2 * i]));
    const [a, b] = fitPlatt(
      x,
      y,
      Int32Array.from({ length: 20000 }, (_, i) => i),
    );
    expect(a).toBeCloseTo(1 / 3, 1);
    expect(b).toBeCloseTo(0, 1);
    const cal = fitCalibration(p, y, 2);
    const q = Float64Array.from(p);
    applyCalibration(cal, q, 2);
    const before = calibrationReport(p, y, 2);
    const after = calibrationReport(q, y, 2);
    expect(after.ece).toBeLessThan(before.ece / 3);
    expect(after.brier).toBeLessThan(before.brier);
    // binary: the positive class's Brier score and calibration error
    expect(before.ece).toBeCloseTo(
      calibrationErrors(
        Float64Array.from({ length: 20000 }, (_, i) => p[2 * i + 1]),
        y,
      ).ece,
      12,
    );
  });

  it('calibrates more classes one-vs-rest, renormalized', () => {
    const rng = new Rng(2);
    const n = 300;
    const y = Float64Array.from({ length: n }, (_, i) => i % 3);
    const p = new Float64Array(n * 3);
    for (let i = 0; i < n; i++) {
      const raw = [0, 1, 2].map((c) => rng.next() + (c === y[i] ? 1 : 0));
      const s = raw.reduce((a, b) => a + b, 0);
      raw.forEach((v, c) => (p[i * 3 + c] = v / s));
    }
    const cal = fitCalibration(p, y, 3);
    expect(cal.method === 'platt' ? cal.a : []).toHaveLength(3);
    applyCalibration(cal, p, 3);
    for (let i = 0; i < n; i++) expect(p[i * 3] + p[i * 3 + 1] + p[i * 3 + 2]).toBeCloseTo(1, 12);
  });

  it('cross-fitting calibrates each fold with a map that never saw its outcomes', () => {
    const { p, y } = overconfident(400, 3);
    const fold = Int32Array.from({ length: 400 }, (_, i) => i % 5);
    const a = crossFitCalibration(p, y, 2, fold);
    // other outcomes in fold 0 change the calibrated predictions of folds 1-4 only
    const y2 = Float64Array.from(y, (v, i) => (fold[i] === 0 ? 1 - v : v));
    const b = crossFitCalibration(p, y2, 2, fold);
    for (let i = 0; i < 400; i++) {
      if (fold[i] === 0) expect(b[2 * i + 1]).toBe(a[2 * i + 1]);
      else expect(b[2 * i + 1]).not.toBe(a[2 * i + 1]);
    }
  });
});

describe('isotonic regression', () => {
  it("pools adjacent violators (equal scores first) into the map scikit-learn's IsotonicRegression interpolates", () => {
    // scores 0.1 ... 0.5 with outcomes 0 1 0 1 1, and 0.6 twice with 1 and 0: blocks {0.1}: 0, {0.2, 0.3}: 1/2,
    // {0.4, 0.5}: 1, then {0.6, 0.6}: 1/2 breaks the order and pools with {0.4, 0.5}: 3/4
    const x = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.6];
    const y = [0, 1, 0, 1, 1, 1, 0];
    const map = fitIsotonic(x, y, [6, 0, 5, 1, 4, 2, 3]);
    expect(map).toEqual({ x: [0.1, 0.2, 0.3, 0.4, 0.6], y: [0, 0.5, 0.5, 0.75, 0.75] });
    const cal = fitCalibration(Float64Array.from(x.flatMap((q) => [1 - q, q])), y, 2, undefined, 'isotonic');
    const p = Float64Array.from([0.05, 0.15, 0.25, 0.35, 0.7].flatMap((q) => [1 - q, q]));
    applyCalibration(cal, p, 2);
    // below the first score: its value; between two: linear; beyond the last: its value (scikit-learn 1.2's
    // IsotonicRegression(out_of_bounds="clip") gives the same points and predicts 0, 0.25, 0.5, 0.625, 0.75 here)
    [0, 0.25, 0.5, 0.625, 0.75].forEach((q, i) => {
      expect(p[2 * i + 1]).toBeCloseTo(q, 12);
      expect(p[2 * i]).toBeCloseTo(1 - q, 12);
    });
  });

  it('calibrates overconfident scores; more classes renormalized, 1 / K where every class maps to 0', () => {
    const { p, y } = overconfident(4000, 5);
    const q = Float64Array.from(p);
    applyCalibration(fitCalibration(p, y, 2, undefined, 'isotonic'), q, 2);
    expect(calibrationReport(q, y, 2).ece).toBeLessThan(calibrationReport(p, y, 2).ece / 3);
    // three classes: below every probability seen with its class, each class's map gives 0, and each class 1 / 3
    const three = Float64Array.from([0.8, 0.1, 0.1, 0.1, 0.8, 0.1, 0.1, 0.1, 0.8, 0.2, 0.2, 0.6]);
    const cal = fitCalibration(three, [0, 1, 2, 2], 3, undefined, 'isotonic');
    const r = Float64Array.from([0.8, 0.1, 0.1, 0.1, 0.1, 0.8, 0.05, 0.05, 0.05]);
    applyCalibration(cal, r, 3);
    for (let i = 0; i < 3; i++) expect(r[3 * i] + r[3 * i + 1] + r[3 * i + 2]).toBeCloseTo(1, 12);
    expect(Array.from(r.subarray(6))).toEqual([1 / 3, 1 / 3, 1 / 3]);
  });
});

describe('calibration in an analysis', () => {
  it('breast_cancer: a poorly calibrated winner is calibrated, and its held-out probabilities are better calibrated', async () => {
    const data = loadShared('breast_cancer');
    const rng = new Rng(9);
    const order = Array.from({ length: data.sampleCount }, (_, i) => i).sort(() => rng.next() - 0.5);
    const train = subsetDataset(data, order.slice(0, 400));
    const test = subsetDataset(data, order.slice(400));
    const result = await runAnalysis(train, parameters({ classification: 'diagnosis' }, 'preliminary'), { seed: 3, threads: 0 });
    const calibrated = Object.keys(result.models).filter((k) => result.models[k].calibration?.method !== undefined);
    expect(calibrated.length).toBeGreaterThan(0);
    for (const key of calibrated) {
      const facts = result.models[key].calibration;
      expect(facts?.ece).toBeLessThan(facts?.uncalibrated?.ece as number);
      const pipeline = result.pipelines[key][0];
      expect(pipeline.calibration?.method).toBe(facts?.method);
      const { calibration: _, ...raw } = pipeline;
      const labels = test.columns.find((c) => c.name === 'diagnosis') as { codes: Int32Array; levels: string[] };
      const y = Float64Array.from(labels.codes, (c) => (labels.levels[c] === 'malignant' ? 1 : 0));
      const ece = (saved: SavedPipeline): number =>
        calibrationErrors(
          Pipeline.fromJSON(saved)
            .predict(test)
            .map((r) => r.probabilities?.malignant as number),
          y,
        ).ece;
      expect(ece(pipeline)).toBeLessThan(ece(raw));
    }
  });
});
