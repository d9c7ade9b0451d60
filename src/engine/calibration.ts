import { calibrationTargets, fitPlatt, fitTemperature, logit, sigmoid } from './calibration-fit';
import { computeMetrics, metricNames } from './metrics';

/**
 * Probability calibration of classification models, fitted on out-of-fold predictions, and the floor that keeps every
 * probability the engine gives away from 0 and 1.
 *
 * - Two classes: Platt scaling, p' = sigmoid(a logit(p) + b) of the positive class, fitted by maximum likelihood
 *   (Newton's method), kept only with a > 0: the map is strictly increasing, so it never changes the order of the
 *   samples (a calibrated AUC is the uncalibrated one, on any set of samples).
 * - More classes: temperature scaling, p'_c proportional to p_c^(1/T) (the softmax of log p / T), one T > 0 fitted by
 *   maximum likelihood: it keeps each sample's order of the classes (its predicted class) and moves every class's
 *   probabilities together, so the order of the samples within a class changes little.
 * - Both are fitted to Platt's targets (calibrationTargets), not to the bare 0/1 outcomes: a sample of a class with N
 *   samples among those the map is fitted on counts as (N + 1) / (N + 2) of its class and 1 / (N + 2) of the others
 *   (Platt 1999, section 2.2; scikit-learn's sigmoid calibration). Out-of-fold probabilities of a small dataset often
 *   make no mistake at all (wine: 124 samples, cross-validated log loss 0.017), and then the likelihood of the bare
 *   outcomes grows as the map sharpens without end: the map sharpened five times over (the bound) and the final
 *   model's held-out log loss on wine doubled (0.075 -> 0.187, 0.210 -> 0.379). The targets say what the out-of-fold
 *   probabilities can show: with N samples of a class and no mistake among them, about one in N + 2 of the next.
 * - The floor: with n the samples an analysis learned from and K classes, every probability given is
 *   floor + (1 - K floor) p with floor = 1 / (2n) (probabilityFloor): no outcome the model was taught by n samples is
 *   certain or impossible, by half a sample's worth. The map is affine and increasing, so it changes no ranking and no
 *   predicted class; it keeps the log loss of a confident mistake finite.
 *
 * Whether a model is calibrated is decided by proper scoring rules (chooseCalibration): a map is kept only when the
 * cross-fitted probabilities (each fold's calibrated by a map fitted on the other folds) have both a lower log loss and
 * a lower Brier score than the uncalibrated ones, and, for more classes, when the probabilities through it have a mean
 * one-vs-rest AUC at most 0.001 lower (MULTICLASS_AUC_TOLERANCE). The expected calibration error is reported, never
 * optimised: it rewards collapsing probabilities into a few values.
 */

export type CalibrationMethod = 'platt' | 'temperature';

export interface PlattCalibration {
  method: 'platt';
  /**
   * per class calibrated: the positive class of two (one entry). Results of engine 0.2 may hold one entry per class of
   * more (one-vs-rest, renormalised); they are applied as they were fitted.
   */
  a: number[];
  b: number[];
}

export interface TemperatureCalibration {
  method: 'temperature';
  /** T: the calibrated probabilities are the softmax of log(p) / T */
  temperature: number;
}

/**
 * Isotonic maps of results of engine 0.2 (a step function per class, interpolated between its points): no longer fitted
 * (they tie many probabilities, which lowers the AUC), still applied to the pipelines that hold one.
 */
export interface IsotonicCalibration {
  method: 'isotonic';
  x: number[][];
  y: number[][];
}

export type Calibration = PlattCalibration | TemperatureCalibration | IsotonicCalibration;

/** The floor of the probabilities of an analysis of n samples: 1 / (2n). */
export function probabilityFloor(n: number): number {
  return 1 / (2 * Math.max(1, n));
}

/** floor + (1 - K floor) p for each probability of the n x K probabilities `p` (rows `rows`, default every row), in place. */
export function floorProbabilities(p: Float64Array, K: number, floor: number, rows?: ArrayLike<number>): void {
  if (!(floor > 0)) return;
  const scale = 1 - K * floor;
  if (!rows) {
    for (let i = 0; i < p.length; i++) p[i] = floor + scale * p[i];
    return;
  }
  for (let k = 0; k < rows.length; k++) for (let c = rows[k] * K; c < (rows[k] + 1) * K; c++) p[c] = floor + scale * p[c];
}

