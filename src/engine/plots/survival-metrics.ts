/**
 * Time-dependent measures of survival predictions with inverse probability of censoring weights (IPCW), each for
 * weighted samples (bootstrap weights; 1 for the data as they are):
 * - the cumulative/dynamic AUC at a time t (Uno et al. 2007; Hung and Chiang 2010; scikit-survival's
 *   cumulative_dynamic_auc): the chance that a sample with an event by t has a higher risk score than one still event
 *   free after t, the former weighted by 1 / G(T_i-), ties counting 1/2;
 * - the Brier score at t (Graf et al. 1999): the mean of S(t | x_i)^2 over samples with an event by t, weighted by
 *   1 / G(T_i-), and of (1 - S(t | x_i))^2 over samples event free after t, weighted by 1 / G(t); and its integral
 *   over a range of times divided by the range's length (trapezoid rule), the integrated Brier score.
 * G is the Kaplan-Meier estimate of the censoring distribution (censoring as the event) of the same weighted samples.
 */

/** A step function's values: G(t) at each of `times` ascending, as steps at the distinct times it changes. */
export interface Steps {
  times: Float64Array;
  values: Float64Array;
}

/** The value of a right-continuous step function at t (1 before its first time); `before`: its left limit at t. */
export function stepAt(steps: Steps, t: number, before = false): number {
  let lo = 0;
  let hi = steps.times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (steps.times[mid] < t || (!before && steps.times[mid] === t)) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? 1 : steps.values[lo - 1];
}

/**
 * The weighted Kaplan-Meier estimate of P(T > t) where `happened[i]` marks the samples whose time is an event of the
 * kind estimated (the event itself, or a censoring for G), the others counting in the risk sets only. `order`: the
 * samples sorted by time.
 */
export function weightedKaplanMeier(time: ArrayLike<number>, happened: ArrayLike<number>, w: ArrayLike<number>, order: Int32Array): Steps {
  let atRisk = 0;
  for (let k = 0; k < order.length; k++) atRisk += w[order[k]];
  const times: number[] = [];
  const values: number[] = [];
  let s = 1;
  for (let k = 0; k < order.length;) {
    const t = time[order[k]];
    let d = 0;
    let leaving = 0;
    for (; k < order.length && time[order[k]] === t; k++) {
      const i = order[k];
      leaving += w[i];
      if (happened[i]) d += w[i];
    }
    if (d > 0 && atRisk > 0) {
      s *= 1 - d / atRisk;
      times.push(t);
      values.push(s);
    }
    atRisk -= leaving;
  }
  return { times: Float64Array.from(times), values: Float64Array.from(values) };
}

/** The samples in ascending order of time. */
export function byTime(time: ArrayLike<number>): Int32Array {
  return Int32Array.from({ length: time.length }, (_, i) => i).sort((a, b) => time[a] - time[b] || a - b);
}

/** The censoring distribution G of weighted samples (censoring as the event). */
export function censoringDistribution(time: ArrayLike<number>, event: ArrayLike<number>, w: ArrayLike<number>, order: Int32Array): Steps {
  return weightedKaplanMeier(
    time,
    Float64Array.from(event, (e) => (e ? 0 : 1)),
    w,
    order,
  );
}

/** A term weighted by 1 / G; none where G is 0 (no sample left uncensored to stand for it: a bootstrap can draw that). */
function ipcw(term: number, g: number): number {
  return g > 0 ? term / g : 0;
}

/** The quantile q of the ascending values (R's type 7). */
function quantile(sorted: ArrayLike<number>, q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  return sorted[lo] + (sorted[Math.ceil(pos)] - sorted[lo]) * (pos - lo);
}

/** The quartiles of the event times (R's type 7): the times of the time-dependent AUC. */
export function eventTimeQuartiles(time: ArrayLike<number>, event: ArrayLike<number>): number[] {
  const events = Float64Array.from(Array.from(time).filter((_, i) => event[i] === 1)).sort();
  if (events.length === 0) return [];
  return [0.25, 0.5, 0.75].map((q) => quantile(events, q));
}

