/**
 * Newton's method on a log-likelihood in the linear predictor (the logistic, multinomial and Cox tests' fits), with
 * chord steps that reuse the factored information, and the work buffers those fits share.
 */
import { logChiSquareSurvival } from '../distributions';
import type { IndependenceTestResult } from '../independence';
import { choleskyRows, solveCholesky } from '../linalg';
import { choleskyFactor } from '../models/simd-information';
import { dot, type NullStart } from './residual-test';

/** Newton's method: at most this many steps (complete separation would otherwise run forever), and step halvings per step */
const MAX_NEWTON_STEPS = 30;
const MAX_HALVINGS = 30;
/**
 * Newton stops once the predicted decrease of the deviance delta = score' information^-1 score is below this, and
 * reports deviance - delta, the minimum of the quadratic model: its error is of the order delta^1.5 (about 1e-10),
 * and the step it saves costs an exponential and a logarithm per sample.
 */
const NEWTON_TOLERANCE = 1e-7;
/**
 * Newton's information costs far more than its score (multinomial: (K - 1)^2 / 2 blocks of p^2 sums over the samples,
 * against K - 1 score vectors), and changes little between steps near the optimum. A step reuses the last factored
 * information (a chord step) while the decrement falls at least by this factor per step; otherwise the information is
 * computed afresh. The fit converges to the same optimum (to NEWTON_TOLERANCE) either way.
 */
const CHORD_RATIO = 0.03;
/**
 * A log p-value within this of 0 (p within 1e-9 of 1) is taken as 0: what a test reports can only change by that much
 * where `settled` stops a fit (SES and the equivalence analysis compare p with alpha; their decisions cannot change).
 */
const NEGLIGIBLE_LOG_P = 1e-9;

/**
 * True when every likelihood-ratio test against a null fit of this deviance, on at least `df` degrees of freedom, has
 * log p within NEGLIGIBLE_LOG_P of 0 whatever its full fit: a deviance (-2 log-likelihood) is never negative, so the
 * statistic is at most the null's deviance (and the null's optimum at most the deviance reached). On nearly separable
 * data (ten digit classes on a signature of 25 pixels) the fits run to Newton's step cap on a deviance that falls by
 * about e per step towards 0; this stops them once nothing they report can change.
 */
export function settled(deviance: number, df: number): boolean {
  return logChiSquareSurvival(deviance, df) >= -NEGLIGIBLE_LOG_P;
}

/** A log-likelihood in the linear predictor: binomial, multinomial or Cox partial likelihood. */
export interface Likelihood {
  /** numbers in the linear predictor per sample: 1, or K - 1 for the multinomial (sample i, part k at i * width + k) */
  readonly width: number;
  /** length of the per-sample state that `deviance` leaves for `derivatives` */
  readonly stateLength: number;
  /** CHORD_RATIO for this likelihood (smaller: an information is cheap next to a deviance) */
  readonly chordRatio?: number;
  /**
   * -2 log-likelihood at the linear predictor. Also writes into `state` what the derivatives at eta need (fitted
   * probabilities or risks), so that Newton's method spends no second exponential per sample on them.
   */
  deviance(eta: Float64Array, state: Float64Array): number;
  /**
   * The score (gradient of the log-likelihood) and the information (minus its Hessian, lower triangle, row-major
   * P x P) of the coefficients of `columns`, from the `state` of eta; the score alone when `information` is null.
   * Coefficient k * columns.length + j multiplies column j in part k. The entries between two of the first `known`
   * columns (in every pair of parts) may be left as they are: the caller has filled them (`Fit.information`).
   */
  derivatives(
    columns: readonly Float64Array[],
    state: Float64Array,
    score: Float64Array,
    information: Float64Array | null,
    known?: number,
  ): void;
}

export interface Fit {
  /** coefficient k * p + j of column j in part k */
  beta: Float64Array;
  eta: Float64Array;
  deviance: number;
  /** what `deviance` left at eta */
  state: Float64Array;
  /**
   * The information at this fit (as `derivatives` leaves it), kept with a null fit: the first information of every
   * test against it has it as its block of the null's columns, so that only the added columns' entries are computed.
   */
  information?: Float64Array;
}

/** The fit at the linear predictor eta (coefficients given by the caller). */
export function evaluate(likelihood: Likelihood, beta: Float64Array, eta: Float64Array): Fit {
  const state = new Float64Array(likelihood.stateLength);
  return { beta, eta, deviance: likelihood.deviance(eta, state), state };
}