/**
 * Fits a calibration (`method`: Platt for two classes, temperature for more) of n x K probabilities `p` to Platt's
 * targets of the class indices `y` (calibrationTargets), on `rows` (default every sample), where each sample appears
 * `copies` times (the repeats of a cross-validation, pooled). Undefined when no increasing map fits: a Platt slope a <= 0
 * (the scores rank the samples no better than chance on these rows).
 */
export function fitCalibration(
  p: ArrayLike<number>,
  y: ArrayLike<number>,
  K: number,
  rows?: ArrayLike<number>,
  copies = 1,
): Calibration | undefined {
  const n = y.length;
  const on = rows ?? Int32Array.from({ length: n }, (_, i) => i);
  const own = calibrationTargets(y, K, on, copies);
  if (K === 2) {
    const t = Float64Array.from(y, (v, i) => (v === 1 ? own[i] : 1 - own[i]));
    const [a, b] = fitPlatt(
      Float64Array.from({ length: n }, (_, i) => logit(p[i * 2 + 1])),
      t,
      on,
    );
    return a > 0 && Number.isFinite(b) ? { method: 'platt', a: [a], b: [b] } : undefined;
  }
  const logp = Float64Array.from({ length: n * K }, (_, k) => Math.log(Math.max(p[k], 1e-300)));
  const temperature = fitTemperature(logp, y, K, on, own);
  return Number.isFinite(temperature) ? { method: 'temperature', temperature } : undefined;
}

/** The isotonic map at p: linear between its points, its end values beyond them. */
function isotonicAt(xs: number[], ys: number[], p: number): number {
  if (!(p > xs[0])) return ys[0];
  const last = xs.length - 1;
  if (p >= xs[last]) return ys[last];
  let lo = 0;
  let hi = last;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] <= p) lo = mid;
    else hi = mid;
  }
  return ys[lo] + ((ys[hi] - ys[lo]) * (p - xs[lo])) / (xs[hi] - xs[lo]);
}

/** The calibrated probability of the k-th class a one-vs-rest map calibrates (binary: the positive class) for probability q. */
function oneVsRest(cal: PlattCalibration | IsotonicCalibration, k: number, q: number): number {
  return cal.method === 'isotonic' ? isotonicAt(cal.x[k], cal.y[k], q) : sigmoid(cal.a[k] * logit(q) + cal.b[k]);
}

/**
 * Applies a calibration to the n x K probabilities `p` in place (rows `rows`, default every row). Temperature scaling
 * renormalises by construction; the one-vs-rest maps of engine 0.2's results for more classes are renormalised (where
 * every class's calibrated probability is 0, each gets 1 / K).
 */
export function applyCalibration(cal: Calibration, p: Float64Array, K: number, rows?: ArrayLike<number>): void {
  const n = p.length / K;
  const on = rows ?? Int32Array.from({ length: n }, (_, i) => i);
  for (let k = 0; k < on.length; k++) {
    const o = on[k] * K;
    if (cal.method === 'temperature') {
      const s = 1 / cal.temperature;
      let max = -Infinity;
      for (let c = 0; c < K; c++) max = Math.max(max, s * Math.log(p[o + c]));
      let sum = 0;
      for (let c = 0; c < K; c++) sum += p[o + c] = Math.exp(s * Math.log(p[o + c]) - max);
      for (let c = 0; c < K; c++) p[o + c] /= sum;
      continue;
    }
    if (K === 2) {
      const q = oneVsRest(cal, 0, p[o + 1]);
      p[o] = 1 - q;
      p[o + 1] = q;
      continue;
    }
    let s = 0;
    for (let c = 0; c < K; c++) s += p[o + c] = oneVsRest(cal, c, p[o + c]);
    for (let c = 0; c < K; c++) p[o + c] = s > 0 ? p[o + c] / s : 1 / K;
  }
}

/**
 * Cross-fitted calibration of out-of-fold predictions: the samples of each fold are calibrated by a map fitted on the
 * out-of-fold predictions of the other folds only, so the calibrated predictions are still out-of-sample; then floored.
 * Undefined when a fold's map is not increasing.
 */
export function crossFitCalibration(
  p: Float64Array,
  y: ArrayLike<number>,
  K: number,
  fold: Int32Array,
  floor = 0,
): Float64Array | undefined {
  const out = Float64Array.from(p);
  const folds = fold.reduce((m, f) => Math.max(m, f + 1), 0);
  for (let f = 0; f < folds; f++) {
    const train = Int32Array.from(Array.from(fold.keys()).filter((i) => fold[i] !== f));
    const test = Int32Array.from(Array.from(fold.keys()).filter((i) => fold[i] === f));
    const cal = fitCalibration(p, y, K, train);
    if (!cal) return undefined;
    applyCalibration(cal, out, K, test);
    floorProbabilities(out, K, floor, test);
  }
  return out;
}

