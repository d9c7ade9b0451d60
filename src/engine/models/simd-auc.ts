/**
 * The weighted AUC's sums on a batch of bootstraps in WebAssembly SIMD (aucLanes in simd-kernels.wat), for auc.ts's
 * batch evaluator: a block's weights are staged once into the kernels' memory (stageWeights), then every set and class
 * of the block is one call over them. The kernel does the JavaScript pass's operations in the same order, and the
 * weights are counts, so the sums are that pass's to the bit.
 */
import { type Instance, instantiate, PAGE } from './simd-kernels';

/** This thread's instance for the AUC (its own: its memory holds a staged block between calls). */
let instance: Instance | undefined;
let f64 = new Float64Array(0);
let i32 = new Int32Array(0);

/** The bytes after a block of `n` x `stride` weights that one call needs: addresses, positives, groups, sums. */
const scratchBytes = (n: number, stride: number): number => 4 * n + 8 * n + 4 * (n + 1) + 3 * 8 * stride + 64;

/**
 * Copies a block's weights (`weights`: n x stride, sample-major) into the kernels' memory, grown so that the calls on
 * it (aucSums) never grow it again, and returns the copy there: pass it, not `weights`, to the batch evaluators, all
 * before any other block is staged on this thread.
 */
export function stageWeights(weights: Float64Array, n: number, stride: number): Float64Array {
  instance ??= instantiate();
  const memory = instance.exports.memory;
  const end = weights.length * 8 + scratchBytes(n, stride);
  if (memory.buffer.byteLength < end) memory.grow(Math.ceil((end - memory.buffer.byteLength) / PAGE));
  if (f64.buffer !== memory.buffer) {
    f64 = new Float64Array(memory.buffer);
    i32 = new Int32Array(memory.buffer);
  }
  f64.set(weights, 0);
  return f64.subarray(0, weights.length);
}

/** Whether `weights` is the block stageWeights staged last (in this thread's kernels' memory). */
export function isStaged(weights: Float64Array): boolean {
  return instance !== undefined && weights.buffer === instance.exports.memory.buffer && weights.byteOffset === 0;
}

/**
 * The AUC's sums on the staged block (`weights`, from stageWeights: n x stride): for the samples sorted by `order`
 * (`isPos`: 1 for a positive, in sorted order) and their tie groups (`groupStarts`, g + 1 entries; g = n: none tied),
 * writes per bootstrap b < stride the pairs counted (sums[b]), the positives' weight (sums[stride + b]) and the
 * negatives' (sums[2 stride + b]). stride: a multiple of 4.
 */
export function aucSums(
  weights: Float64Array,
  stride: number,
  order: Int32Array,
  isPos: Float64Array,
  groupStarts: Int32Array,
  sums: Float64Array,
): void {
  const n = order.length;
  const g = groupStarts.length - 1;
  const at = weights.length * 8;
  const pos = at + 4 * n + ((4 * n) % 8);
  const gs = pos + 8 * n;
  const out = gs + 4 * (n + 1) + 16 - ((gs + 4 * (n + 1)) % 16);
  const rowBytes = stride * 8;
  for (let j = 0; j < n; j++) i32[at / 4 + j] = order[j] * rowBytes;
  f64.set(isPos, pos / 8);
  if (g < n) i32.set(groupStarts, gs / 4);
  (instance as Instance).exports.aucLanes(at, pos, gs, g, n, stride, out);
  sums.set(f64.subarray(out / 8, out / 8 + 3 * stride));
}
