/**
 * The sums and the factor of a multinomial likelihood's information (SES's tests, independence-tests/) in WebAssembly
 * SIMD: the kernels of simd-kernels.wat that hold one call's data at a time.
 */
import { type Instance, instantiate, PAGE, roundUp } from './simd-kernels';

/** An instance of the kernels for weightedPairSums and choleskyFactor (per thread, its own): its memory holds one call's data at a time. */
let sharedSums: Instance | undefined;
let sumsView = new Float64Array(0);

/** The kernels' memory as doubles, grown to at least `end` bytes. */
function sumsMemory(end: number): Float64Array {
  sharedSums ??= instantiate();
  const memory = sharedSums.exports.memory;
  if (memory.buffer.byteLength < end) memory.grow(Math.ceil((end - memory.buffer.byteLength) / PAGE));
  if (sumsView.buffer !== memory.buffer) sumsView = new Float64Array(memory.buffer);
  return sumsView;
}

/** weightedPairSums' memory: the products of the pairs go through it in runs of columns that fit. */
const SUMS_MAX_BYTES = 32 << 20;

/**
 * The weighted sums of the products of pairs of columns that a multinomial likelihood's information is made of,
 * sum_i w_b[i] x_j[i] x_m[i] for every block of weights b and every pair of columns m <= j with j >= known, in
 * WebAssembly SIMD (pairProducts and blockSums in simd-kernels.wat): the products of each pair once, then each block's
 * sums two blocks by two pairs per pass over the samples. Every sum is summed in the order of linalg.ts's dotAt over
 * w_b and the products, so the sums are those of that JavaScript loop to the bit.
 *
 * `columns`: p columns of n; `weights`: blocks x n, block after block, or the fitted probabilities of a multinomial
 * likelihood (`prob`: classes 1 .. width, sample after sample) whose information's weights p_ik (delta_kl - p_il) for
 * the blocks (k, l <= k) the kernels compute (blockWeights: the numbers of that JavaScript expression to the bit, in a
 * fraction of its time). Writes out[b * pairs + q] for the pairs q in order (j from known, m from 0 to j) and returns
 * the pair count, or -1 when the columns and weights alone exceed the kernels' memory (the caller computes the sums
 * itself).
 */
export function weightedPairSums(
  columns: readonly Float64Array[],
  known: number,
  weights: Float64Array | { prob: Float64Array; width: number },
  blocks: number,
  n: number,
  out: Float64Array,
): number {
  const p = columns.length;
  const pairs = (p * (p + 1)) / 2 - (known * (known + 1)) / 2;
  if (pairs <= 0) return 0;
  const rows = roundUp(Math.max(n, 1), 4);
  const blocksEven = roundUp(blocks, 2);
  const x = 0;
  const w = x + p * rows * 8;
  const c = w + blocksEven * rows * 8;
  // the products of the pairs of columns j0 <= j < j1, and their sums, after the columns and weights
  const pairBytes = rows * 8 + blocksEven * 8;
  const room = Math.floor((SUMS_MAX_BYTES - c) / pairBytes);
  if (room < 2 * p) return -1;
  let most = 0;
  for (let j0 = known, j1 = known; j0 < p; j0 = j1) {
    let count = 0;
    while (j1 < p && count + j1 + 1 <= room - 1) count += ++j1;
    most = Math.max(most, roundUp(count, 2));
  }
  const pr = c + blocksEven * most * 8;
  // the probabilities, when given, after the products
  const probAt = pr + most * rows * 8;
  const f = sumsMemory(probAt + ('prob' in weights ? n * weights.width * 8 : 0));
  for (let j = 0; j < p; j++) {
    const o = x / 8 + j * rows;
    f.set(columns[j].subarray(0, n), o);
    f.fill(0, o + n, o + rows);
  }
  const k = (sharedSums as Instance).exports;
  if ('prob' in weights) {
    f.set(weights.prob.subarray(0, n * weights.width), probAt / 8);
    k.blockWeights(probAt, w, weights.width, n, rows);
  } else
    for (let b = 0; b < blocksEven; b++) {
      const o = w / 8 + b * rows;
      if (b < blocks) f.set(weights.subarray(b * n, (b + 1) * n), o);
      else f.fill(0, o, o + n);
      f.fill(0, o + n, o + rows);
    }
  let done = 0;
  for (let j0 = known, j1 = known; j0 < p; j0 = j1) {
    let count = 0;
    while (j1 < p && count + j1 + 1 <= room - 1) count += ++j1;
    const even = roundUp(count, 2);
    k.pairProducts(x, pr, j0, j1, rows);
    k.blockSums(w, pr, c, blocksEven, even, rows, n);
    for (let b = 0; b < blocks; b++) out.set(f.subarray(c / 8 + b * even, c / 8 + b * even + count), b * pairs + done);
    done += count;
  }
  return pairs;
}

/** choleskyFactor's memory (both triangles, by columns); a larger matrix is left to its caller's JavaScript loop. */
const CHOLESKY_MAX_BYTES = 32 << 20;

/**
 * The Cholesky factor L (lower, row-major P x P) of A + ridge I for the symmetric A (lower triangle of a row-major
 * P x P read) in WebAssembly SIMD (cholesky in simd-kernels.wat), column after column, eight rows of a column at a time;
 * every entry is summed over k in increasing order as likelihood.ts's factorSymmetric sums it, so the factor is that
 * loop's to the bit. Returns true, false when a diagonal's square is not above `minimum`, or null when A is too large
 * for the kernels (the caller factors it itself).
 */
export function choleskyFactor(A: Float64Array, L: Float64Array, P: number, ridge: number, minimum: number): boolean | null {
  // every column has room for eight rows past the last (the kernel's last pass of a column)
  const stride = roundUp(P + 8, 2);
  const at = 0;
  const lt = at + stride * P * 8;
  const end = lt + stride * P * 8;
  if (end > CHOLESKY_MAX_BYTES) return null;
  const f = sumsMemory(end);
  for (let c = 0; c < P; c++) {
    const o = c * stride;
    for (let a = c; a < P; a++) f[o + a] = A[a * P + c];
    f.fill(0, o + P, o + stride);
  }
  if (!(sharedSums as Instance).exports.cholesky(at, lt, P, stride, ridge, minimum)) return false;
  const l = lt / 8;
  for (let a = 0; a < P; a++) for (let k = 0; k <= a; k++) L[a * P + k] = f[l + k * stride + a];
  return true;
}