/**
 * Cholesky factor L (lower, row-major P x P) of the symmetric positive (semi)definite A (lower triangle given); a
 * singular or nearly singular A (e.g. under separation, where the weights vanish) gets a growing ridge. False if
 * nothing works.
 */
export function factorSymmetric(A: Float64Array, L: Float64Array, P: number): boolean {
  let maxDiagonal = 0;
  for (let a = 0; a < P; a++) maxDiagonal = Math.max(maxDiagonal, Math.abs(A[a * P + a]));
  if (!(maxDiagonal > 0) || !Number.isFinite(maxDiagonal)) return false;
  for (let attempt = 0, ridge = 0; attempt < 8; attempt++, ridge = maxDiagonal * 10 ** (attempt * 2 - 14)) {
    if (choleskyFactor(A, L, P, ridge, maxDiagonal * 1e-14) ?? choleskyRows(A, L, P, ridge, maxDiagonal * 1e-14)) return true;
  }
  return false;
}

export interface NewtonOptions {
  /** take the last step too, so that the deviance, eta and state match (the cached null fits) */
  exact?: boolean;
  /** work buffers (the arrays of the returned fit may be among them) */
  scratch?: Scratch;
  /** asked at the start and after each step with the deviance reached: true ends the fit there (`stopped`) */
  enough?: (deviance: number) => boolean;
  /**
   * after a whole step, go on along it (2, 4 ... 64 times it) while the deviance falls. On nearly separable data the
   * deviance falls by only about e per Newton step on its way to 0 (a fresh information each), while a step twice as
   * long costs one deviance, a small part of a multinomial information. The fit converges to the same optimum.
   */
  expand?: boolean;
  /** the information at the start of the fit's first `columns` columns (a null fit's), for the first step */
  known?: { information: Float64Array; columns: number };
}

/**
 * Newton's method from a start taken from another fit (projectedStart), or undefined when it cannot take a single step
 * from there: the projection of a fit on nearly separable data can saturate the probabilities, the information is then
 * nearly singular, and every halving of its step still overshoots (on ten digit classes, 10 of the 25 null fits of
 * the equivalence analysis stayed at their start's deviance, 1,400 to 5,400 above their optimum near 0, and every test
 * against them failed the same way: statistic 0). The caller then starts from the intercept alone.
 */
function fromStart(likelihood: Likelihood, columns: readonly Float64Array[], start: Fit, options: NewtonOptions): Fit | undefined {
  const fit = newton(likelihood, columns, start, options);
  return fit.stuck ? undefined : fit;
}

/**
 * Maximizes the likelihood over the coefficients of `columns` by Newton's method with step halving, from `start`
 * (a fit whose linear predictor matches its coefficients; it is not modified). The deviance never increases, and
 * the number of steps is capped, so a fit that cannot converge (complete separation) still ends with a finite
 * deviance. The last, tiny step (NEWTON_TOLERANCE) is not taken: the deviance is extrapolated instead, so then
 * the deviance no longer matches eta and state, which only the cached null fits use: with `exact` that step is taken
 * and the fit ends there (its deviance is then within about NEWTON_TOLERANCE^2 of the optimum for a Newton step, a
 * fraction CHORD_RATIO of NEWTON_TOLERANCE for a chord step).
 * `enough` ends the fit early: a test that only needs to know that its statistic exceeds some value stops once the
 * deviance has fallen that far (a fit's deviance only falls further on the way to the optimum). A fit that cannot
 * take its first step (no factor of the information, or every halving of the step raises the deviance) is `start`,
 * `stuck`.
 */
