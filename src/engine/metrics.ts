/**
 * Performance metrics with the names of docs/decisions.md. Every metric accepts per-sample weights
 * (bootstrap multiplicities; 0 leaves a sample out), so BBC-CV can re-score the same predictions
 * thousands of times: `makeEvaluator` sorts once, then each evaluation is O(n) (O(n log n) for the C-index).
 */

export type Task = 'classification' | 'regression' | 'survival';

export const AUC = 'Area Under the ROC Curve';
export const MEAN_AUC = 'Mean Area Under the ROC Curve';
export const ACCURACY = 'Accuracy';
export const BALANCED_ACCURACY = 'Balanced Accuracy';
export const SENSITIVITY = 'Sensitivity';
export const SPECIFICITY = 'Specificity';
export const F1 = 'F1 Score';
export const R_SQUARED = 'R Squared';
export const MAE = 'Mean Absolute Error';
export const RMSE = 'Root Mean Squared Error';
export const C_INDEX = 'Concordance Index';

/** The outcome of the evaluated samples, aligned with the predictions. */
export interface OutcomeArrays {
  /** class index, value, or time */
  y: Float64Array;
  /** survival only: 1 = event, 0 = censored */
  event?: Float64Array;
}

/** Metric names for a task; the first is the one that picks the winner. */
export function metricNames(task: Task, classCount: number): string[] {
  if (task === 'regression') return [R_SQUARED, MAE, RMSE];
  if (task === 'survival') return [C_INDEX];
  if (classCount > 2) return [MEAN_AUC, ACCURACY, BALANCED_ACCURACY];
  return [AUC, ACCURACY, BALANCED_ACCURACY, SENSITIVITY, SPECIFICITY, F1];
}

/** True when a larger value is better. */
export function higherIsBetter(name: string): boolean {
  return name !== MAE && name !== RMSE;
}

export type Evaluator = (weights: Float64Array) => number;

/** The digits of sortedOrder's radix sort: [word (0 low, 1 high), shift, bits], least significant first. */
const DIGITS = [
  [0, 0, 11],
  [0, 11, 11],
  [0, 22, 10],
  [1, 0, 11],
  [1, 11, 11],
  [1, 22, 10],
] as const;

/**
 * The samples by ascending score, ties by index (as a comparison sort of the indices by `score[a] - score[b] || a - b`,
 * -0 and 0 tied): an LSD radix sort of the doubles' bits, mapped so that their unsigned order is the numeric order, in
 * six 11-bit digits (a digit the same for every sample is skipped). 2.5 times faster than the comparison sort on 1,800
 * probabilities; evaluators are made for every configuration at every BBCD-CV drop. With a NaN, the comparison sort.
 */
export function sortedOrder(score: Float64Array): Int32Array {
  const n = score.length;
  let order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const bits = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (Number.isNaN(score[i])) return order.sort((a, b) => score[a] - score[b] || a - b);
    bits[i] = score[i] + 0; // -0 as 0
  }
  const words = new Uint32Array(bits.buffer);
  const key = [new Uint32Array(n), new Uint32Array(n)];
  for (let i = 0; i < n; i++) {
    const negative = words[2 * i + 1] >>> 31 === 1;
    key[0][i] = negative ? ~words[2 * i] >>> 0 : words[2 * i];
    key[1][i] = negative ? ~words[2 * i + 1] >>> 0 : (words[2 * i + 1] ^ 0x80000000) >>> 0;
  }
  let spare = new Int32Array(n);
  const counts = new Int32Array(2049);
  for (const [word, shift, width] of DIGITS) {
    const k = key[word];
    const mask = (1 << width) - 1;
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[((k[i] >>> shift) & mask) + 1]++;
    if (counts.includes(n)) continue;
    for (let b = 0; b < mask; b++) counts[b + 1] += counts[b];
    for (let j = 0; j < n; j++) {
      const i = order[j];
      spare[counts[(k[i] >>> shift) & mask]++] = i;
    }
    [order, spare] = [spare, order];
  }
  return order;
}

