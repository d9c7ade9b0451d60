import type { MetricContext } from '../bbc';
import { Rng } from '../rng';
import { bootstrapIntervals, bootstrapMeans } from './bootstrap';

/** n samples in groups of three (the units drawn), so that a draw weighs whole groups, many of them 0. */
function context(n: number): MetricContext {
  const units = Int32Array.from({ length: n }, (_, i) => Math.floor(i / 3));
  return { outcome: { y: new Float64Array(n) }, classCount: 0, units, unitCount: units[n - 1] + 1 };
}

describe('bootstrapMeans', () => {
  // J not a multiple of the kernel's four lanes, B not a multiple of the eight draws staged together
  const n = 37;
  const J = 7;
  const B = 50;
  const rng = new Rng(11);
  const values = Float64Array.from({ length: n * J }, () => Math.abs(rng.normal()) * 10 ** rng.int(4));
  const ctx = context(n);
  /** The weighted means as a plain statistic: the samples in order, those weighed 0 skipped. */
  const plain = (w: Float64Array): Float64Array => {
    const mean = new Float64Array(J);
    let total = 0;
    for (let i = 0; i < n; i++) {
      if (w[i] === 0) continue;
      total += w[i];
      for (let k = 0; k < J; k++) mean[k] += w[i] * values[i * J + k];
    }
    return mean.map((v) => v / total);
  };

  it.each([
    ['in WebAssembly SIMD', true],
    ['in JavaScript', false],
  ])('gives the intervals of the weighted means as bootstrapIntervals does, from the same draws, to the bit (%s)', async (_name, simd) => {
    const expected = await bootstrapIntervals(plain, ctx, B, new Rng(5, 1));
    const got = await bootstrapMeans(values, J, ctx, B, new Rng(5, 1), simd);
    expect(got.value).toEqual(expected.value);
    expect(got.cis).toEqual(expected.cis);
    // the draws differ from each other: the intervals are not the point values
    expect(got.cis.filter(([lo, hi]) => hi > lo)).toHaveLength(J);
  });
});