export function newton(
  likelihood: Likelihood,
  columns: readonly Float64Array[],
  start: Fit,
  options: NewtonOptions = {},
): Fit & { stopped?: boolean; stuck?: boolean } {
  const { exact = false, scratch, enough, known, expand = false } = options;
  let extra: [Float64Array, Float64Array] | undefined;
  const w = likelihood.width;
  const p = columns.length;
  const P = w * p;
  if (P === 0) return start;
  if (enough?.(start.deviance)) return { ...start, stopped: true };
  const n = columns[0].length;
  const { beta, score, information, step, factor } = scratch ? sizedWork(scratch, P) : work(P);
  beta.set(start.beta);
  let { eta, state, deviance } = start;
  // trial buffers (the start's arrays are only read), and one spare pair for the first accepted step
  let trial: Float64Array = scratch?.eta[0] ?? new Float64Array(eta.length);
  let trialState: Float64Array = scratch?.state[0] ?? new Float64Array(state.length);
  const spareEta = scratch?.eta[1] ?? new Float64Array(eta.length);
  const spareState = scratch?.state[1] ?? new Float64Array(state.length);
  let owned = false;
  const direction = scratch?.direction ?? new Float64Array(eta.length);
  let factored = false;
  let stuck = false;
  let previous = Infinity;
  for (let iteration = 0; iteration < MAX_NEWTON_STEPS; iteration++) {
    // A chord step first (the last information's factor, the score only): kept when the decrement fell fast enough
    let decrement = NaN;
    if (factored) {
      likelihood.derivatives(columns, state, score, null);
      solveCholesky(factor, score, step, P);
      decrement = dot(score, step, P);
    }
    if (!(decrement <= (likelihood.chordRatio ?? CHORD_RATIO) * previous)) {
      const first = iteration === 0 && known !== undefined;
      if (first) place(known.information, w, known.columns, information, p);
      likelihood.derivatives(columns, state, score, information, first ? known.columns : 0);
      factored = factorSymmetric(information, factor, P);
      if (!factored) {
        stuck = iteration === 0;
        break;
      }
      solveCholesky(factor, score, step, P);
      decrement = dot(score, step, P);
    }
    if (!(decrement > 0)) break;
    previous = decrement;
    const last = decrement < NEWTON_TOLERANCE;
    if (last && !exact) {
      deviance -= decrement;
      break;
    }
    // direction[i * w + k] = sum_j step[k * p + j] columns[j][i], summed in the order of j from 0
    const along = w === 1 ? direction : (scratch?.along ?? new Float64Array(n));
    for (let k = 0; k < w; k++) {
      addColumns(columns, step, k * p, n, along);
      if (w > 1) for (let i = 0; i < n; i++) direction[i * w + k] = along[i];
    }
    let t = 1;
    let accepted = false;
    for (let h = 0; h < MAX_HALVINGS; h++, t /= 2) {
      for (let i = 0; i < eta.length; i++) trial[i] = eta[i] + t * direction[i];
      const d = likelihood.deviance(trial, trialState);
      if (d <= deviance) {
        deviance = d;
        accepted = true;
        break;
      }
    }
    if (!accepted) {
      stuck = iteration === 0;
      break;
    }
    if (expand && t === 1) {
      extra ??= [new Float64Array(eta.length), new Float64Array(state.length)];
      for (let u = 2; u <= 64; u *= 2) {
        const [e2, s2] = extra;
        for (let i = 0; i < eta.length; i++) e2[i] = eta[i] + u * direction[i];
        const d = likelihood.deviance(e2, s2);
        if (!(d < deviance)) break;
        deviance = d;
        t = u;
        extra = [trial, trialState];
        trial = e2;
        trialState = s2;
      }
    }
    for (let a = 0; a < P; a++) beta[a] += t * step[a];
    [eta, trial] = [trial, owned ? eta : spareEta];
    [state, trialState] = [trialState, owned ? state : spareState];
    owned = true;
    if (last) break;
    if (enough?.(deviance)) return { beta, eta, deviance, state, stopped: true };
  }
  return stuck ? { ...start, stuck } : { beta, eta, deviance, state };
}

/**
 * out[i] = sum_j coef[from + j] columns[j][i], added in the order of j (0 + the first term, then the next...), four
 * columns a pass over the samples: the same sums as one column a pass, with a quarter of the loads and stores of the
 * partial sums.
 */
function addColumns(columns: readonly Float64Array[], coef: Float64Array, from: number, n: number, out: Float64Array): void {
  const p = columns.length;
  out.fill(0, 0, n);
  let j = 0;
  for (; j + 3 < p; j += 4) {
    const s0 = coef[from + j];
    const s1 = coef[from + j + 1];
    const s2 = coef[from + j + 2];
    const s3 = coef[from + j + 3];
    const c0 = columns[j];
    const c1 = columns[j + 1];
    const c2 = columns[j + 2];
    const c3 = columns[j + 3];
    for (let i = 0; i < n; i++) {
      let v = out[i];
      v += s0 * c0[i];
      v += s1 * c1[i];
      v += s2 * c2[i];
      v += s3 * c3[i];
      out[i] = v;
    }
  }
  for (; j < p; j++) {
    const s = coef[from + j];
    const c = columns[j];
    for (let i = 0; i < n; i++) out[i] += s * c[i];
  }
}

