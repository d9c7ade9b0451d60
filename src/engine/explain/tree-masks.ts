import type { TreeArrays } from '../models/tree-rule';

/**
 * Interventional TreeSHAP by leaf, with the players as the bits of an integer (up to MASK_PLAYERS players).
 *
 * For a leaf and a row, the row's fail mask is the set of players that send it away from the leaf at some node of the
 * leaf's path. The hybrid of an explained row x and a background row b (x on a coalition S, b elsewhere) reaches the
 * leaf exactly when every player of the path takes a value that goes the leaf's way at all of its nodes: a player in
 * neither fail mask passes either way; one that x fails must take b's value (outside S), one that b fails must take
 * x's (in S); one that both fail closes the leaf. So the leaf is reached for the coalitions with A = fail(b) inside and
 * B = fail(x) outside, when the two masks are disjoint, and it adds value x (a - 1)! b! / (a + b)! to each player of A
 * and takes value x a! (b - 1)! / (a + b)! from each of B (trees.ts, leafWeights): the walk of trees.ts, leaf by leaf.
 *
 * The background rows' fail masks are computed once per tree and counted per leaf (equal masks together), so that an
 * explained row costs one pass over the tree's nodes (its own masks) and one over the distinct background masks of
 * each leaf that holds an explained value, whatever the depth at which the rows part. The sums are those of the
 * walk, added in another order: the values agree to rounding.
 */
export const MASK_PLAYERS = 30;

/** The background's fail masks of a tree, counted per leaf. */
export interface LeafMasks {
  /** the leaves' node indices, in node order */
  leaves: Int32Array;
  /** each node's leaf index (-1 for a split) */
  leafIndex: Int32Array;
  /** leaf l's distinct background masks are [start[l], start[l + 1]) of mask, with their count and population */
  start: Int32Array;
  mask: Int32Array;
  count: Float64Array;
  population: Int32Array;
  /**
   * for leaf l, player j (below `players`) and word w: bit i of holders[holdersStart[l] + j * words + w] is set when
   * the leaf's mask 32 w + i holds player j (words: the leaf's masks over 32, rounded up)
   */
  holders: Int32Array;
  holdersStart: Int32Array;
  players: number;
  /** work: the masks of a leaf disjoint from a row's */
  disjoint: Int32Array;
  /**
   * each node's players that every background row fails on the way to it: an explained row that fails one of them
   * too on its way there reaches nothing below the node with any background row
   */
  common: Int32Array;
  /** work: the traversal's stack (node, mask) */
  stack: Int32Array;
}

