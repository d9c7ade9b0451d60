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