/**
 * Copies the lower triangle of an information on p0 columns (w parts) into one on p >= p0 columns, where the same
 * coefficient (part k, column j) has index k * p + j instead of k * p0 + j.
 */
function place(known: Float64Array, w: number, p0: number, information: Float64Array, p: number): void {
  const P0 = w * p0;
  const P = w * p;
  for (let k = 0; k < w; k++)
    for (let j = 0; j < p0; j++)
      for (let l = 0; l <= k; l++)
        for (let m = 0; m < p0; m++) {
          if (k === l && m > j) break;
          information[(k * p + j) * P + l * p + m] = known[(k * p0 + j) * P0 + l * p0 + m];
        }
}

/**
 * The likelihood-ratio test of the null fit against the model on `columns` (the null's columns first, then the added
 * ones, whose coefficients start at 0), with `df` degrees of freedom. With `below` (a log p) the full fit stops as
 * soon as the deviance it reached proves log p < below, and the result is that bound (`bound`). A null fit whose
 * deviance is `settled` for df gives p = 1 without a full fit.
 */
export function likelihoodRatio(
  likelihood: Likelihood,
  columns: readonly Float64Array[],
  nullFit: Fit,
  df: number,
  below: number,
  scratch: Scratch,
): IndependenceTestResult {
  // nothing to fit when even a perfect full fit (deviance 0) would leave p within NEGLIGIBLE_LOG_P of 1
  if (settled(nullFit.deviance, df)) return { statistic: 0, df, logP: 0 };
  const w = likelihood.width;
  const p = nullFit.beta.length / Math.max(1, w);
  const start = { ...nullFit, beta: widen(nullFit.beta, w, p, columns.length - p) };
  const proves = (deviance: number): boolean => logChiSquareSurvival(Math.max(0, nullFit.deviance - deviance), df) < below;
  const full = newton(likelihood, columns, start, {
    scratch,
    enough: below > -Infinity ? proves : undefined,
    known: nullFit.information && { information: nullFit.information, columns: p },
  });
  const statistic = Math.max(0, nullFit.deviance - full.deviance);
  const logP = logChiSquareSurvival(statistic, df);
  return full.stopped ? { statistic, df, logP, bound: true } : { statistic, df, logP };
}

/** Work buffers for Newton's method, reused by the fits whose arrays are not kept (the full model of each test). */
export interface Scratch {
  eta: [Float64Array, Float64Array];
  state: [Float64Array, Float64Array];
  direction: Float64Array;
  /** one part of the direction (n) */
  along: Float64Array;
  /** by the number of coefficients */
  work: Map<number, Work>;
}

/** The coefficients (returned) and the linear algebra of one fit with P coefficients. */
interface Work {
  beta: Float64Array;
  score: Float64Array;
  step: Float64Array;
  information: Float64Array;
  factor: Float64Array;
}

function work(P: number): Work {
  const vector = (): Float64Array => new Float64Array(P);
  return { beta: vector(), score: vector(), step: vector(), information: new Float64Array(P * P), factor: new Float64Array(P * P) };
}

/** The scratch's work buffers for P coefficients (a test on wide data would otherwise allocate five arrays a fit). */
function sizedWork(scratch: Scratch, P: number): Work {
  let w = scratch.work.get(P);
  if (!w) scratch.work.set(P, (w = work(P)));
  return w;
}

export function scratchFor(likelihood: Likelihood, n: number): Scratch {
  const m = n * likelihood.width;
  const k = likelihood.stateLength;
  return {
    eta: [new Float64Array(m), new Float64Array(m)],
    state: [new Float64Array(k), new Float64Array(k)],
    direction: new Float64Array(m),
    along: new Float64Array(n),
    work: new Map(),
  };
}

/**
 * A start for a fit on the orthonormal `columns` from another fit: its linear predictor projected on their span
 * (exactly itself when it lies there, as a fit on fewer of the same features does).
 */