/** Bits set in m (m below 2^31). */
function popcount(m: number): number {
  let v = m - ((m >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * A traversal of the tree from the root for one row, carrying the players that sent it away so far (its fail mask at
 * each node); `next` holds the row's next node from every node from offset `off` (trees.ts's nextNodes). A background
 * row (`out`): each node's `common` keeps the players that every such row failed on the way to it, and each leaf's
 * mask goes to out[leaf index]. An explained row (`target`): a node's subtree is left when every background row failed
 * one of the players this one failed on the way to it (none reaches anything below with it), and each leaf adds its
 * contributions (addLeaf).
 */
function traverse(
  tree: TreeArrays,
  player: Int32Array,
  next: Int32Array,
  off: number,
  lm: LeafMasks,
  out: Int32Array | null,
  target: MaskTarget | null,
): void {
  const { left, right } = tree;
  const { leafIndex, stack, common } = lm;
  let top = 0;
  stack[top++] = 0;
  stack[top++] = 0;
  while (top > 0) {
    const mask = stack[--top];
    const k = stack[--top];
    if (out) common[k] &= mask;
    else if ((common[k] & mask) !== 0) continue;
    const p = player[k];
    if (p < 0) {
      if (out) out[leafIndex[k]] = mask;
      else addLeaf(k, leafIndex[k], mask, lm, target as MaskTarget);
      continue;
    }
    const along = next[off + k];
    stack[top++] = along === left[k] ? right[k] : left[k];
    stack[top++] = mask | (1 << p);
    stack[top++] = along;
    stack[top++] = mask;
  }
}

/**
 * The background rows' fail masks (rows x nodes of next nodes in `next`, trees.ts's nextNodes), counted per leaf;
 * leaves that hold no explained value (`explained` false) keep none.
 */
export function backgroundMasks(
  tree: TreeArrays,
  player: Int32Array,
  next: Int32Array,
  rows: number,
  explained: (leaf: number) => boolean,
): LeafMasks {
  const nodes = tree.feature.length;
  const leafIndex = new Int32Array(nodes).fill(-1);
  const leafList: number[] = [];
  for (let k = 0; k < nodes; k++) if (player[k] < 0) leafIndex[k] = leafList.push(k) - 1;
  const L = leafList.length;
  const lm: LeafMasks = {
    leaves: Int32Array.from(leafList),
    leafIndex,
    start: new Int32Array(L + 1),
    mask: new Int32Array(0),
    count: new Float64Array(0),
    population: new Int32Array(0),
    holders: new Int32Array(0),
    holdersStart: new Int32Array(0),
    players: 0,
    disjoint: new Int32Array(((rows + 31) >>> 5) + 1),
    common: new Int32Array(nodes).fill(-1),
    stack: new Int32Array(2 * nodes + 2),
  };
  const all = new Int32Array(rows * L);
  for (let r = 0; r < rows; r++) traverse(tree, player, next, r * nodes, lm, all.subarray(r * L, (r + 1) * L), null);
  const masks: number[] = [];
  const counts: number[] = [];
  const column = new Int32Array(rows);
  for (let l = 0; l < L; l++) {
    lm.start[l] = masks.length;
    if (!explained(lm.leaves[l])) continue;
    for (let r = 0; r < rows; r++) column[r] = all[r * L + l];
    column.sort();
    for (let r = 0; r < rows; r++) {
      if (r > 0 && column[r] === column[r - 1]) counts[counts.length - 1]++;
      else {
        masks.push(column[r]);
        counts.push(1);
      }
    }
  }
  lm.start[L] = masks.length;
  lm.mask = Int32Array.from(masks);
  lm.count = Float64Array.from(counts);
  lm.population = Int32Array.from(masks, popcount);
  // each leaf's masks that hold each player, as bits (32 masks a word)
  const players = 32 - Math.clz32(masks.reduce((a, m) => a | m, 0));
  lm.players = players;
  lm.holdersStart = new Int32Array(L + 1);
  for (let l = 0; l < L; l++) lm.holdersStart[l + 1] = lm.holdersStart[l] + players * ((lm.start[l + 1] - lm.start[l] + 31) >>> 5);
  lm.holders = new Int32Array(lm.holdersStart[L]);
  for (let l = 0; l < L; l++) {
    const words = (lm.start[l + 1] - lm.start[l] + 31) >>> 5;
    for (let q = lm.start[l]; q < lm.start[l + 1]; q++) {
      const i = q - lm.start[l];
      for (let m = lm.mask[q]; m !== 0; m &= m - 1)
        lm.holders[lm.holdersStart[l] + (31 - Math.clz32(m & -m)) * words + (i >>> 5)] |= 1 << (i & 31);
    }
  }
  return lm;
}

/** What addByMasks reads of the tree's explained values and writes to (trees.ts's module state, passed in). */
export interface MaskTarget {
  /** leaf k's explained values that are not 0: [leafStart[k], leafStart[k + 1]) of leafHead and leafNonzero */
  leafStart: Int32Array;
  leafHead: Int32Array;
  leafNonzero: Float64Array;
  /** trees.ts's leafWeights and its row stride */
  weights: Float64Array;
  stride: number;
  /** heads x players, added to */
  phi: Float64Array;
  players: number;
}

/** Adds one explained row's contributions over the tree to t.phi (summed over the background rows, not divided). */
export function addByMasks(tree: TreeArrays, player: Int32Array, next: Int32Array, off: number, lm: LeafMasks, t: MaskTarget): void {
  traverse(tree, player, next, off, lm, null, t);
}

/** The contributions of leaf k (leaf index l) to a row whose fail mask there is `own`. */
function addLeaf(k: number, l: number, own: number, lm: LeafMasks, t: MaskTarget): void {
  const { leafStart, leafHead, leafNonzero, weights, stride, phi, players } = t;
  const { start, mask, count, population } = lm;
  const e0 = leafStart[k];
  const e1 = leafStart[k + 1];
  if (e0 === e1) return;
  const b = popcount(own);
  let sumB = 0;
  // the leaf's masks disjoint from own: those that hold none of its players
  const { holders, disjoint } = lm;
  const first = start[l];
  const size = start[l + 1] - first;
  const words = (size + 31) >>> 5;
  for (let w = 0; w < words; w++) disjoint[w] = w < words - 1 || (size & 31) === 0 ? -1 : (1 << (size & 31)) - 1;
  const at = lm.holdersStart[l];
  for (let m = own & ((1 << lm.players) - 1); m !== 0; m &= m - 1) {
    const row = at + (31 - Math.clz32(m & -m)) * words;
    for (let w = 0; w < words; w++) disjoint[w] &= ~holders[row + w];
  }
  for (let w = 0; w < words; w++)
    for (let d = disjoint[w]; d !== 0; d &= d - 1) {
      const q = first + w * 32 + 31 - Math.clz32(d & -d);
      const theirs = mask[q];
      const a = population[q];
      if (a + b === 0) continue;
      if (b > 0) sumB += count[q] * weights[a * stride + b - 1];
      if (a === 0) continue;
      const wA = count[q] * weights[(a - 1) * stride + b];
      for (let e = e0; e < e1; e++) {
        const add = leafNonzero[e] * wA;
        const row = leafHead[e] * players;
        for (let m = theirs; m !== 0; m &= m - 1) phi[row + 31 - Math.clz32(m & -m)] += add;
      }
    }
  if (sumB === 0) return;
  for (let e = e0; e < e1; e++) {
    const take = leafNonzero[e] * sumB;
    const row = leafHead[e] * players;
    for (let m = own; m !== 0; m &= m - 1) phi[row + 31 - Math.clz32(m & -m)] -= take;
  }
}
