import type { Rng } from '../rng';
import type { NodeRule, Split } from './tree-rule';
import type { Design, Target } from './common';

/**
 * The random survival forest's node rule (Ishwaran et al. 2008): splits by the log-rank statistic over
 * `nsplit` random thresholds per feature, and leaves hold the ensemble mortality. Its nodes' rows must be
 * sorted by time (ties by index): the tree grower keeps them in the order it is given them.
 */

/** Sorted distinct times with an event. */
export function distinctEventTimes(time: Float64Array, event: Float64Array, rows?: Int32Array): Float64Array {
  const vals: number[] = [];
  const idx = rows ?? Int32Array.from({ length: time.length }, (_, i) => i);
  for (const i of idx) if (event[i]) vals.push(time[i]);
  vals.sort((a, b) => a - b);
  return Float64Array.from(vals.filter((v, i) => i === 0 || v !== vals[i - 1]));
}

/** Rows sorted by time (ties by index), as survival trees need. */
export function sortByTime(rows: Int32Array, time: Float64Array): Int32Array {
  return Int32Array.from(rows).sort((a, b) => time[a] - time[b] || a - b);
}

/**
 * Nelson-Aalen cumulative hazard in the leaf, summed over the training event times `eventTimes` (Ishwaran's
 * ensemble mortality). `idx` is sorted by time.
 */
export function leafMortality(target: Target, eventTimes: Float64Array, idx: Int32Array): number {
  const { y } = target;
  const ev = target.event as Float64Array;
  let atRisk = idx.length;
  let mortality = 0;
  let m = 0;
  while (m < idx.length) {
    const t = y[idx[m]];
    let deaths = 0;
    let k = m;
    while (k < idx.length && y[idx[k]] === t) {
      if (ev[idx[k]]) deaths++;
      k++;
    }
    if (deaths > 0) {
      // event times at or after t: each gets this step of the hazard
      mortality += (deaths / atRisk) * (eventTimes.length - firstAtOrAfter(eventTimes, t));
    }
    atRisk -= k - m;
    m = k;
  }
  return mortality;
}

/** The standardized log-rank statistic |O - E| / sqrt(V) of the left group (`isLeft[m]` for row idx[m]) against the right. */
export function logrankStatistic(target: Target, idx: Int32Array, isLeft: Uint8Array, nLeft: number): number {
  const { y } = target;
  const ev = target.event as Float64Array;
  let Y = idx.length;
  let YL = nLeft;
  let num = 0;
  let v = 0;
  let m = 0;
  while (m < idx.length) {
    const t = y[idx[m]];
    let d = 0;
    let dL = 0;
    let cnt = 0;
    let cntL = 0;
    while (m < idx.length && y[idx[m]] === t) {
      const left = isLeft[m];
      if (ev[idx[m]]) {
        d++;
        if (left) dL++;
      }
      cnt++;
      if (left) cntL++;
      m++;
    }
    if (d > 0 && Y > 0) {
      const frac = YL / Y;
      num += dL - d * frac;
      if (Y > 1) v += d * frac * (1 - frac) * ((Y - d) / (Y - 1));
    }
    Y -= cnt;
    YL -= cntL;
  }
  return v > 0 ? Math.abs(num) / Math.sqrt(v) : 0;
}

/** The log-rank node rule for a tree on `X` and `target` (time and event), with the training set's event times. */
export function logrankRule(
  X: Design,
  target: Target,
  params: { minLeaf: number; nsplit: number },
  rng: Rng,
  eventTimes: Float64Array,
): NodeRule {
  const d = X.cols;
  const data = X.data;
  const minLeaf = Math.max(1, params.minLeaf);
  return {
    width: 1,
    leafValue(rows, lo, hi, out) {
      out.push(leafMortality(target, eventTimes, rows.subarray(lo, hi)));
    },
    bestSplit(rows, lo, hi, features) {
      const idx = rows.subarray(lo, hi);
      const n = idx.length;
      const isLeft = new Uint8Array(n);
      let best: Split | null = null;
      for (const f of features) {
        for (let s = 0; s < params.nsplit; s++) {
          const thr = data[idx[rng.int(n)] * d + f];
          let nLeft = 0;
          for (let m = 0; m < n; m++) {
            isLeft[m] = data[idx[m] * d + f] <= thr ? 1 : 0;
            nLeft += isLeft[m];
          }
          if (nLeft < minLeaf || n - nLeft < minLeaf) continue;
          const score = logrankStatistic(target, idx, isLeft, nLeft);
          if (!best || score > best.score) best = { feature: f, threshold: thr, score };
        }
      }
      return best;
    },
  };
}

/** The position of the first value of the ascending `sorted` at or after t (`after`: after t), its length when none is. */
export function firstAtOrAfter(sorted: ArrayLike<number>, t: number, after?: 'after'): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < t || (after && sorted[mid] === t)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The quartiles of the times (R's quantile type 7): the default times of survival predictions. */
export function timeQuartiles(time: ArrayLike<number>): number[] {
  const sorted = Float64Array.from(time).sort();
  return [0.25, 0.5, 0.75].map((q) => {
    const pos = (sorted.length - 1) * q;
    const lo = Math.floor(pos);
    return sorted[lo] + (sorted[Math.ceil(pos)] - sorted[lo]) * (pos - lo);
  });
}
