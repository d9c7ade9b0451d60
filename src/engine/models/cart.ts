import type { Rng } from '../rng';
import { Design, Model, OnnxOutputs, Target } from './common';
import type { GraphBuilder } from '../onnx/graph';
import { treesGraph } from '../onnx/model-graphs';
import { explainedClasses, ShapleyForm } from './shapley-form';
import { logrankRule } from './survival-tree';
import { orderByRank, RankedColumns, rankColumns, rankOrderBuffers } from './rank-order';
import { NodeRule, NumberList, TreeArrays } from './tree-rule';
import { accumulateTreeBlocks } from './tree-blocks';

export type { TreeArrays } from './tree-rule';
import type { Task } from '../metrics';
import { cross, defineModelKind } from './kind';

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

/** A threshold t with a <= t < b. */
function midpoint(a: number, b: number): number {
  const t = (a + b) / 2;
  return t < b ? t : a;
}

/**
 * Gini (classification: class proportions in leaves) or squared error (regression: means), over every
 * threshold between distinct values of the node. `size` is the root's row count (scratch buffers are sized once
 * and reused by every node, and by every tree of a forest grown with the same rule). The node's rows come in ascending row order, so ordering them by a column with ties
 * kept in that order gives exactly the order of a presort with ties by row index: sums run in the same order.
 *
 * Per drawn feature, Gini counts classes per distinct value (a histogram) when the column has few distinct values
 * for the node's size; otherwise both criteria order the node's rows by rank (orderByRank) and scan them.
 * Gini's scores are sums of squared integer counts, so both ways give the same numbers to the bit.
 */
