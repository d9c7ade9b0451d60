import type { Design } from './common';
import type { TreeArrays } from './tree-rule';

/**
 * accumulateTree on rows that are `blocks` blocks of equal length, equal to the first block's rows but in the columns
 * marked `varying`: each row of the first block walks the tree once, its blocks parting at nodes on a varying column;
 * every row gets its leaf's value added as accumulateTree adds it (the same sums, in the same order over the trees).
 * On a 10-class forest of 100 trees, 1,000 rows and 17 blocks: 0.37 s where accumulateTree takes 0.63-0.76 s.
 */
export function accumulateTreeBlocks(
  tree: TreeArrays,
  X: Design,
  blocks: number,
  varying: Uint8Array,
  out: Float64Array,
  scale: number,
): void {
  const d = X.cols;
  const w = tree.width;
  const m = X.rows / blocks;
  const { feature, threshold, left, right, value } = tree;
  // the blocks still together at each node of the walk, as a stack of (node, from, to) over `order`
  const order = new Int32Array(blocks);
  const stack: number[] = [];
  for (let i = 0; i < m; i++) {
    for (let b = 0; b < blocks; b++) order[b] = b;
    stack.push(0, 0, blocks);
    while (stack.length > 0) {
      const to = stack.pop() as number;
      const from = stack.pop() as number;
      let k = stack.pop() as number;
      for (;;) {
        const f = feature[k];
        if (f < 0) {
          for (let q = from; q < to; q++) {
            const row = order[q] * m + i;
            for (let c = 0; c < w; c++) out[row * w + c] += scale * value[k * w + c];
          }
          break;
        }
        if (!varying[f]) {
          k = X.data[i * d + f] <= threshold[k] ? left[k] : right[k];
          continue;
        }
        // the blocks going left first
        let mid = from;
        for (let q = from; q < to; q++) {
          const b = order[q];
          if (X.data[(b * m + i) * d + f] <= threshold[k]) {
            order[q] = order[mid];
            order[mid++] = b;
          }
        }
        if (mid === to) k = left[k];
        else if (mid === from) k = right[k];
        else {
          stack.push(right[k], mid, to);
          stack.push(left[k], from, mid);
          break;
        }
      }
    }
  }
}

/**
 * The block whose value of column `f` each block has, when the blocks differ in that one column alone and its values
 * rise (or stay) from block to block: the ascending grid of Partial Dependence on a numerical feature. Then the blocks
 * a node on `f` sends left are a first run of them, and every leaf a row reaches takes a run of blocks. Undefined
 * otherwise (several varying columns, as a categorical feature's, or values out of order or missing).
 */
function ascendingBlocks(X: Design, blocks: number, varying: Uint8Array): { column: number; values: Float64Array } | undefined {
  const d = X.cols;
  const m = X.rows / blocks;
  let column = -1;
  for (let j = 0; j < d; j++) {
    if (!varying[j]) continue;
    if (column >= 0) return undefined;
    column = j;
  }
  if (column < 0 || m === 0) return undefined;
  const values = new Float64Array(blocks);
  for (let b = 0; b < blocks; b++) {
    const v = X.data[b * m * d + column];
    if (!(b === 0 || v >= values[b - 1])) return undefined;
    for (let i = 1; i < m; i++) if (X.data[(b * m + i) * d + column] !== v) return undefined;
    values[b] = v;
  }
  return { column, values };
}

/**
 * A forest's mean output (each tree's leaf values times `scale`, added to `out`) on Partial Dependence's blocks. When
 * the blocks vary in one column, ascending (ascendingBlocks), each row walks each tree once with the run of blocks
 * still together, and a leaf adds its value once to the run's first block and subtracts it after its last, in a
 * running sum over the blocks taken at the end: the work of a leaf no longer grows with the blocks it covers. The
 * sums are then in another order than predict's (the same values to rounding, about 1e-15 of a probability).
 * Otherwise accumulateTreeBlocks tree by tree, the same numbers as predict's. Its walk is accumulateTreeBlocks' own,
 * written again: one walk for both, with what a node on the grid's column and a leaf do passed in, made Partial
 * Dependence of a 100-tree forest 20% slower (5 grids of 17 x 1,000 rows: 0.29 -> 0.35 s).
 */
export function accumulateForestBlocks(
  trees: readonly TreeArrays[],
  X: Design,
  blocks: number,
  varying: Uint8Array,
  out: Float64Array,
  scale: number,
): void {
  const ascending = trees.length > 1 ? ascendingBlocks(X, blocks, varying) : undefined;
  if (!ascending) {
    for (const t of trees) accumulateTreeBlocks(t, X, blocks, varying, out, scale);
    return;
  }
  const { column, values } = ascending;
  const d = X.cols;
  const w = trees[0].width;
  const m = X.rows / blocks;
  // per row, per block boundary 0 .. blocks, per output: the changes of the running sum
  const changes = new Float64Array(m * (blocks + 1) * w);
  const stack: number[] = [];
  for (const { feature, threshold, left, right, value } of trees) {
    for (let i = 0; i < m; i++) {
      const at = i * (blocks + 1) * w;
      stack.push(0, 0, blocks);
      while (stack.length > 0) {
        const to = stack.pop() as number;
        const from = stack.pop() as number;
        let k = stack.pop() as number;
        for (;;) {
          const f = feature[k];
          if (f < 0) {
            for (let c = 0; c < w; c++) {
              const v = scale * value[k * w + c];
              changes[at + from * w + c] += v;
              changes[at + to * w + c] -= v;
            }
            break;
          }
          if (f !== column) {
            k = X.data[i * d + f] <= threshold[k] ? left[k] : right[k];
            continue;
          }
          // the blocks going left: those of the run up to the last value <= the threshold
          let mid = from;
          while (mid < to && values[mid] <= threshold[k]) mid++;
          if (mid === to) k = left[k];
          else if (mid === from) k = right[k];
          else {
            stack.push(right[k], mid, to);
            stack.push(left[k], from, mid);
            break;
          }
        }
      }
    }
  }
  for (let i = 0; i < m; i++) {
    const at = i * (blocks + 1) * w;
    for (let c = 0; c < w; c++) {
      let sum = 0;
      for (let b = 0; b < blocks; b++) {
        sum += changes[at + b * w + c];
        out[(b * m + i) * w + c] += sum;
      }
    }
  }
}
