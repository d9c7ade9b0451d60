import type { TreeArrays } from '../models/tree-rule';
import { addByMasks, backgroundMasks, MASK_PLAYERS } from './tree-masks';
import type { ExplainedRows, ShapleyInput } from './types';

/**
 * The weights of a leaf reached under constraints: a leaf that the hybrid row reaches exactly when the a players of A
 * take the explained row's values and the b players of B the background row's is the game v(S) = value x [A in S,
 * B outside S]. Its Shapley value is value x (a - 1)! b! / (a + b)! for each player of A and -value x a! (b - 1)! /
 * (a + b)! for each of B. table[a * (m + 1) + b] = a! b! / (a + b + 1)!: the weight of A's players is table at
 * (a - 1, b), of B's at (a, b - 1).
 */
function leafWeights(m: number): Float64Array {
  const table = new Float64Array((m + 1) * (m + 1));
  for (let a = 0; a <= m; a++)
    for (let b = 0; a + b <= m; b++) {
      // a! b! / (a + b + 1)! as a product of ratios, never a large factorial
      let w = 1 / (a + b + 1);
      for (let k = 1; k <= Math.min(a, b); k++) w *= k / (Math.max(a, b) + k);
      table[a * (m + 1) + b] = w;
    }
  return table;
}

/**
 * The walk down one tree for one explained row and a group of background rows at once, in module variables (set by
 * treeShapley before each walk): this is the hot loop of every tree model's explanation, and plain variables keep it
 * free of property loads. The group is rows[lo, hi) of `group`, background rows that share the path's constraints
 * (A and B) so far; a node splits it only where its rows go different ways, a leaf adds its value once for the group.
 */
/** each node's player (-1 at a leaf), the explained row's next node from each node, the background rows' (rows x nodes) */
let nodePlayer: Int32Array = new Int32Array(0);
let xNext: Int32Array = new Int32Array(0);
let bNext: Int32Array = new Int32Array(0);
let nodeCount = 0;
/** background rows, grouped in place */
let group: Int32Array = new Int32Array(0);
/**
 * each leaf's explained values that are not 0, in the order of the columns explained: those of leaf k at
 * [leafStart[k], leafStart[k + 1]) of leafHead (the explained column's position) and leafNonzero (its value). A pure
 * leaf of a classification tree holds one: its class.
 */
let leafStart: Int32Array = new Int32Array(0);
let leafHead: Int32Array = new Int32Array(0);
let leafNonzero: Float64Array = new Float64Array(0);
/** each player's state on the path: 0 free, 1 in A (x's side), 2 in B (b's side); A and B listed, sizeA and sizeB long */
let state: Int8Array = new Int8Array(0);
let listA: Int32Array = new Int32Array(0);
let listB: Int32Array = new Int32Array(0);
let sizeA = 0;
let sizeB = 0;
let weights: Float64Array = new Float64Array(0);
let stride = 1;
/** heads x players, added to */
let phi: Float64Array = new Float64Array(0);
let playerCount = 0;

/** Moves the rows of group[lo, hi) whose next node from k is `to` first; returns where the others start. */
function partition(k: number, to: number, lo: number, hi: number): number {
  let m = lo;
  for (let q = lo; q < hi; q++) {
    const r = group[q];
    if (bNext[r * nodeCount + k] === to) {
      group[q] = group[m];
      group[m++] = r;
    }
  }
  return m;
}

function walk(from: number, lo: number, hi: number): void {
  let k = from;
  for (;;) {
    const p = nodePlayer[k];
    if (p < 0) {
      const a = sizeA;
      const b = sizeB;
      if (a + b === 0) return;
      const count = hi - lo;
      const wA = a > 0 ? count * weights[(a - 1) * stride + b] : 0;
      const wB = b > 0 ? count * weights[a * stride + b - 1] : 0;
      for (let e = leafStart[k]; e < leafStart[k + 1]; e++) {
        const v = leafNonzero[e];
        const row = leafHead[e] * playerCount;
        for (let q = 0; q < a; q++) phi[row + listA[q]] += v * wA;
        for (let q = 0; q < b; q++) phi[row + listB[q]] -= v * wB;
      }
      return;
    }
    const xk = xNext[k];
    const s = state[p];
    if (s === 1) {
      k = xk;
      continue;
    }
    // the rows that go x's way first
    const m = partition(k, xk, lo, hi);
    if (s === 2) {
      // each row its own way: those with x, then the others
      if (m > lo && m < hi) walk(xk, lo, m);
      if (m === hi) k = xk;
      else {
        lo = m;
        k = bNext[group[m] * nodeCount + k];
      }
      continue;
    }
    if (m === hi) {
      k = xk;
      continue;
    }
    // rows with x go on with the player free; the others part from x here: on x's side (A), then on theirs (B)
    if (m > lo) walk(xk, lo, m);
    state[p] = 1;
    listA[sizeA++] = p;
    walk(xk, m, hi);
    sizeA--;
    state[p] = 2;
    listB[sizeB++] = p;
    walk(bNext[group[m] * nodeCount + k], m, hi);
    sizeB--;
    state[p] = 0;
    return;
  }
}

/** Each row's next node from every split node of the tree (its own leaf's index at a leaf), row-major (rows x nodes). */
function nextNodes(tree: TreeArrays, X: { data: Float64Array; rows: number; cols: number }): Int32Array {
  const { feature, threshold, left, right } = tree;
  const nodes = feature.length;
  const out = new Int32Array(X.rows * nodes);
  for (let r = 0; r < X.rows; r++)
    for (let k = 0; k < nodes; k++) {
      const f = feature[k];
      out[r * nodes + k] = f < 0 ? k : X.data[r * X.cols + f] <= threshold[k] ? left[k] : right[k];
    }
  return out;
}