export function cartRule(
  X: Design,
  target: Target,
  criterion: 'gini' | 'mse',
  minLeafParam: number,
  size: number,
  ranked: RankedColumns,
): NodeRule {
  const y = target.y;
  const K = criterion === 'gini' ? (target.classCount ?? 2) : 1;
  const cls = criterion === 'gini' ? Int32Array.from(y) : new Int32Array(0);
  const minLeaf = Math.max(1, minLeafParam);
  const { maxDistinct, sorted, sortedRank, scratch } = rankOrderBuffers(size, ranked);
  const hist = criterion === 'gini' ? new Int32Array(maxDistinct * K) : new Int32Array(0);
  const totals = new Float64Array(K);
  const left = new Float64Array(K);
  let bestFeature = -1;
  // the best split's threshold lies between these ranks of its feature's values (midpoint once the search ends)
  let bestBelow = 0;
  let bestAbove = 0;
  let bestScore = -Infinity;
  // the node whose class counts `totals` holds (leafValue counts them, bestSplit of the same node reuses them)
  let countedLo = -1;
  let countedHi = -1;

  const order = (rows: Int32Array, lo: number, hi: number, f: number): void =>
    orderByRank(ranked.rank[f], ranked.values[f].length, rows, lo, hi, scratch, sorted, sortedRank);

  const consider = (f: number, score: number, a: number, b: number, threshold: number): void => {
    if (score > threshold && score > bestScore) {
      bestScore = score;
      bestFeature = f;
      bestBelow = a;
      bestAbove = b;
    }
  };

  const giniHistogram = (rows: Int32Array, lo: number, hi: number, f: number, parentScore: number): void => {
    const n = hi - lo;
    const rank = ranked.rank[f];
    const values = ranked.values[f];
    const R = values.length;
    hist.fill(0, 0, R * K);
    for (let k = lo; k < hi; k++) {
      const r = rows[k];
      hist[rank[r] * K + cls[r]]++;
    }
    left.fill(0);
    let sqL = 0;
    let sqR = 0;
    for (let c = 0; c < K; c++) sqR += totals[c] * totals[c];
    let nL = 0;
    let prev = -1;
    for (let q = 0; q < R; q++) {
      const base = q * K;
      let cnt = 0;
      for (let c = 0; c < K; c++) cnt += hist[base + c];
      if (cnt === 0) continue;
      if (prev >= 0 && nL >= minLeaf && n - nL >= minLeaf) consider(f, sqL / nL + sqR / (n - nL), prev, q, parentScore + 1e-12);
      for (let c = 0; c < K; c++) {
        const h = hist[base + c];
        if (h === 0) continue;
        sqL += 2 * left[c] * h + h * h;
        sqR -= 2 * (totals[c] - left[c]) * h - h * h;
        left[c] += h;
      }
      nL += cnt;
      prev = q;
    }
  };

  return {
    width: K,
    leafValue(rows, lo, hi, out) {
      const n = hi - lo;
      if (criterion === 'gini') {
        totals.fill(0);
        for (let k = lo; k < hi; k++) totals[cls[rows[k]]]++;
        for (let c = 0; c < K; c++) out.push(totals[c] / n);
        countedLo = lo;
        countedHi = hi;
      } else {
        let s = 0;
        for (let k = lo; k < hi; k++) s += y[rows[k]];
        out.push(s / n);
      }
    },
    bestSplit(rows, lo, hi, features) {
      const n = hi - lo;
      bestFeature = -1;
      bestScore = -Infinity;
      let parentScore: number;
      let totalSum = 0;
      if (criterion === 'gini') {
        if (countedLo !== lo || countedHi !== hi) {
          totals.fill(0);
          for (let k = lo; k < hi; k++) totals[cls[rows[k]]]++;
        }
        countedLo = -1;
        parentScore = 0;
        for (let c = 0; c < K; c++) parentScore += (totals[c] * totals[c]) / n;
      } else {
        for (let k = lo; k < hi; k++) totalSum += y[rows[k]];
        parentScore = (totalSum * totalSum) / n;
      }
      for (const f of features) {
        const values = ranked.values[f];
        if (criterion === 'gini' && values.length * K <= 2 * n) {
          giniHistogram(rows, lo, hi, f, parentScore);
          continue;
        }
        order(rows, lo, hi, f);
        if (sortedRank[0] === sortedRank[n - 1]) continue;
        if (criterion === 'gini') {
          left.fill(0);
          let sqL = 0;
          let sqR = 0;
          for (let c = 0; c < K; c++) sqR += totals[c] * totals[c];
          for (let m = 0; m < n - 1; m++) {
            const c = cls[sorted[m]];
            sqL += 2 * left[c] + 1;
            sqR -= 2 * (totals[c] - left[c]) - 1;
            left[c]++;
            const nL = m + 1;
            if (sortedRank[m] === sortedRank[m + 1] || nL < minLeaf || n - nL < minLeaf) continue;
            consider(f, sqL / nL + sqR / (n - nL), sortedRank[m], sortedRank[m + 1], parentScore + 1e-12);
          }
        } else {
          let sL = 0;
          const threshold = parentScore + 1e-9 * Math.abs(parentScore) + 1e-12;
          for (let m = 0; m < n - 1; m++) {
            sL += y[sorted[m]];
            const nL = m + 1;
            if (sortedRank[m] === sortedRank[m + 1] || nL < minLeaf || n - nL < minLeaf) continue;
            const sR = totalSum - sL;
            consider(f, (sL * sL) / nL + (sR * sR) / (n - nL), sortedRank[m], sortedRank[m + 1], threshold);
          }
        }
      }
      if (bestFeature < 0) return null;
      const values = ranked.values[bestFeature];
      return {
        feature: bestFeature,
        threshold: midpoint(values[bestBelow], values[bestAbove]),
        score: bestScore,
        ranks: { rank: ranked.rank[bestFeature], below: bestBelow },
      };
    },
  };
}

/**
 * A tree's nodes while it grows, in typed arrays that grow by doubling (a forest reuses one for all its trees);
 * `toTree` copies them out into one buffer.
 */
export class NodeLists {
  count = 0;
  feature = new Int32Array(64);
  threshold = new Float64Array(64);
  left = new Int32Array(64);
  right = new Int32Array(64);
  value = new NumberList();

