import { Rng } from '../rng';
import { orderByRank, RADIX_BITS, RankOrderScratch } from './rank-order';

describe('orderByRank', () => {
  // node sizes around the insertion sort's limit, and columns whose ranks take a counting sort or one to three radix passes
  it.each([
    [5, 3],
    [24, 1000],
    [25, 1000],
    [300, 40],
    [300, 1500],
    [2000, 1500],
    [700, 70000],
  ])('orders %i rows of a column of %i distinct values by rank, ties in their order', (n, R) => {
    const rng = new Rng(n * 7 + R);
    const N = Math.max(n, R);
    const rank = Int32Array.from({ length: N }, (_, i) => (i < R ? i : rng.int(R)));
    // a bootstrap-like node: rows ascending with repeats, preceded and followed by rows of other nodes
    const lo = 3;
    const rows = new Int32Array(n + 6);
    for (let k = 0; k < rows.length; k++) rows[k] = rng.int(N);
    const node = rows.subarray(lo, lo + n).sort();
    const expected = Array.from(node, (row, position) => ({ row, position })).sort(
      (a, b) => rank[a.row] - rank[b.row] || a.position - b.position,
    );
    const scratch: RankOrderScratch = {
      bucket: new Int32Array(Math.max(R, 1 << RADIX_BITS) + 1),
      rowsTmp: new Int32Array(n),
      rankTmp: new Int32Array(n),
    };
    const sorted = new Int32Array(n);
    const sortedRank = new Int32Array(n);
    orderByRank(rank, R, rows, lo, lo + n, scratch, sorted, sortedRank);
    expect(Array.from(sorted)).toEqual(expected.map((e) => e.row));
    expect(Array.from(sortedRank)).toEqual(expected.map((e) => rank[e.row]));
  });
});