export function projectedStart(likelihood: Likelihood, columns: readonly Float64Array[], from: Fit): Fit {
  const w = likelihood.width;
  const p = columns.length;
  const n = from.eta.length / w;
  const beta = new Float64Array(w * p);
  const eta = new Float64Array(n * w);
  for (let j = 0; j < p; j++) {
    const q = columns[j];
    for (let k = 0; k < w; k++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += q[i] * from.eta[i * w + k];
      beta[k * p + j] = s;
      for (let i = 0; i < n; i++) eta[i * w + k] += s * q[i];
    }
  }
  return evaluate(likelihood, beta, eta);
}

/**
 * The best start on the way from `origin` (a fit of the same columns) to `to`: `to` itself or the point 1/2, 1/4 ...
 * 1/64 of the way, linear predictor and coefficients alike, whichever has the smallest deviance (a deviance costs a
 * small fraction of a Newton step's information). The fit of a set one feature apart projected on this one's span is
 * a poor start on nearly separable data: its linear predictor is large where that feature separated classes, so
 * probabilities near 0 or 1 are wrong, and Newton's steps from there mostly halve (on digits70's equivalence analysis
 * 13 to 27 informations a null fit, against 9 to 19 from the best damped start).
 */
function dampedStart(likelihood: Likelihood, origin: Fit, to: Fit): Fit {
  let best = to;
  for (let c = 0.5; c >= 1 / 64; c /= 2) {
    const beta = origin.beta.map((b, a) => b + c * (to.beta[a] - b));
    const eta = origin.eta.map((e, i) => e + c * (to.eta[i] - e));
    const fit = evaluate(likelihood, beta, eta);
    if (fit.deviance < best.deviance) best = fit;
  }
  return best;
}

/**
 * A null fit on `columns` by Newton's method with `options`: from the fit of a set near this one (`from`, projected on
 * the span: a subset's fit lies in it, a start at least as good as `origin`; the fit of a set one feature apart,
 * damped towards `origin` (dampedStart), when it does better), else from `origin` (the intercept alone; 0 for a Cox
 * model). A start Newton's method cannot step from gives way to `origin` (fromStart).
 */
export function nullFitFrom(
  likelihood: Likelihood,
  columns: readonly Float64Array[],
  origin: () => Fit,
  from: NullStart<Fit> | undefined,
  options: NewtonOptions,
): Fit & { stopped?: boolean } {
  const projected = from && projectedStart(likelihood, columns, from.fit);
  if (projected && from?.subset)
    return fromStart(likelihood, columns, projected, options) ?? newton(likelihood, columns, origin(), options);
  const start = origin();
  const damped = projected && dampedStart(likelihood, start, projected);
  return (
    (damped && damped.deviance < start.deviance && fromStart(likelihood, columns, damped, options)) ||
    newton(likelihood, columns, start, options)
  );
}

/** The null fit when there is nothing to test (a single class, no event). */
export const EMPTY_FIT: Fit = { beta: new Float64Array(0), eta: new Float64Array(0), deviance: 0, state: new Float64Array(0) };

/** Coefficients of a fit on p columns, laid out for p + extra columns (the new ones at 0), for a warm start. */
export function widen(beta: Float64Array, width: number, p: number, extra: number): Float64Array {
  const out = new Float64Array(width * (p + extra));
  for (let k = 0; k < width; k++) for (let j = 0; j < p; j++) out[k * (p + extra) + j] = beta[k * p + j];
  return out;
}

/**
 * Fills the lower triangle of sum_i weight_i x_ij x_im into information[(row0 + j) * P + col0 + m], from row
 * `fromRow` on (the rows above are known).
 */
export function weightedCross(
  columns: readonly Float64Array[],
  weight: Float64Array,
  information: Float64Array,
  P: number,
  row0: number,
  col0: number,
  lowerOnly: boolean,
  fromRow = 0,
): void {
  const p = columns.length;
  const n = weight.length;
  for (let j = fromRow; j < p; j++) {
    const a = columns[j];
    for (let m = 0; m < (lowerOnly ? j + 1 : p); m++) {
      const b = columns[m];
      // four partial sums: the loop runs about twice as fast
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let i = 0;
      for (; i + 3 < n; i += 4) {
        s0 += weight[i] * a[i] * b[i];
        s1 += weight[i + 1] * a[i + 1] * b[i + 1];
        s2 += weight[i + 2] * a[i + 2] * b[i + 2];
        s3 += weight[i + 3] * a[i + 3] * b[i + 3];
      }
      for (; i < n; i++) s0 += weight[i] * a[i] * b[i];
      information[(row0 + j) * P + col0 + m] = s0 + s1 + (s2 + s3);
    }
  }
}
