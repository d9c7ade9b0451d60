import { calibrationErrors } from './plots/calibration';

/**
 * Probability calibration of classification models by Platt scaling: for each class (the positive class of a binary
 * outcome), p' = sigmoid(a logit(p) + b), fitted by maximum likelihood (Newton's method) on out-of-fold predictions;
 * for more classes the calibrated one-vs-rest probabilities are renormalized to sum to 1 (as scikit-learn's
 * CalibratedClassifierCV does with `method="sigmoid"`).
 */

/** The expected calibration error above which an analysis calibrates a model's probabilities. */
export const CALIBRATION_THRESHOLD = 0.03;

export interface PlattCalibration {
  method: 'platt';
  /** per class calibrated (binary: the positive class only) */
  a: number[];
  b: number[];
}

const EPS = 1e-12;
const logit = (p: number): number => {
  const q = Math.min(1 - EPS, Math.max(EPS, p));
  return Math.log(q / (1 - q));
};
const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/** Platt's a and b for scores x (logits) and 0/1 outcomes y on the given rows: Newton's method with step halving. */
export function fitPlatt(x: ArrayLike<number>, y: ArrayLike<number>, rows: ArrayLike<number>): [number, number] {
  // log-likelihood with a tiny ridge, which keeps a separable fold finite
  const loglik = (a: number, b: number): number => {
    let l = 0;
    for (let k = 0; k < rows.length; k++) {
      const i = rows[k];
      const z = a * x[i] + b;
      // log sigmoid(z) = -log(1 + e^-z), written stably
      l += y[i] ? -Math.log1p(Math.exp(-Math.abs(z))) + Math.min(0, z) : -Math.log1p(Math.exp(-Math.abs(z))) + Math.min(0, -z);
    }
    return l - 5e-7 * (a * a + b * b);
  };
  let a = 1;
  let b = 0;
  let current = loglik(a, b);
  for (let iter = 0; iter < 100; iter++) {
    let ga = -1e-6 * a;
    let gb = -1e-6 * b;
    let haa = 1e-6;
    let hab = 0;
    let hbb = 1e-6;
    for (let k = 0; k < rows.length; k++) {
      const i = rows[k];
      const p = sigmoid(a * x[i] + b);
      const r = y[i] - p;
      const w = p * (1 - p);
      ga += r * x[i];
      gb += r;
      haa += w * x[i] * x[i];
      hab += w * x[i];
      hbb += w;
    }
    const det = haa * hbb - hab * hab;
    if (!(det > 0)) break;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    let t = 1;
    let next = loglik(a + da, b + db);
    while (!(next >= current) && t > 1e-10) {
      t /= 2;
      next = loglik(a + t * da, b + t * db);
    }
    if (!(next >= current)) break;
    a += t * da;
    b += t * db;
    const gain = next - current;
    current = next;
    if (gain < 1e-12 * (1 + Math.abs(current))) break;
  }
  return [a, b];
}

/** The classes a calibration maps: the positive class of two, else every class. */
function calibratedClasses(K: number): number[] {
  return K === 2 ? [1] : Array.from({ length: K }, (_, c) => c);
}

/** Fits Platt scaling of n x K probabilities `p` to class indices `y`, on `rows` (default every sample). */
export function fitCalibration(p: ArrayLike<number>, y: ArrayLike<number>, K: number, rows?: ArrayLike<number>): PlattCalibration {
  const n = y.length;
  const on = rows ?? Int32Array.from({ length: n }, (_, i) => i);
  const a: number[] = [];
  const b: number[] = [];
  for (const c of calibratedClasses(K)) {
    const x = Float64Array.from({ length: n }, (_, i) => logit(p[i * K + c]));
    const t = Float64Array.from(y, (v) => (v === c ? 1 : 0));
    const [ac, bc] = fitPlatt(x, t, on);
    a.push(ac);
    b.push(bc);
  }
  return { method: 'platt', a, b };
}

/** Applies a calibration to the n x K probabilities `p` in place (rows `rows`, default every row). */
export function applyCalibration(cal: PlattCalibration, p: Float64Array, K: number, rows?: ArrayLike<number>): void {
  const n = p.length / K;
  const on = rows ?? Int32Array.from({ length: n }, (_, i) => i);
  for (let k = 0; k < on.length; k++) {
    const i = on[k];
    if (K === 2) {
      const q = sigmoid(cal.a[0] * logit(p[i * 2 + 1]) + cal.b[0]);
      p[i * 2] = 1 - q;
      p[i * 2 + 1] = q;
      continue;
    }
    let s = 0;
    for (let c = 0; c < K; c++) s += p[i * K + c] = sigmoid(cal.a[c] * logit(p[i * K + c]) + cal.b[c]);
    for (let c = 0; c < K; c++) p[i * K + c] /= s;
  }
}

/**
 * Cross-fitted calibration of out-of-fold predictions: the samples of each fold are calibrated by a map fitted on the
 * out-of-fold predictions of the other folds only, so the calibrated predictions are still out-of-sample.
 */
export function crossFitCalibration(p: Float64Array, y: ArrayLike<number>, K: number, fold: Int32Array): Float64Array {
  const out = Float64Array.from(p);
  const folds = fold.reduce((m, f) => Math.max(m, f + 1), 0);
  for (let f = 0; f < folds; f++) {
    const train = Int32Array.from(Array.from(fold.keys()).filter((i) => fold[i] !== f));
    const test = Int32Array.from(Array.from(fold.keys()).filter((i) => fold[i] === f));
    applyCalibration(fitCalibration(p, y, K, train), out, K, test);
  }
  return out;
}

export interface CalibrationReport {
  /**
   * Brier score of the out-of-fold probabilities: mean over samples of (p - 1{positive})^2 of the positive class
   * (binary), of the sum over classes of (p - 1{class})^2 (more classes)
   */
  brier: number;
  /** expected calibration error (10 bins): of the positive class (binary), the mean over classes one-vs-rest (more) */
  ece: number;
}

/** Brier score and expected calibration error of n x K probabilities. */
export function calibrationReport(p: ArrayLike<number>, y: ArrayLike<number>, K: number): CalibrationReport {
  const n = y.length;
  let brier = 0;
  for (let i = 0; i < n; i++) {
    if (K === 2) brier += (p[i * 2 + 1] - (y[i] === 1 ? 1 : 0)) ** 2;
    else for (let c = 0; c < K; c++) brier += (p[i * K + c] - (y[i] === c ? 1 : 0)) ** 2;
  }
  const eces = calibratedClasses(K).map(
    (c) =>
      calibrationErrors(
        Float64Array.from({ length: n }, (_, i) => p[i * K + c]),
        Float64Array.from(y, (v) => (v === c ? 1 : 0)),
      ).ece,
  );
  return { brier: brier / n, ece: eces.reduce((s, v) => s + v, 0) / eces.length };
}
