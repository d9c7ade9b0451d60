import type { Rng } from '../rng';
import { Design, Model, Target } from './common';

/** Split criterion: Gini (classification), squared error (regression), log-rank (survival). */
export type Criterion = 'gini' | 'mse' | 'logrank';

export interface TreeParams {
  maxDepth: number;
  minLeaf: number;
  /** features tried at each node; 0 = all */
  mtry: number;
  /** survival: random thresholds tried per feature */
  nsplit: number;
}

/** A fitted tree in flat arrays; node 0 is the root, `feature[k] < 0` marks a leaf. */
export interface TreeArrays {
  feature: Int32Array;
  threshold: Float64Array;
  left: Int32Array;
  right: Int32Array;
  /** `width` numbers per node (class proportions, mean, or survival mortality) */
  value: Float64Array;
  width: number;
}

interface GrowContext {
  X: Design;
  target: Target;
  criterion: Criterion;
  params: TreeParams;
  rng: Rng;
  width: number;
  /** survival: sorted distinct event times of the training set */
  eventTimes: Float64Array;
  /** scratch buffers of the root's size, reused by every node */
  scratchSorted?: Int32Array;
  scratchXs?: Float64Array;
}

/** Sorted distinct times with an event. */
export function distinctEventTimes(time: Float64Array, event: Float64Array, rows?: Int32Array): Float64Array {
  const vals: number[] = [];
  const idx = rows ?? Int32Array.from({ length: time.length }, (_, i) => i);
  for (const i of idx) if (event[i]) vals.push(time[i]);
  vals.sort((a, b) => a - b);
  return Float64Array.from(vals.filter((v, i) => i === 0 || v !== vals[i - 1]));
}

function leafValue(ctx: GrowContext, idx: Int32Array, out: number[]): void {
  const { y, event } = ctx.target;
  if (ctx.criterion === 'gini') {
    const counts = new Array<number>(ctx.width).fill(0);
    for (const i of idx) counts[y[i]]++;
    for (const c of counts) out.push(c / idx.length);
  } else if (ctx.criterion === 'mse') {
    let s = 0;
    for (const i of idx) s += y[i];
    out.push(s / idx.length);
  } else {
    // Nelson-Aalen in the leaf, summed over the training event times (Ishwaran's ensemble mortality).
    const ev = event as Float64Array;
    const times = ctx.eventTimes;
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
        let lo = 0;
        let hi = times.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (times[mid] < t) lo = mid + 1;
          else hi = mid;
        }
        mortality += (deaths / atRisk) * (times.length - lo);
      }
      atRisk -= k - m;
      m = k;
    }
    out.push(mortality);
  }
}

