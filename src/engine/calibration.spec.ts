import { loadShared, parameters } from '../../bench/engine-datasets';
import { applyCalibration, calibrationReport, crossFitCalibration, fitCalibration, fitPlatt } from './calibration';
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
    expect(cal.a).toHaveLength(3);
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

describe('calibration in an analysis', () => {
  it('breast_cancer: a poorly calibrated winner gets Platt scaling, and its held-out probabilities are better calibrated', async () => {
    const data = loadShared('breast_cancer');
    const rng = new Rng(9);
    const order = Array.from({ length: data.sampleCount }, (_, i) => i).sort(() => rng.next() - 0.5);
    const train = subsetDataset(data, order.slice(0, 400));
    const test = subsetDataset(data, order.slice(400));
    const result = await runAnalysis(train, parameters({ classification: 'diagnosis' }, 'preliminary'), { seed: 3, threads: 0 });
    const calibrated = Object.keys(result.models).filter((k) => result.models[k].calibration?.method === 'platt');
    expect(calibrated.length).toBeGreaterThan(0);
    for (const key of calibrated) {
      const facts = result.models[key].calibration;
      expect(facts?.ece).toBeLessThan(facts?.uncalibrated?.ece as number);
      const pipeline = result.pipelines[key][0];
      expect(pipeline.calibration?.method).toBe('platt');
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
