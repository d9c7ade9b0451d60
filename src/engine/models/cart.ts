import type { Rng } from '../rng';
import { Design, Model, Target } from './common';
import { logrankRule } from './survival-tree';

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

/** A split of a node: rows with `feature <= threshold` go left. */
export interface Split {
  feature: number;
  threshold: number;
  score: number;
}

/** Fills `out` with the node's rows sorted by feature `f` (ties by row index). */
export type SortedRows = (f: number, out: Int32Array) => void;

/**
 * What a criterion decides at a node: the leaf's values and the best split. The tree grower calls it with
 * the node's rows (`idx`) and the features drawn for the node; `sortedRows` gives the rows by feature when
 * `sortedColumns` is set (the grower then keeps per-column orders down the tree, so no node sorts).
 */
export interface NodeRule {
  /** numbers per leaf */
  width: number;
  sortedColumns: boolean;
  leafValue(idx: Int32Array, out: number[]): void;
  bestSplit(idx: Int32Array, features: Int32Array, sortedRows: SortedRows): Split | null;
}

/** A threshold t with a <= t < b. */
function midpoint(a: number, b: number): number {
  const t = (a + b) / 2;
  return t < b ? t : a;
}

/**
 * Gini (classification: class proportions in leaves) or squared error (regression: means), over every
 * threshold between distinct values. `size` is the root's row count (scratch buffers reused by every node).
 */
function cartRule(X: Design, target: Target, criterion: 'gini' | 'mse', minLeafParam: number, size: number): NodeRule {
  const { y } = target;
  const d = X.cols;
  const data = X.data;
  const K = criterion === 'gini' ? (target.classCount ?? 2) : 1;
  const minLeaf = Math.max(1, minLeafParam);
  const sorted = new Int32Array(size);
  const xs = new Float64Array(size);
  const totals = new Float64Array(K);
  const left = new Float64Array(K);
  return {
    width: K,
    sortedColumns: true,
    leafValue(idx, out) {
      if (criterion === 'gini') {
        const counts = new Array<number>(K).fill(0);
        for (const i of idx) counts[y[i]]++;
        for (const c of counts) out.push(c / idx.length);
      } else {
        let s = 0;
        for (const i of idx) s += y[i];
        out.push(s / idx.length);
      }
    },
    bestSplit(idx, features, sortedRows) {
      const n = idx.length;
      let best: Split | null = null;
      let parentScore: number;
      let totalSum = 0;
      totals.fill(0);
      if (criterion === 'gini') {
        for (const i of idx) totals[y[i]]++;
        parentScore = 0;
        for (let c = 0; c < K; c++) parentScore += (totals[c] * totals[c]) / n;
      } else {
        for (const i of idx) totalSum += y[i];
        parentScore = (totalSum * totalSum) / n;
      }
      for (const f of features) {
        sortedRows(f, sorted);
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
    },
  };
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
 * Grows one tree on the rows `idx` (rows may repeat, as in a bootstrap). Survival: `idx` sorted by time, and
 * every node keeps that order. Classification and regression: `idx` sorted ascending; splits then use
 * per-column orders derived from `presorted` (computed when absent) and partitioned down the tree.
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
  const m = idx.length;
  const rule =
    criterion === 'logrank' ? logrankRule(X, target, params, rng, eventTimes) : cartRule(X, target, criterion, params.minLeaf, m);
  const feature: number[] = [];
  const threshold: number[] = [];
  const leftArr: number[] = [];
  const rightArr: number[] = [];
  const value: number[] = [];
  const d = X.cols;
  const allFeatures = Int32Array.from({ length: d }, (_, j) => j);
  const mtry = params.mtry > 0 && params.mtry < d ? params.mtry : d;
  const pool = Int32Array.from(allFeatures);

  // A node is a range [lo, hi) of positions (position p holds row idx[p]) in every order below: the orders are
  // partitioned stably at each split, so a node's positions stay contiguous and keep their relative order.
  // Sorted columns: one order per column, the rows by that column's value. Otherwise one order, idx's own.
  let orders: Int32Array[] = [Int32Array.from({ length: m }, (_, p) => p)];
  if (rule.sortedColumns && d > 0) {
    const global = presorted ?? presortRows(X);
    const count = new Int32Array(X.rows);
    const start = new Int32Array(X.rows);
    for (const r of idx) count[r]++;
    for (let p = m - 1; p >= 0; p--) start[idx[p]] = p;
    orders = global.map((g) => {
      const o = new Int32Array(m);
      let k = 0;
      for (const r of g) for (let c = 0; c < count[r]; c++) o[k++] = start[r] + c;
      return o;
    });
  }
  const base = orders[0];
  const goesLeft = new Uint8Array(m);
  const tmp = new Int32Array(m);
  const rowsBuf = new Int32Array(m);

  const grow = (lo: number, hi: number, depth: number): number => {
    const id = feature.length;
    feature.push(-1);
    threshold.push(0);
    leftArr.push(-1);
    rightArr.push(-1);
    const rows = rowsBuf.subarray(0, hi - lo);
    for (let k = lo; k < hi; k++) rows[k - lo] = idx[base[k]];
    rule.leafValue(rows, value);
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
    const split = rule.bestSplit(rows, features, (f, out) => {
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
    const l = grow(lo, lo + nLeft, depth + 1);
    const r = grow(lo + nLeft, hi, depth + 1);
    leftArr[id] = l;
    rightArr[id] = r;
    return id;
  };
  grow(0, m, 0);
  return {
    feature: Int32Array.from(feature),
    threshold: Float64Array.from(threshold),
    left: Int32Array.from(leftArr),
    right: Int32Array.from(rightArr),
    value: Float64Array.from(value),
    width: rule.width,
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