/** Proper scores of probabilities, and the expected calibration error reported beside them. */
export interface ProbabilityScores {
  /** mean over samples of -log(probability of the sample's class) */
  logLoss: number;
  /**
   * Brier score: mean over samples of (p - 1{positive})^2 of the positive class (binary), of the sum over classes of
   * (p - 1{class})^2 (more classes)
   */
  brier: number;
  /**
   * expected calibration error over CALIBRATION_BINS bins of equal count (calibrationErrors): of the positive class
   * (binary), the mean over classes one-vs-rest (more)
   */
  ece: number;
}

/** The classes whose probabilities the calibration error is of: the positive class of two, else every class. */
function reportedClasses(K: number): number[] {
  return K === 2 ? [1] : Array.from({ length: K }, (_, c) => c);
}

/** The bins of the calibration error and the Calibration plot. */
export const CALIBRATION_BINS = 10;

/**
 * The bin of each probability among `bins` bins of equal count (by rank; equal probabilities share the bin of the
 * first of them, so a bin may hold more, and the last fewer, samples): sparse bins of equal width would make noise look
 * like miscalibration.
 */
export function equalCountBins(p: ArrayLike<number>, bins = CALIBRATION_BINS): Int32Array {
  const n = p.length;
  // a probability's bin is that of the first rank its value holds, the count of smaller values: found in the values
  // sorted as numbers (much quicker than sorting the samples by a comparison of their values)
  const sorted = Float64Array.from(p).sort();
  const bin = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const v = p[i];
    let a = 0;
    let b = n;
    while (a < b) {
      const mid = (a + b) >> 1;
      if (sorted[mid] < v) a = mid + 1;
      else b = mid;
    }
    bin[i] = Math.min(bins - 1, Math.floor((a * bins) / n));
  }
  return bin;
}

/** Brier score and expected calibration error (CALIBRATION_BINS bins of equal count) of probabilities of a 0/1 outcome. */
export function calibrationErrors(p: ArrayLike<number>, positive: ArrayLike<number>): { brier: number; ece: number } {
  const bin = equalCountBins(p);
  const sumP = new Float64Array(CALIBRATION_BINS);
  const sumY = new Float64Array(CALIBRATION_BINS);
  let brier = 0;
  for (let i = 0; i < p.length; i++) {
    sumP[bin[i]] += p[i];
    sumY[bin[i]] += positive[i];
    brier += (p[i] - positive[i]) ** 2;
  }
  let ece = 0;
  for (let b = 0; b < CALIBRATION_BINS; b++) ece += Math.abs(sumY[b] - sumP[b]);
  return { brier: brier / p.length, ece: ece / p.length };
}

/** Log loss, Brier score and expected calibration error of n x K probabilities. */
export function probabilityScores(p: ArrayLike<number>, y: ArrayLike<number>, K: number): ProbabilityScores {
  const n = y.length;
  let logLoss = 0;
  let brier = 0;
  for (let i = 0; i < n; i++) {
    logLoss -= Math.log(p[i * K + y[i]]);
    if (K === 2) brier += (p[i * 2 + 1] - (y[i] === 1 ? 1 : 0)) ** 2;
    else for (let c = 0; c < K; c++) brier += (p[i * K + c] - (y[i] === c ? 1 : 0)) ** 2;
  }
  const probability = new Float64Array(n);
  const positive = new Float64Array(n);
  const eces = reportedClasses(K).map((c) => {
    for (let i = 0; i < n; i++) {
      probability[i] = p[i * K + c];
      positive[i] = y[i] === c ? 1 : 0;
    }
    return calibrationErrors(probability, positive).ece;
  });
  return { logLoss: logLoss / n, brier: brier / n, ece: eces.reduce((s, v) => s + v, 0) / eces.length };
}

/** The mean of the scores of each repeat's probabilities. */
function meanScores(repeats: Float64Array[], y: ArrayLike<number>, K: number): ProbabilityScores & { auc: number } {
  const metric = metricNames('classification', K)[0];
  const all = repeats.map((p) => ({
    ...probabilityScores(p, y, K),
    auc: computeMetrics('classification', p, { y: Float64Array.from(y) }, K)[metric],
  }));
  const mean = (f: (s: ProbabilityScores & { auc: number }) => number): number => all.reduce((s, v) => s + f(v), 0) / all.length;
  return { logLoss: mean((s) => s.logLoss), brier: mean((s) => s.brier), ece: mean((s) => s.ece), auc: mean((s) => s.auc) };
}

