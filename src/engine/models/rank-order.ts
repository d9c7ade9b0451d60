/**
 * The ranks CART orders a node's rows by: each column's distinct values and each row's rank among them, computed once
 * per fit, and the sorts of a node's rows by rank (insertion, counting or radix; all stable).
 */
import type { Design } from './common';

/**
 * Each column's distinct values ascending and each row's rank among them (`rank[f][row]`). Computed once per
 * fit (a forest shares it across its trees): nodes then order their rows by a column with a counting sort of
 * ranks, or a histogram of classes per rank, instead of comparing values.
 */
export interface RankedColumns {
  rank: Int32Array[];
  values: Float64Array[];
}

export function rankColumns(X: Design): RankedColumns {
  const { rows: n, cols: d, data } = X;
  const rank: Int32Array[] = [];
  const values: Float64Array[] = [];
  const col = new Float64Array(n);
  for (let f = 0; f < d; f++) {
    for (let i = 0; i < n; i++) col[i] = data[i * d + f];
    const sorted = col.slice().sort();
    let u = 0;
    for (let k = 0; k < n; k++) if (k === 0 || sorted[k] !== sorted[u - 1]) sorted[u++] = sorted[k];
    const distinct = sorted.slice(0, u);
    const r = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      let a = 0;
      let b = u - 1;
      while (a < b) {
        const mid = (a + b) >> 1;
        if (distinct[mid] < col[i]) a = mid + 1;
        else b = mid;
      }
      r[i] = a;
    }
    rank.push(r);
    values.push(distinct);
  }
  return { rank, values };
}

/** Scratch of orderByRank, sized once per tree grower: `bucket` holds max(R, 2^RADIX_BITS) + 1 counters. */
export interface RankOrderScratch {
  bucket: Int32Array;
  rowsTmp: Int32Array;
  rankTmp: Int32Array;
}

/**
 * What ordering the nodes of up to `size` rows by the columns of `ranked` needs: orderByRank's scratch and its
 * outputs (`sorted`, `sortedRank`), and the most distinct values of a column.
 */
export function rankOrderBuffers(
  size: number,
  ranked: RankedColumns,
): { maxDistinct: number; sorted: Int32Array; sortedRank: Int32Array; scratch: RankOrderScratch } {
  let maxDistinct = 1;
  for (const v of ranked.values) maxDistinct = Math.max(maxDistinct, v.length);
  const scratch: RankOrderScratch = {
    bucket: new Int32Array(Math.max(maxDistinct, 1 << RADIX_BITS) + 1),
    rowsTmp: new Int32Array(size),
    rankTmp: new Int32Array(size),
  };
  return { maxDistinct, sorted: new Int32Array(size), sortedRank: new Int32Array(size), scratch };
}

/** Nodes of at most this many rows are ordered by insertion sort. */
const INSERTION_ROWS = 24;
/** Widest digit of the radix sort (2^RADIX_BITS counters per pass). */
export const RADIX_BITS = 8;

/**
 * Fills sorted[0, n) with rows[lo, hi) ordered by their rank in a column of R distinct values (ties in their
 * order), sortedRank alike. Every way here is stable, so all give the same order: an insertion sort for small
 * nodes; a counting sort over the R ranks (R + 1 counters) when R is small next to the node; otherwise a least
 * significant digit radix sort of the ranks in as few passes of at most RADIX_BITS bits as the ranks need
 * (a 1,440-row column of distinct values: two passes of 64 counters instead of 1,441 counters for a node of 30 rows).
 */
export function orderByRank(
  rank: Int32Array,
  R: number,
  rows: Int32Array,
  lo: number,
  hi: number,
  scratch: RankOrderScratch,
  sorted: Int32Array,
  sortedRank: Int32Array,
): void {
  const n = hi - lo;
  if (n <= INSERTION_ROWS) {
    for (let m = 0; m < n; m++) {
      const r = rows[lo + m];
      const q = rank[r];
      let j = m;
      while (j > 0 && sortedRank[j - 1] > q) {
        sorted[j] = sorted[j - 1];
        sortedRank[j] = sortedRank[j - 1];
        j--;
      }
      sorted[j] = r;
      sortedRank[j] = q;
    }
    return;
  }
  const { bucket } = scratch;
  const bits = 32 - Math.clz32(Math.max(1, R - 1));
  const passes = Math.ceil(bits / RADIX_BITS);
  const digit = Math.ceil(bits / passes);
  const B = 1 << digit;
  // about what each way costs: clearing and summing counters, then counting and scattering the rows
  if (2 * R + 3 * n <= passes * (2 * B + 3 * n)) {
    bucket.fill(0, 0, R + 1);
    for (let k = lo; k < hi; k++) bucket[rank[rows[k]] + 1]++;
    for (let q = 1; q <= R; q++) bucket[q] += bucket[q - 1];
    for (let k = lo; k < hi; k++) {
      const r = rows[k];
      const q = rank[r];
      const at = bucket[q]++;
      sorted[at] = r;
      sortedRank[at] = q;
    }
    return;
  }
  // each pass scatters stably by one digit; the buffers alternate so that the last pass fills sorted
  const mask = B - 1;
  const { rowsTmp, rankTmp } = scratch;
  for (let p = 0; p < passes; p++) {
    const shift = p * digit;
    const toSorted = (passes - 1 - p) % 2 === 0;
    const outRows = toSorted ? sorted : rowsTmp;
    const outRank = toSorted ? sortedRank : rankTmp;
    bucket.fill(0, 0, B + 1);
    if (p === 0) {
      for (let k = lo; k < hi; k++) bucket[((rank[rows[k]] >> shift) & mask) + 1]++;
      for (let q = 1; q <= B; q++) bucket[q] += bucket[q - 1];
      for (let k = lo; k < hi; k++) {
        const r = rows[k];
        const q = rank[r];
        const at = bucket[(q >> shift) & mask]++;
        outRows[at] = r;
        outRank[at] = q;
      }
    } else {
      const inRows = toSorted ? rowsTmp : sorted;
      const inRank = toSorted ? rankTmp : sortedRank;
      for (let m = 0; m < n; m++) bucket[((inRank[m] >> shift) & mask) + 1]++;
      for (let q = 1; q <= B; q++) bucket[q] += bucket[q - 1];
      for (let m = 0; m < n; m++) {
        const q = inRank[m];
        const at = bucket[(q >> shift) & mask]++;
        outRows[at] = inRows[m];
        outRank[at] = q;
      }
    }
  }
}