/**
 * Weighted Mann-Whitney AUC over pre-sorted scores; ties get half credit. Bootstraps call it thousands of times per
 * configuration (BBC-CV, BBCD-CV), so without ties (the common case of probabilities) it is one branch-free pass
 * over the sorted samples (its quarters side by side); with ties, a pass over the groups of equal scores. Bootstrap
 * weights are counts, so every sum is exact and both ways give the same value to the bit.
 */
function aucEvaluator(score: Float64Array, positive: Uint8Array): Evaluator {
  const order = sortedOrder(score);
  const n = order.length;
  // tie groups of the sorted scores: group g spans sorted positions [starts[g], starts[g + 1])
  const starts: number[] = [];
  for (let i = 0; i < n; i++) if (i === 0 || score[order[i]] !== score[order[i - 1]]) starts.push(i);
  starts.push(n);
  const groupStarts = Int32Array.from(starts);
  const pos = Uint8Array.from(order, (k) => positive[k]);
  if (groupStarts.length === n + 1) {
    const isPos = Float64Array.from(pos);
    // four quarters of the sorted samples in one loop (four independent chains of sums, not one), joined after:
    // the pairs of a later quarter's positive with an earlier quarter's negatives are totP(later) x neg(earlier)
    const q = n >> 2;
    return (w) => {
      let n0 = 0;
      let n1 = 0;
      let n2 = 0;
      let n3 = 0;
      let a0 = 0;
      let a1 = 0;
      let a2 = 0;
      let a3 = 0;
      let p0 = 0;
      let p1 = 0;
      let p2 = 0;
      let p3 = 0;
      for (let j = 0; j < q; j++) {
        const w0 = w[order[j]];
        const w1 = w[order[j + q]];
        const w2 = w[order[j + 2 * q]];
        const w3 = w[order[j + 3 * q]];
        const x0 = isPos[j] * w0;
        const x1 = isPos[j + q] * w1;
        const x2 = isPos[j + 2 * q] * w2;
        const x3 = isPos[j + 3 * q] * w3;
        a0 += x0 * n0;
        a1 += x1 * n1;
        a2 += x2 * n2;
        a3 += x3 * n3;
        p0 += x0;
        p1 += x1;
        p2 += x2;
        p3 += x3;
        n0 += w0 - x0;
        n1 += w1 - x1;
        n2 += w2 - x2;
        n3 += w3 - x3;
      }
      for (let j = 4 * q; j < n; j++) {
        const w3 = w[order[j]];
        const x3 = isPos[j] * w3;
        a3 += x3 * n3;
        p3 += x3;
        n3 += w3 - x3;
      }
      const num = a0 + a1 + a2 + a3 + p1 * n0 + p2 * (n0 + n1) + p3 * (n0 + n1 + n2);
      const totP = p0 + p1 + p2 + p3;
      const totN = n0 + n1 + n2 + n3;
      return totP > 0 && totN > 0 ? num / (totP * totN) : NaN;
    };
  }
  return (w) => {
    let negBefore = 0;
    let num = 0;
    let totP = 0;
    for (let g = 0; g + 1 < groupStarts.length; g++) {
      let wp = 0;
      let wn = 0;
      for (let j = groupStarts[g]; j < groupStarts[g + 1]; j++) {
        const wk = w[order[j]];
        if (pos[j]) wp += wk;
        else wn += wk;
      }
      num += wp * (negBefore + 0.5 * wn);
      negBefore += wn;
      totP += wp;
    }
    const totN = negBefore;
    return totP > 0 && totN > 0 ? num / (totP * totN) : NaN;
  };
}