/**
 * How much lower the mean one-vs-rest AUC of temperature-scaled probabilities may be than the model's own (more than
 * two classes) for the map to be kept. No map that keeps the probabilities summing to 1 keeps every class's order of
 * the samples exactly (only an affine one does), and on wine an SVM's cross-fitted log loss falls from 0.32 to 0.06:
 * the predicted class, and so the accuracy and the confusion matrix, never change. (Compared on the cross-fitted
 * probabilities, whose folds' temperatures differ, the AUC fell by more than this for 109 of wine's 143 configurations.)
 */
export const MULTICLASS_AUC_TOLERANCE = 0.001;

/** Whether a configuration's probabilities are calibrated, and the scores the decision compared. */
export interface CalibrationChoice {
  /** the scores of the out-of-fold probabilities as the model gives them (floored), mean over the repeats */
  before: ProbabilityScores;
  /** the scores of the cross-fitted calibrated probabilities, mean over the repeats (undefined when a fold's map failed) */
  crossFitted?: ProbabilityScores;
  /** the calibration kept (fitted on every out-of-fold prediction of every repeat), when one is */
  map?: Calibration;
}

/**
 * The calibration decision for one configuration's out-of-fold probabilities (`repeats`, floored), with `folds[r]`
 * each sample's fold in repeat r: a map (Platt for two classes, temperature for more) is kept when its cross-fitted
 * probabilities (each fold's calibrated by a map fitted on the other folds' only) have a lower log loss and a lower
 * Brier score than the uncalibrated ones (means over the repeats); the map kept is then fitted on every out-of-fold
 * prediction, and for more classes it is kept only when the mean one-vs-rest AUC of the probabilities through it is at
 * most MULTICLASS_AUC_TOLERANCE lower than the uncalibrated one.
 */
export function chooseCalibration(
  repeats: Float64Array[],
  y: ArrayLike<number>,
  K: number,
  folds: Int32Array[],
  floor: number,
): CalibrationChoice {
  const before = meanScores(repeats, y, K);
  const crossFitted: Float64Array[] = [];
  for (let r = 0; r < repeats.length; r++) {
    const c = crossFitCalibration(repeats[r], y, K, folds[r], floor);
    if (!c) return { before: strip(before) };
    crossFitted.push(c);
  }
  const after = meanScores(crossFitted, y, K);
  if (!(after.logLoss < before.logLoss && after.brier < before.brier)) return { before: strip(before), crossFitted: strip(after) };
  const n = y.length;
  const all = new Float64Array(n * K * repeats.length);
  repeats.forEach((p, r) => all.set(p, r * n * K));
  const map = fitCalibration(
    all,
    Float64Array.from({ length: n * repeats.length }, (_, i) => y[i % n]),
    K,
    undefined,
    repeats.length,
  );
  if (!map) return { before: strip(before), crossFitted: strip(after) };
  // more classes: the order each class's probability puts the samples in moves a little under one temperature; the AUC
  // of the probabilities through the map kept (not the cross-fitted ones, whose folds' maps differ) may fall by at most
  // MULTICLASS_AUC_TOLERANCE
  if (
    K > 2 &&
    meanScores(
      repeats.map((p) => calibrated(map, p, K, floor)),
      y,
      K,
    ).auc <
      before.auc - MULTICLASS_AUC_TOLERANCE
  )
    return { before: strip(before), crossFitted: strip(after) };
  return { before: strip(before), crossFitted: strip(after), map };
}

/** The probabilities `p` through the map `cal`, then floored: a new array, or `into` (p's length). */
export function calibrated(cal: Calibration, p: Float64Array, K: number, floor: number, into?: Float64Array): Float64Array {
  const out = into ?? new Float64Array(p.length);
  out.set(p);
  applyCalibration(cal, out, K);
  floorProbabilities(out, K, floor);
  return out;
}

/** The mean over the repeats of the scores of each one's probabilities. */
export function repeatedScores(repeats: Float64Array[], y: ArrayLike<number>, K: number): ProbabilityScores {
  return strip(meanScores(repeats, y, K));
}

const strip = (s: ProbabilityScores & { auc: number }): ProbabilityScores => ({ logLoss: s.logLoss, brier: s.brier, ece: s.ece });