  /** A new node, a leaf until it is split: its id. */
  add(): number {
    if (this.count === this.feature.length) {
      const grow = <A extends Int32Array | Float64Array>(a: A): A => {
        const b = new (a.constructor as new (n: number) => A)(2 * a.length);
        b.set(a);
        return b;
      };
      this.feature = grow(this.feature);
      this.threshold = grow(this.threshold);
      this.left = grow(this.left);
      this.right = grow(this.right);
    }
    const id = this.count++;
    this.feature[id] = -1;
    this.threshold[id] = 0;
    this.left[id] = -1;
    this.right[id] = -1;
    return id;
  }

  toTree(width: number): TreeArrays {
    const n = this.count;
    const v = this.value.length;
    // the doubles first, so that every view is aligned
    const buffer = new ArrayBuffer(8 * (n + v) + 4 * 3 * n);
    const threshold = new Float64Array(buffer, 0, n);
    const value = new Float64Array(buffer, 8 * n, v);
    const feature = new Int32Array(buffer, 8 * (n + v), n);
    const left = new Int32Array(buffer, 8 * (n + v) + 4 * n, n);
    const right = new Int32Array(buffer, 8 * (n + v) + 8 * n, n);
    threshold.set(this.threshold.subarray(0, n));
    value.set(this.value.data.subarray(0, v));
    feature.set(this.feature.subarray(0, n));
    left.set(this.left.subarray(0, n));
    right.set(this.right.subarray(0, n));
    return { feature, threshold, left, right, value, width };
  }
}

/**
 * What the trees of one forest share: the CART rule (a cartRule sized for at least as many rows as a tree is grown
 * on, with its scratch buffers) and the lists each tree's nodes are built in before they are copied out.
 */
export interface SharedTreeScratch {
  cart?: NodeRule;
  nodes: NodeLists;
}

/**
 * Grows one tree on the rows `idx` (rows may repeat, as in a bootstrap). Survival: `idx` sorted by time.
 * Classification and regression: `idx` sorted ascending; splits use the columns' ranks through `shared.cart`
 * (built here when absent). Every node keeps its rows in idx's order: a split partitions the node's range of one row buffer stably.
 */