/** At most this many times on the Brier score's grid. */
export const BRIER_GRID_MAX = 50;

/**
 * The times of the Brier score curve and its integral: the distinct event times from the first to the third quartile of
 * the event times (beyond it the risk sets, and G, get small), at most BRIER_GRID_MAX of them evenly spread by rank.
 */
export function survivalGridTimes(time: ArrayLike<number>, event: ArrayLike<number>): number[] {
  const [, , q3] = eventTimeQuartiles(time, event);
  if (q3 === undefined) return [];
  const distinct = [...new Set(Array.from(time).filter((t, i) => event[i] === 1 && t <= q3))].sort((a, b) => a - b);
  if (distinct.length <= BRIER_GRID_MAX) return distinct;
  return Array.from({ length: BRIER_GRID_MAX }, (_, k) => distinct[Math.round((k * (distinct.length - 1)) / (BRIER_GRID_MAX - 1))]);
}

/**
 * The cumulative/dynamic AUC at each of `times` of risk scores (higher = earlier event), for weighted samples. `order`:
 * the samples sorted by ascending risk. NaN where a time has no case or no control.
 */
export function timeDependentAuc(
  risk: ArrayLike<number>,
  time: ArrayLike<number>,
  event: ArrayLike<number>,
  w: ArrayLike<number>,
  times: readonly number[],
  order: Int32Array,
  G: Steps,
): number[] {
  return times.map((t) => {
    // from the lowest risk up: each case is above the controls seen before its score, and ties with those at it
    let cases = 0;
    let controlsBelow = 0;
    let concordant = 0;
    for (let k = 0; k < order.length;) {
      const r = risk[order[k]];
      let caseW = 0;
      let controlW = 0;
      for (; k < order.length && risk[order[k]] === r; k++) {
        const i = order[k];
        if (w[i] === 0) continue;
        if (time[i] <= t && event[i] === 1) caseW += ipcw(w[i], stepAt(G, time[i], true));
        else if (time[i] > t) controlW += w[i];
      }
      concordant += caseW * (controlsBelow + 0.5 * controlW);
      cases += caseW;
      controlsBelow += controlW;
    }
    return cases > 0 && controlsBelow > 0 ? concordant / (cases * controlsBelow) : NaN;
  });
}

/**
 * The Brier score at each of `times` of predicted survival probabilities `survival` (samples x times), for weighted
 * samples; samples censored by t count in neither part, as their weights' share goes to the others through G.
 */
export function brierScores(
  survival: ArrayLike<number>,
  time: ArrayLike<number>,
  event: ArrayLike<number>,
  w: ArrayLike<number>,
  times: readonly number[],
  G: Steps,
): number[] {
  const n = time.length;
  const T = times.length;
  let total = 0;
  for (let i = 0; i < n; i++) total += w[i];
  return times.map((t, k) => {
    const gt = stepAt(G, t);
    let s = 0;
    for (let i = 0; i < n; i++) {
      if (w[i] === 0) continue;
      const p = survival[i * T + k];
      if (time[i] <= t && event[i] === 1) s += ipcw(w[i] * p * p, stepAt(G, time[i], true));
      else if (time[i] > t) s += ipcw(w[i] * (1 - p) * (1 - p), gt);
    }
    return total > 0 ? s / total : NaN;
  });
}

/** The integral of a curve over its times divided by their range (trapezoid rule): the integrated Brier score. */
export function integrated(times: readonly number[], values: readonly number[]): number {
  if (times.length < 2) return values[0] ?? NaN;
  let area = 0;
  for (let k = 1; k < times.length; k++) area += ((values[k] + values[k - 1]) / 2) * (times[k] - times[k - 1]);
  return area / (times[times.length - 1] - times[0]);
}