/** Weighted Harrell's C: comparable pairs have t_i < t_j with an event at t_i (or equal times, i event, j censored); risk ties count 1/2. */
function concordanceEvaluator(risk: Float64Array, time: Float64Array, event: Float64Array): Evaluator {
  const n = risk.length;
  const byRisk = sortedOrder(risk);
  const rank = new Int32Array(n);
  let r = 0;
  for (let i = 0; i < n; i++) {
    if (i > 0 && risk[byRisk[i]] !== risk[byRisk[i - 1]]) r++;
    rank[byRisk[i]] = r + 1;
  }
  const ranks = r + 1;
  const byTime = sortedOrder(time).reverse();
  const tree = new Float64Array(ranks + 1);
  const add = (pos: number, v: number): void => {
    for (let p = pos; p <= ranks; p += p & -p) tree[p] += v;
  };
  const prefix = (pos: number): number => {
    let s = 0;
    for (let p = pos; p > 0; p -= p & -p) s += tree[p];
    return s;
  };
  return (w) => {
    tree.fill(0);
    let total = 0;
    let num = 0;
    let den = 0;
    let i = 0;
    while (i < n) {
      let j = i;
      const t = time[byTime[i]];
      while (j < n && time[byTime[j]] === t) j++;
      for (let k = i; k < j; k++) {
        const s = byTime[k];
        if (!event[s] && w[s] > 0) {
          add(rank[s], w[s]);
          total += w[s];
        }
      }
      for (let k = i; k < j; k++) {
        const s = byTime[k];
        if (event[s] && w[s] > 0) {
          const less = prefix(rank[s] - 1);
          const equal = prefix(rank[s]) - less;
          num += w[s] * (less + 0.5 * equal);
          den += w[s] * total;
        }
      }
      for (let k = i; k < j; k++) {
        const s = byTime[k];
        if (event[s] && w[s] > 0) {
          add(rank[s], w[s]);
          total += w[s];
        }
      }
      i = j;
    }
    return den > 0 ? num / den : NaN;
  };
}

function argmaxRows(pred: Float64Array, n: number, k: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let best = 0;
    for (let c = 1; c < k; c++) if (pred[i * k + c] > pred[i * k + best]) best = c;
    out[i] = best;
  }
  return out;
}

/**
 * An evaluator of one metric on fixed predictions.
 * `pred`: classification n x K probabilities (row-major), regression predicted values, survival risk scores.
 */