/** The leaf a row reaches, from its next nodes at offset `off`. */
function leafOf(tree: TreeArrays, next: Int32Array, off: number): number {
  let k = 0;
  while (tree.feature[k] >= 0) k = next[off + k];
  return k;
}

/** Fills leafStart, leafHead and leafNonzero for `tree`'s leaves and the explained `columns`. */
function nonzeroLeafValues(tree: TreeArrays, columns: number[]): void {
  const nodes = tree.feature.length;
  if (leafStart.length < nodes + 1) leafStart = new Int32Array(nodes + 1);
  let count = 0;
  for (let k = 0; k < nodes; k++) if (tree.feature[k] < 0) for (const c of columns) if (tree.value[k * tree.width + c] !== 0) count++;
  if (leafHead.length < count) [leafHead, leafNonzero] = [new Int32Array(count), new Float64Array(count)];
  let e = 0;
  for (let k = 0; k < nodes; k++) {
    leafStart[k] = e;
    if (tree.feature[k] >= 0) continue;
    columns.forEach((c, h) => {
      const v = tree.value[k * tree.width + c];
      if (v === 0) return;
      leafHead[e] = h;
      leafNonzero[e++] = v;
    });
  }
  leafStart[nodes] = e;
}

/**
 * Interventional TreeSHAP (Lundberg et al. 2020, "From local explanations to global understanding with explainable AI
 * for trees", the interventional algorithm): for each explained row x and background row b, a tree's output at the
 * hybrid row (x on a coalition's players, b elsewhere) is the value of the leaf its path reaches. Walking down from the
 * root, a node whose feature sends x and b the same way is passed; one that sends them apart branches into x's side
 * (its player joins A, the players that must be in the coalition) and b's side (the player joins B, those that must be
 * out), unless the player is already in A or B, which decides the way. Each leaf reached adds its value to A's and
 * B's players with the weights of `leafWeights`. Exact; the work per (row, background row, tree) is the number of
 * nodes reachable so, at most the tree's size and usually a few paths.
 *
 * The output is the mean over the trees of leaf value column `columns[h]`, as a forest's prediction (one tree: the
 * tree's). Categorical players span several design columns: a node on any of them asks the player. Up to
 * MASK_PLAYERS players the same sums are taken leaf by leaf over the background rows' masks (tree-masks.ts: 2 times
 * faster on a 100-tree, 10-class forest of 25 players, bench:explain), with the walk beyond.
 */
export function treeShapley(
  trees: TreeArrays[],
  columns: number[],
  { X, background, players }: ShapleyInput,
  maskPlayers = MASK_PLAYERS,
): ExplainedRows {
  const n = X.rows;
  const H = columns.length;
  const M = players.count;
  const B = background.rows;
  const scale = 1 / Math.max(1, trees.length);
  const values = new Float64Array(n * H * M);
  const output = new Float64Array(n * H);
  const base = new Float64Array(H);
  state = new Int8Array(M);
  listA = new Int32Array(M);
  listB = new Int32Array(M);
  sizeA = 0;
  sizeB = 0;
  weights = leafWeights(M);
  stride = M + 1;
  phi = new Float64Array(H * M);
  playerCount = M;
  group = new Int32Array(B);
  for (const tree of trees) {
    const nodes = tree.feature.length;
    const leafValue = tree.value;
    const valueWidth = tree.width;
    nonzeroLeafValues(tree, columns);
    nodePlayer = Int32Array.from(tree.feature, (f) => (f < 0 ? -1 : players.of[f]));
    bNext = nextNodes(tree, background);
    nodeCount = nodes;
    const bLeaf = Int32Array.from({ length: B }, (_, r) => leafOf(tree, bNext, r * nodes));
    for (let r = 0; r < B; r++) for (let h = 0; h < H; h++) base[h] += (scale * leafValue[bLeaf[r] * valueWidth + columns[h]]) / B;
    const xAll = nextNodes(tree, X);
    // up to MASK_PLAYERS players (`maskPlayers`: tests compare the two), leaf by leaf (tree-masks.ts); the walk beyond
    const masks =
      M <= Math.min(maskPlayers, MASK_PLAYERS)
        ? backgroundMasks(tree, nodePlayer, bNext, B, (k) => leafStart[k + 1] > leafStart[k])
        : undefined;
    const target = { leafStart, leafHead, leafNonzero, weights, stride, phi, players: M };
    for (let i = 0; i < n; i++) {
      xNext = xAll.subarray(i * nodes, (i + 1) * nodes);
      const leaf = leafOf(tree, xNext, 0);
      for (let h = 0; h < H; h++) output[i * H + h] += scale * leafValue[leaf * valueWidth + columns[h]];
      phi.fill(0);
      if (masks) addByMasks(tree, nodePlayer, xAll, i * nodes, masks, target);
      else {
        // a background row in x's leaf went x's way at every node of its path: it adds nothing
        let size = 0;
        for (let r = 0; r < B; r++) if (bLeaf[r] !== leaf) group[size++] = r;
        walk(0, 0, size);
      }
      const at = i * H * M;
      for (let q = 0; q < H * M; q++) values[at + q] += (scale * phi[q]) / B;
    }
  }
  return { base, values, output };
}
