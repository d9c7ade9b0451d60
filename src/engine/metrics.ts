/**
 * Performance metrics with the names of docs/decisions.md. Every metric accepts per-sample weights
 * (bootstrap multiplicities; 0 leaves a sample out), so BBC-CV can re-score the same predictions
 * thousands of times: `makeEvaluator` sorts once, then each evaluation is O(n) (O(n log n) for the C-index).
 */

import { aucBatchEvaluator, aucEvaluator, BatchEvaluator, Evaluator, sortedOrder } from './auc';

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

/** The metrics a BatchEvaluator computes (makeBatchEvaluator). */
export function batchable(name: string): boolean {
  return name === AUC || name === MEAN_AUC;
}

/**
 * A BatchEvaluator of one metric on fixed predictions (arguments as makeEvaluator's), for the metrics `batchable`
 * names: its values are the Evaluator's to the bit.
 */
export function makeBatchEvaluator(name: string, pred: Float64Array, outcome: OutcomeArrays, classCount = 0): BatchEvaluator {
  const { y } = outcome;
  const n = y.length;
  const classAuc = (c: number, K: number): BatchEvaluator => {
    const score = new Float64Array(n);
    const pos = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      score[i] = pred[i * K + c];
      pos[i] = y[i] === c ? 1 : 0;
    }
    return aucBatchEvaluator(score, pos);
  };
  if (name === AUC) return classAuc(1, 2);
  if (name !== MEAN_AUC) throw new Error(`No batch evaluator of ${name}`);
  const evs = Array.from({ length: classCount }, (_, c) => classAuc(c, classCount));
  let v = new Float64Array(0);
  let s = v;
  let m = v;
  // as MEAN_AUC's Evaluator: the classes' values summed in class order, NaNs left out
  return (W, stride, count, out) => {
    if (v.length < count) [v, s, m] = [new Float64Array(count), new Float64Array(count), new Float64Array(count)];
    s.fill(0, 0, count);
    m.fill(0, 0, count);
    for (const ev of evs) {
      ev(W, stride, count, v);
      for (let b = 0; b < count; b++) {
        if (Number.isNaN(v[b])) continue;
        s[b] += v[b];
        m[b]++;
      }
    }
    for (let b = 0; b < count; b++) out[b] = m[b] > 0 ? s[b] / m[b] : NaN;
  };
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