export function growTree(
  X: Design,
  target: Target,
  idx: Int32Array,
  criterion: Criterion,
  params: TreeParams,
  rng: Rng,
  eventTimes: Float64Array = new Float64Array(0),
  shared?: SharedTreeScratch,
): TreeArrays {
  const m = idx.length;
  const rule =
    criterion === 'logrank'
      ? logrankRule(X, target, params, rng, eventTimes)
      : (shared?.cart ?? cartRule(X, target, criterion, params.minLeaf, m, rankColumns(X)));
  const nodes = shared?.nodes ?? new NodeLists();
  nodes.count = 0;
  const value = nodes.value;
  value.length = 0;
  const d = X.cols;
  const data = X.data;
  const y = target.y;
  const allFeatures = Int32Array.from({ length: d }, (_, j) => j);
  const mtry = params.mtry > 0 && params.mtry < d ? params.mtry : d;
  const pool = Int32Array.from(allFeatures);
  // a view of the pool's first mtry entries, which each node redraws in place
  const drawn = pool.subarray(0, mtry);
  const minNode = 2 * Math.max(1, params.minLeaf);
  const rows = Int32Array.from(idx);
  const tmp = new Int32Array(m);

  const grow = (lo: number, hi: number, depth: number): number => {
    const id = nodes.add();
    rule.leafValue(rows, lo, hi, value);
    if (depth >= params.maxDepth || hi - lo < minNode) return id;
    if (criterion === 'gini') {
      const first = y[rows[lo]];
      let k = lo + 1;
      while (k < hi && y[rows[k]] === first) k++;
      if (k === hi) return id;
    }
    let features = allFeatures;
    if (mtry < d) {
      for (let k = 0; k < mtry; k++) {
        const j = k + rng.int(d - k);
        const t = pool[k];
        pool[k] = pool[j];
        pool[j] = t;
      }
      features = drawn;
    }
    const split = rule.bestSplit(rows, lo, hi, features);
    if (!split) return id;
    // stable partition of [lo, hi): left rows in place, right rows through tmp
    const f = split.feature;
    const thr = split.threshold;
    let a = lo;
    let b = 0;
    if (split.ranks) {
      // the same rows as the threshold's test (it lies between the values of ranks `below` and below + 1), read from
      // the feature's ranks: one column's array rather than a stride through the rows of the design
      const { rank, below } = split.ranks;
      for (let k = lo; k < hi; k++) {
        const r = rows[k];
        if (rank[r] <= below) rows[a++] = r;
        else tmp[b++] = r;
      }
    } else {
      for (let k = lo; k < hi; k++) {
        const r = rows[k];
        if (data[r * d + f] <= thr) rows[a++] = r;
        else tmp[b++] = r;
      }
    }
    const nLeft = a - lo;
    for (let k = 0; k < b; k++) rows[a + k] = tmp[k];
    if (nLeft === 0 || nLeft === hi - lo) return id;
    nodes.feature[id] = f;
    nodes.threshold[id] = thr;
    const l = grow(lo, lo + nLeft, depth + 1);
    const r = grow(lo + nLeft, hi, depth + 1);
    nodes.left[id] = l;
    nodes.right[id] = r;
    return id;
  };
  grow(0, m, 0);
  return nodes.toTree(rule.width);
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

  predictBlocks(X: Design, blocks: number, varying: Uint8Array): Float64Array {
    const out = new Float64Array(X.rows * this.tree.width);
    accumulateTreeBlocks(this.tree, X, blocks, varying, out, 1);
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

  /** Classification: the probability of each class explained (leaf class shares); regression: the prediction. */
  shapleyForm(): ShapleyForm {
    const classification = this.task === 'classification';
    return {
      kind: 'trees',
      scale: classification ? 'probability' : 'prediction',
      trees: [this.tree],
      columns: classification ? explainedClasses(this.tree.width) : [0],
    };
  }

  /** Its ONNX part: the leaf's values (class proportions or the mean), reached by the same comparisons. */
  onnx(g: GraphBuilder, X: string): OnnxOutputs {
    const out = treesGraph(g, X, [this.tree], 1);
    return this.task === 'classification' ? { probabilities: out } : { value: out };
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

/** CART trees each thoroughness tries (max depth x min leaf): 4 x 5; 4 settings; 5 depths x 5 leaf sizes. */
const TREES = {
  preliminary: [{ maxDepth: 4, minLeaf: 5 }],
  typical: [
    { maxDepth: 3, minLeaf: 5 },
    { maxDepth: 5, minLeaf: 5 },
    { maxDepth: 8, minLeaf: 3 },
    { maxDepth: 5, minLeaf: 20 },
  ],
  extensive: cross([2, 3, 4, 6, 8], [1, 3, 5, 10, 20]).map(([maxDepth, minLeaf]) => ({ maxDepth, minLeaf })),
};

export type TreeSpec = { kind: 'tree'; maxDepth: number; minLeaf: number };

/** CART decision trees (classification and regression): interpretable, their rules shown when small. */
export const TREE = defineModelKind({
  kind: 'tree',
  classes: { tree: DecisionTree },
  interpretable: true,
  tasks: ['classification', 'regression'],
  grid: (level): TreeSpec[] => TREES[level].map((t) => ({ kind: 'tree', ...t })),
  families: { tree: 1 },
  family: () => 'tree',
  flexibility: (s: TreeSpec) => s.maxDepth * 1000 - s.minLeaf,
  create(s: TreeSpec, task: Task) {
    if (task === 'survival') throw new Error('No survival decision tree');
    return new DecisionTree(task, s.maxDepth, s.minLeaf);
  },
  describe: (s: TreeSpec, task: Task) =>
    `Decision tree (CART, ${task === 'classification' ? 'Gini' : 'squared error'} splits, max depth ${s.maxDepth}, at least ${s.minLeaf} samples per leaf)`,
});
