/**
 * The weighted sums of bootstrap.ts's bootstrapMeans in WebAssembly SIMD (weightedSums in simd-kernels.wat): the
 * samples' values copied once into an instance of the kernels of its own (its memory freed with it), then each batch
 * of draws' weights. The kernel adds in the order of bootstrapMeans' JavaScript loop, so the sums are that loop's to
 * the bit.
 */
import { instantiate, PAGE, roundUp } from './simd-kernels';

/**
 * Above this many bytes of values the JavaScript loop runs instead: the copy would add as much again to the analysis's
 * peak memory (64 MiB: 33,000 samples of ten classes' contributions of 25 features).
 */
const MAX_BYTES = 64 << 20;

export interface WeightedSums {
  /** out[t * J + k] = sum over the samples i in order of weights[t][i] values[i * J + k], samples weighed 0 skipped */
  sums(weights: readonly Float64Array[], out: Float64Array): void;
}

/** The sums of `values` (n x J, sample after sample) for up to `maxDraws` draws at a time, or undefined when too large. */
export function weightedSums(values: Float64Array, n: number, J: number, maxDraws: number): WeightedSums | undefined {
  const jp = roundUp(Math.max(1, J), 4);
  const valueBytes = n * jp * 8;
  if (n === 0 || valueBytes > MAX_BYTES) return undefined;
  const instance = instantiate();
  const weightsAt = valueBytes;
  const outAt = weightsAt + maxDraws * n * 8;
  const end = outAt + maxDraws * jp * 8;
  const memory = instance.exports.memory;
  if (memory.buffer.byteLength < end) memory.grow(Math.ceil((end - memory.buffer.byteLength) / PAGE));
  const f64 = new Float64Array(memory.buffer);
  // each sample's values padded with zeros to jp (a new memory is zero)
  for (let i = 0; i < n; i++) f64.set(values.subarray(i * J, (i + 1) * J), i * jp);
  return {
    sums(weights, out) {
      const T = weights.length;
      weights.forEach((w, t) => f64.set(w.subarray(0, n), weightsAt / 8 + t * n));
      f64.fill(0, outAt / 8, outAt / 8 + T * jp);
      instance.exports.weightedSums(0, weightsAt, outAt, n, jp, T);
      for (let t = 0; t < T; t++) out.set(f64.subarray(outAt / 8 + t * jp, outAt / 8 + t * jp + J), t * J);
    },
  };
}