export function makeEvaluator(name: string, pred: Float64Array, outcome: OutcomeArrays, classCount = 0): Evaluator {
  const y = outcome.y;
  const n = y.length;
  switch (name) {
    case AUC: {
      const score = new Float64Array(n);
      const pos = new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        score[i] = pred[i * 2 + 1];
        pos[i] = y[i] === 1 ? 1 : 0;
      }
      return aucEvaluator(score, pos);
    }
    case MEAN_AUC: {
      const evs: Evaluator[] = [];
      for (let c = 0; c < classCount; c++) {
        const score = new Float64Array(n);
        const pos = new Uint8Array(n);
        for (let i = 0; i < n; i++) {
          score[i] = pred[i * classCount + c];
          pos[i] = y[i] === c ? 1 : 0;
        }
        evs.push(aucEvaluator(score, pos));
      }
      return (w) => {
        let s = 0;
        let m = 0;
        for (const ev of evs) {
          const v = ev(w);
          if (!Number.isNaN(v)) {
            s += v;
            m++;
          }
        }
        return m > 0 ? s / m : NaN;
      };
    }
    case ACCURACY: {
      const cls = argmaxRows(pred, n, classCount);
      return (w) => {
        let ok = 0;
        let tot = 0;
        for (let i = 0; i < n; i++) {
          tot += w[i];
          if (cls[i] === y[i]) ok += w[i];
        }
        return tot > 0 ? ok / tot : NaN;
      };
    }
    case BALANCED_ACCURACY: {
      const cls = argmaxRows(pred, n, classCount);
      const ok = new Float64Array(classCount);
      const tot = new Float64Array(classCount);
      return (w) => {
        ok.fill(0);
        tot.fill(0);
        for (let i = 0; i < n; i++) {
          tot[y[i]] += w[i];
          if (cls[i] === y[i]) ok[y[i]] += w[i];
        }
        let s = 0;
        let m = 0;
        for (let c = 0; c < classCount; c++) {
          if (tot[c] > 0) {
            s += ok[c] / tot[c];
            m++;
          }
        }
        // the mean of the recalls of the classes present, defined when at least two are (for two classes: the mean
        // of Sensitivity and Specificity, undefined when either is). A sample set holding one class only gave that
        // class's recall, which raised the estimate of an imbalanced outcome (0.83 beside Sensitivity 0, Specificity 1)
        return m >= 2 ? s / m : NaN;
      };
    }
    case SENSITIVITY:
    case SPECIFICITY:
    case F1: {
      const cls = argmaxRows(pred, n, 2);
      return (w) => {
        let tp = 0;
        let fp = 0;
        let tn = 0;
        let fn = 0;
        for (let i = 0; i < n; i++) {
          if (y[i] === 1) {
            if (cls[i] === 1) tp += w[i];
            else fn += w[i];
          } else if (cls[i] === 1) fp += w[i];
          else tn += w[i];
        }
        if (name === SENSITIVITY) return tp + fn > 0 ? tp / (tp + fn) : NaN;
        if (name === SPECIFICITY) return tn + fp > 0 ? tn / (tn + fp) : NaN;
        return 2 * tp + fp + fn > 0 ? (2 * tp) / (2 * tp + fp + fn) : NaN;
      };
    }
    case R_SQUARED:
      return (w) => {
        let sw = 0;
        let sy = 0;
        for (let i = 0; i < n; i++) {
          sw += w[i];
          sy += w[i] * y[i];
        }
        if (sw <= 0) return NaN;
        const mean = sy / sw;
        let sse = 0;
        let sst = 0;
        for (let i = 0; i < n; i++) {
          sse += w[i] * (y[i] - pred[i]) ** 2;
          sst += w[i] * (y[i] - mean) ** 2;
        }
        return sst > 0 ? 1 - sse / sst : NaN;
      };
    case MAE:
    case RMSE:
      return (w) => {
        let sw = 0;
        let s = 0;
        for (let i = 0; i < n; i++) {
          sw += w[i];
          const e = y[i] - pred[i];
          s += w[i] * (name === MAE ? Math.abs(e) : e * e);
        }
        if (sw <= 0) return NaN;
        return name === MAE ? s / sw : Math.sqrt(s / sw);
      };
    case C_INDEX:
      if (!outcome.event) throw new Error('Concordance index needs event indicators');
      return concordanceEvaluator(pred, y, outcome.event);
    default:
      throw new Error(`Unknown metric ${name}`);
  }
}

const ones = (n: number): Float64Array => new Float64Array(n).fill(1);

/** Area under the ROC curve of scores for 0/1 labels (Mann-Whitney, ties count 1/2). */
export function auc(scores: ArrayLike<number>, labels: ArrayLike<number>): number {
  const pos = Uint8Array.from(labels, (v) => (v === 1 ? 1 : 0));
  return aucEvaluator(Float64Array.from(scores), pos)(ones(pos.length));
}

/** Harrell's concordance index of risk scores (higher = earlier event); event 1 = event, 0 = censored. */
export function concordanceIndex(risk: ArrayLike<number>, time: ArrayLike<number>, event: ArrayLike<number>): number {
  return concordanceEvaluator(Float64Array.from(risk), Float64Array.from(time), Float64Array.from(event))(ones(risk.length));
}

/** All metrics of a task on unweighted predictions, by name. */
export function computeMetrics(task: Task, pred: Float64Array, outcome: OutcomeArrays, classCount: number): Record<string, number> {
  const out: Record<string, number> = {};
  const w = ones(outcome.y.length);
  for (const name of metricNames(task, classCount)) out[name] = makeEvaluator(name, pred, outcome, classCount)(w);
  return out;
}