function logrank(ctx: GrowContext, idx: Int32Array, isLeft: Uint8Array, nLeft: number): number {
  const { y } = ctx.target;
  const ev = ctx.target.event as Float64Array;
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

/** A threshold t with a <= t < b. */
function midpoint(a: number, b: number): number {
  const t = (a + b) / 2;
  return t < b ? t : a;
}

interface Split {
  feature: number;
  threshold: number;
  score: number;
}

/** Fills `out` with the node's rows sorted by feature `f` (ties by row index). */
type SortedRows = (f: number, out: Int32Array) => void;

function bestSplit(ctx: GrowContext, idx: Int32Array, features: Int32Array, sortedRows?: SortedRows): Split | null {
  const { X, target, criterion, params } = ctx;
  const { y } = target;
  const n = idx.length;
  const d = X.cols;
  const data = X.data;
  let best: Split | null = null;
  const minLeaf = Math.max(1, params.minLeaf);
  if (criterion === 'logrank') {
    const isLeft = new Uint8Array(n);
    for (const f of features) {
      for (let s = 0; s < params.nsplit; s++) {
        const thr = data[idx[ctx.rng.int(n)] * d + f];
        let nLeft = 0;
        for (let m = 0; m < n; m++) {
          isLeft[m] = data[idx[m] * d + f] <= thr ? 1 : 0;
          nLeft += isLeft[m];
        }
        if (nLeft < minLeaf || n - nLeft < minLeaf) continue;
        const score = logrank(ctx, idx, isLeft, nLeft);
        if (!best || score > best.score) best = { feature: f, threshold: thr, score };
      }
    }
    return best;
  }
  const K = ctx.width;
  const sorted = sortedRows && ctx.scratchSorted ? ctx.scratchSorted : new Int32Array(n);
  const xs = ctx.scratchXs ?? new Float64Array(n);
  let parentScore: number;
  const totals = new Float64Array(K);
  let totalSum = 0;
  if (criterion === 'gini') {
    for (const i of idx) totals[y[i]]++;
    parentScore = 0;
    for (let c = 0; c < K; c++) parentScore += (totals[c] * totals[c]) / n;
  } else {
    for (const i of idx) totalSum += y[i];
    parentScore = (totalSum * totalSum) / n;
  }
  const left = new Float64Array(K);
  for (const f of features) {
    if (sortedRows) sortedRows(f, sorted);
    else {
      sorted.set(idx);
      sorted.sort((a, b) => data[a * d + f] - data[b * d + f] || a - b);
    }
    for (let m = 0; m < n; m++) xs[m] = data[sorted[m] * d + f];
    if (xs[0] === xs[n - 1]) continue;
    if (criterion === 'gini') {
      left.fill(0);
      let sqL = 0;
      let sqR = 0;
      for (let c = 0; c < K; c++) sqR += totals[c] * totals[c];
      for (let m = 0; m < n - 1; m++) {
        const c = y[sorted[m]];
        sqL += 2 * left[c] + 1;
        sqR -= 2 * (totals[c] - left[c]) - 1;
        left[c]++;
        const nL = m + 1;
        if (xs[m] === xs[m + 1] || nL < minLeaf || n - nL < minLeaf) continue;
        const score = sqL / nL + sqR / (n - nL);
        if (score > parentScore + 1e-12 && (!best || score > best.score))
          best = { feature: f, threshold: midpoint(xs[m], xs[m + 1]), score };
      }
    } else {
      let sL = 0;
      for (let m = 0; m < n - 1; m++) {
        sL += y[sorted[m]];
        const nL = m + 1;
        if (xs[m] === xs[m + 1] || nL < minLeaf || n - nL < minLeaf) continue;
        const sR = totalSum - sL;
        const score = (sL * sL) / nL + (sR * sR) / (n - nL);
        if (score > parentScore + 1e-9 * Math.abs(parentScore) + 1e-12 && (!best || score > best.score))
          best = { feature: f, threshold: midpoint(xs[m], xs[m + 1]), score };
      }
    }
  }
  return best;
}

/** For each column, all rows sorted by value (ties by row index); shared by the trees of a forest. */
export function presortRows(X: Design): Int32Array[] {
  const { rows: n, cols: d, data } = X;
  return Array.from({ length: d }, (_, f) => {
    const o = Int32Array.from({ length: n }, (_, i) => i);
    o.sort((a, b) => data[a * d + f] - data[b * d + f] || a - b);
    return o;
  });
}

/**
 * Grows one tree on the rows `idx`. Survival: `idx` sorted by time. Classification and regression: `idx`
 * sorted ascending (rows may repeat, as in a bootstrap); splits then use per-column orders derived from
 * `presorted` (computed when absent) and partitioned down the tree, so no node sorts.
 */
export function growTree(
  X: Design,
  target: Target,
  idx: Int32Array,
  criterion: Criterion,
  params: TreeParams,
  rng: Rng,
  eventTimes: Float64Array = new Float64Array(0),
  presorted?: Int32Array[],
): TreeArrays {
  const width = criterion === 'gini' ? (target.classCount ?? 2) : 1;
  const ctx: GrowContext = { X, target, criterion, params, rng, width, eventTimes };
  const feature: number[] = [];
  const threshold: number[] = [];
  const leftArr: number[] = [];
  const rightArr: number[] = [];
  const value: number[] = [];
  const d = X.cols;
  const allFeatures = Int32Array.from({ length: d }, (_, j) => j);
  const mtry = params.mtry > 0 && params.mtry < d ? params.mtry : d;
  const pool = Int32Array.from(allFeatures);

  const grow = (rows: Int32Array, depth: number): number => {
    const id = feature.length;
    feature.push(-1);
    threshold.push(0);
    leftArr.push(-1);
    rightArr.push(-1);
    leafValue(ctx, rows, value);
    if (depth >= params.maxDepth || rows.length < 2 * Math.max(1, params.minLeaf)) return id;
    if (criterion === 'gini') {
      const first = target.y[rows[0]];
      if (rows.every((i) => target.y[i] === first)) return id;
    }
    let features = allFeatures;
    if (mtry < d) {
      for (let k = 0; k < mtry; k++) {
        const j = k + rng.int(d - k);
        const t = pool[k];
        pool[k] = pool[j];
        pool[j] = t;
      }
      features = pool.slice(0, mtry);
    }
    const split = bestSplit(ctx, rows, features);
    if (!split) return id;
    const lRows: number[] = [];
    const rRows: number[] = [];
    for (const i of rows) (X.data[i * d + split.feature] <= split.threshold ? lRows : rRows).push(i);
    if (lRows.length === 0 || rRows.length === 0) return id;
    feature[id] = split.feature;
    threshold[id] = split.threshold;
    const l = grow(Int32Array.from(lRows), depth + 1);
    const r = grow(Int32Array.from(rRows), depth + 1);
    leftArr[id] = l;
    rightArr[id] = r;
    return id;
  };
  if (criterion === 'logrank') grow(idx, 0);
  else {
    // position p holds row idx[p]; every column's order lists the positions of a node contiguously
    const m = idx.length;
    const global = presorted ?? presortRows(X);
    const count = new Int32Array(X.rows);
    const start = new Int32Array(X.rows);
    for (const r of idx) count[r]++;
    for (let p = m - 1; p >= 0; p--) start[idx[p]] = p;
    const orders = global.map((g) => {
      const o = new Int32Array(m);
      let k = 0;
      for (const r of g) for (let c = 0; c < count[r]; c++) o[k++] = start[r] + c;
      return o;
    });
    const base = orders[0] ?? Int32Array.from({ length: m }, (_, p) => p);
    const goesLeft = new Uint8Array(m);
    const tmp = new Int32Array(m);
    const rowsBuf = new Int32Array(m);
    ctx.scratchSorted = new Int32Array(m);
    ctx.scratchXs = new Float64Array(m);
    const growSorted = (lo: number, hi: number, depth: number): number => {
      const id = feature.length;
      feature.push(-1);
      threshold.push(0);
      leftArr.push(-1);
      rightArr.push(-1);
      const rows = rowsBuf.subarray(0, hi - lo);
      for (let k = lo; k < hi; k++) rows[k - lo] = idx[base[k]];
      leafValue(ctx, rows, value);
      if (depth >= params.maxDepth || rows.length < 2 * Math.max(1, params.minLeaf)) return id;
      if (criterion === 'gini') {
        const first = target.y[rows[0]];
        let pure = true;
        for (let k = 1; k < rows.length && pure; k++) pure = target.y[rows[k]] === first;
        if (pure) return id;
      }
      let features = allFeatures;
      if (mtry < d) {
        for (let k = 0; k < mtry; k++) {
          const j = k + rng.int(d - k);
          const t = pool[k];
          pool[k] = pool[j];
          pool[j] = t;
        }
        features = pool.subarray(0, mtry);
      }
      const split = bestSplit(ctx, rows, features, (f, out) => {
        const o = orders[f];
        for (let k = lo; k < hi; k++) out[k - lo] = idx[o[k]];
      });
      if (!split) return id;
      let nLeft = 0;
      for (let k = lo; k < hi; k++) {
        const p = base[k];
        const left = X.data[idx[p] * d + split.feature] <= split.threshold ? 1 : 0;
        goesLeft[p] = left;
        nLeft += left;
      }
      if (nLeft === 0 || nLeft === hi - lo) return id;
      for (const o of orders) {
        let a = lo;
        let b = lo + nLeft;
        for (let k = lo; k < hi; k++) {
          const p = o[k];
          if (goesLeft[p]) tmp[a++] = p;
          else tmp[b++] = p;
        }
        o.set(tmp.subarray(lo, hi), lo);
      }
      feature[id] = split.feature;
      threshold[id] = split.threshold;
      const l = growSorted(lo, lo + nLeft, depth + 1);
      const r = growSorted(lo + nLeft, hi, depth + 1);
      leftArr[id] = l;
      rightArr[id] = r;
      return id;
    };
    growSorted(0, m, 0);
  }
  return {
    feature: Int32Array.from(feature),
    threshold: Float64Array.from(threshold),
    left: Int32Array.from(leftArr),
    right: Int32Array.from(rightArr),
    value: Float64Array.from(value),
    width,
  };
}

/** Adds each row's leaf value, times `scale`, to `out` (n x width). */
export function accumulateTree(tree: TreeArrays, X: Design, out: Float64Array, scale: number): void {
  const d = X.cols;
  const w = tree.width;
  for (let i = 0; i < X.rows; i++) {
    let k = 0;
    while (tree.feature[k] >= 0) k = X.data[i * d + tree.feature[k]] <= tree.threshold[k] ? tree.left[k] : tree.right[k];
    for (let c = 0; c < w; c++) out[i * w + c] += scale * tree.value[k * w + c];
  }
}

export function treeToJSON(t: TreeArrays): Record<string, unknown> {
  return {
    feature: Array.from(t.feature),
    threshold: Array.from(t.threshold),
    left: Array.from(t.left),
    right: Array.from(t.right),
    value: Array.from(t.value),
    width: t.width,
  };
}

export function treeFromJSON(j: Record<string, unknown>): TreeArrays {
  return {
    feature: Int32Array.from(j.feature as number[]),
    threshold: Float64Array.from(j.threshold as number[]),
    left: Int32Array.from(j.left as number[]),
    right: Int32Array.from(j.right as number[]),
    value: Float64Array.from(j.value as number[]),
    width: j.width as number,
  };
}

/** Rows sorted by time (ties by index), as survival trees need. */
export function sortByTime(rows: Int32Array, time: Float64Array): Int32Array {
  return Int32Array.from(rows).sort((a, b) => time[a] - time[b] || a - b);
}

/** CART decision tree (classification: Gini, class proportions in leaves; regression: squared error, means). */
export class DecisionTree implements Model {
  outputWidth = 1;
  tree: TreeArrays;

  constructor(
    readonly task: 'classification' | 'regression',
    readonly maxDepth: number,
    readonly minLeaf: number,
  ) {}

  fit(X: Design, target: Target, rng: Rng): this {
    const idx = Int32Array.from({ length: X.rows }, (_, i) => i);
    const criterion: Criterion = this.task === 'classification' ? 'gini' : 'mse';
    this.tree = growTree(X, target, idx, criterion, { maxDepth: this.maxDepth, minLeaf: this.minLeaf, mtry: 0, nsplit: 0 }, rng);
    this.outputWidth = this.tree.width;
    return this;
  }

  predict(X: Design): Float64Array {
    const out = new Float64Array(X.rows * this.tree.width);
    accumulateTree(this.tree, X, out, 1);
    return out;
  }

  /** Number of leaves. */
  leafCount(): number {
    let c = 0;
    for (const f of this.tree.feature) if (f < 0) c++;
    return c;
  }

  /**
   * The tree as nested rules, e.g. `if age <= 61.5 then (...) else (...)`. `condition(column, threshold)`
   * renders a split ("x <= t" on the design column), `leaf(values)` a leaf.
   */
  rules(condition: (column: number, threshold: number) => string, leaf: (values: number[]) => string): string {
    const t = this.tree;
    const render = (k: number): string => {
      if (t.feature[k] < 0) return leaf(Array.from(t.value.subarray(k * t.width, (k + 1) * t.width)));
      return `if ${condition(t.feature[k], t.threshold[k])} then (${render(t.left[k])}) else (${render(t.right[k])})`;
    };
    return render(0);
  }

  toJSON(): Record<string, unknown> {
    return { type: 'tree', task: this.task, maxDepth: this.maxDepth, minLeaf: this.minLeaf, tree: treeToJSON(this.tree) };
  }

  static fromJSON(json: Record<string, unknown>): DecisionTree {
    const m = new DecisionTree(json.task as 'classification' | 'regression', json.maxDepth as number, json.minLeaf as number);
    m.tree = treeFromJSON(json.tree as Record<string, unknown>);
    m.outputWidth = m.tree.width;
    return m;
  }
}
