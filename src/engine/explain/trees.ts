import type { TreeArrays } from '../models/tree-rule';
import type { ShapleyInput } from './types';

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

/** What the walk down one tree for one (row, background row) pair reads and writes. */
interface Walk {
  tree: TreeArrays;
  columns: number[];
  playerOf: Int32Array;
  /** the explained row's and the background row's direction at each node (1 = left), the latter at `bOff` */
  xLeft: Uint8Array;
  bLeft: Uint8Array;
  bOff: number;
  /** each player's state on the path: 0 free, 1 in A (x's side), 2 in B (b's side); A and B listed, a and b long */
  state: Int8Array;
  listA: Int32Array;
  listB: Int32Array;
  a: number;
  b: number;
  weights: Float64Array;
  stride: number;
  /** heads x players, added to */
  phi: Float64Array;
  players: number;
}

function walk(w: Walk, from: number): void {
  const { feature, left, right, value, width } = w.tree;
  let k = from;
  for (;;) {
    if (feature[k] < 0) {
      const { a, b } = w;
      if (a + b === 0) return;
      const wA = a > 0 ? w.weights[(a - 1) * w.stride + b] : 0;
      const wB = b > 0 ? w.weights[a * w.stride + b - 1] : 0;
      for (let h = 0; h < w.columns.length; h++) {
        const v = value[k * width + w.columns[h]];
        if (v === 0) continue;
        const row = h * w.players;
        for (let q = 0; q < a; q++) w.phi[row + w.listA[q]] += v * wA;
        for (let q = 0; q < b; q++) w.phi[row + w.listB[q]] -= v * wB;
      }
      return;
    }
    const p = w.playerOf[feature[k]];
    const xl = w.xLeft[k];
    const bl = w.bLeft[w.bOff + k];
    const s = w.state[p];
    if (s === 1 || (s === 0 && xl === bl)) k = xl ? left[k] : right[k];
    else if (s === 2) k = bl ? left[k] : right[k];
    else {
      // x and b part here: both ways, the player on x's side (A), then on b's side (B)
      w.state[p] = 1;
      w.listA[w.a++] = p;
      walk(w, xl ? left[k] : right[k]);
      w.a--;
      w.state[p] = 2;
      w.listB[w.b++] = p;
      walk(w, bl ? left[k] : right[k]);
      w.b--;
      w.state[p] = 0;
      return;
    }
  }
}

/** Each row's direction (1 = left) at every split node of the tree, row-major (rows x nodes). */
function directions(tree: TreeArrays, X: { data: Float64Array; rows: number; cols: number }): Uint8Array {
  const { feature, threshold } = tree;
  const nodes = feature.length;
  const out = new Uint8Array(X.rows * nodes);
  for (let r = 0; r < X.rows; r++)
    for (let k = 0; k < nodes; k++) {
      const f = feature[k];
      if (f >= 0) out[r * nodes + k] = X.data[r * X.cols + f] <= threshold[k] ? 1 : 0;
    }
  return out;
}

/** The leaf a row reaches, from its directions at offset `off`. */
function leafOf(tree: TreeArrays, dirs: Uint8Array, off: number): number {
  let k = 0;
  while (tree.feature[k] >= 0) k = dirs[off + k] ? tree.left[k] : tree.right[k];
  return k;
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
 * tree's). Categorical players span several design columns: a node on any of them asks the player.
 */
export function treeShapley(
  trees: TreeArrays[],
  columns: number[],
  { X, background, players }: ShapleyInput,
): { base: Float64Array; values: Float64Array; output: Float64Array } {
  const n = X.rows;
  const H = columns.length;
  const M = players.count;
  const B = background.rows;
  const scale = 1 / Math.max(1, trees.length);
  const values = new Float64Array(n * H * M);
  const output = new Float64Array(n * H);
  const base = new Float64Array(H);
  const w: Walk = {
    tree: trees[0],
    columns,
    playerOf: players.of,
    xLeft: new Uint8Array(0),
    bLeft: new Uint8Array(0),
    bOff: 0,
    state: new Int8Array(M),
    listA: new Int32Array(M),
    listB: new Int32Array(M),
    a: 0,
    b: 0,
    weights: leafWeights(M),
    stride: M + 1,
    phi: new Float64Array(H * M),
    players: M,
  };
  for (const tree of trees) {
    const nodes = tree.feature.length;
    const { value, width } = tree;
    w.tree = tree;
    w.bLeft = directions(tree, background);
    const xDirs = directions(tree, X);
    for (let r = 0; r < B; r++) {
      const k = leafOf(tree, w.bLeft, r * nodes);
      for (let h = 0; h < H; h++) base[h] += (scale * value[k * width + columns[h]]) / B;
    }
    for (let i = 0; i < n; i++) {
      w.xLeft = xDirs.subarray(i * nodes, (i + 1) * nodes);
      const leaf = leafOf(tree, w.xLeft, 0);
      for (let h = 0; h < H; h++) output[i * H + h] += scale * value[leaf * width + columns[h]];
      w.phi.fill(0);
      for (let r = 0; r < B; r++) {
        w.bOff = r * nodes;
        walk(w, 0);
      }
      const at = i * H * M;
      for (let q = 0; q < H * M; q++) values[at + q] += (scale * w.phi[q]) / B;
    }
  }
  return { base, values, output };
}
