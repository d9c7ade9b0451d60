import * as fs from 'node:fs';
import * as path from 'node:path';
import wabtModule from 'wabt';
import { Rng } from '../rng';
import { SIMD_KERNELS_WASM } from './generated/simd-kernels-wasm';
import { choleskyRows, dotAt } from '../linalg';
import { choleskyFactor, weightedPairSums } from './simd-information';
import { RbfRows, SoftmaxKernels } from './simd-kernels';

/** The log-likelihood, residual cross products (H x (1 + d)) and probabilities (H x n) in plain JavaScript. */
function reference(x: Float64Array, n: number, d: number, H: number, y: Int32Array, w: Float64Array) {
  const D = d + 1;
  const prob = new Float64Array(H * n);
  const g = new Float64Array(H * D);
  let ll = 0;
  for (let i = 0; i < n; i++) {
    const z = Array.from({ length: H }, (_, h) => {
      let s = w[h * D];
      for (let j = 0; j < d; j++) s += w[h * D + 1 + j] * x[i * d + j];
      return s;
    });
    const m = Math.max(...z);
    const sum = z.reduce((a, v) => a + Math.exp(v - m), 0);
    ll += z[y[i]] - m - Math.log(sum);
    for (let h = 0; h < H; h++) {
      const p = Math.exp(z[h] - m) / sum;
      prob[h * n + i] = p;
      const r = (h === y[i] ? 1 : 0) - p;
      g[h * D] += r;
      for (let j = 0; j < d; j++) g[h * D + 1 + j] += r * x[i * d + j];
    }
  }
  return { ll, g, prob };
}

function problem(n: number, d: number, H: number, seed: number, scale = 1) {
  const rng = new Rng(seed);
  const x = Float64Array.from({ length: n * d }, () => rng.normal());
  const y = Int32Array.from({ length: n }, () => rng.int(H));
  const w = Float64Array.from({ length: H * (d + 1) }, () => rng.normal() * scale);
  return { x, y, w };
}

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tolerance: number): void {
  expect(actual.length).toBe(expected.length);
  let worst = 0;
  for (let k = 0; k < expected.length; k++) worst = Math.max(worst, Math.abs(actual[k] - expected[k]) / Math.max(1, Math.abs(expected[k])));
  expect(worst).toBeLessThan(tolerance);
}

describe('SIMD kernels of the multinomial likelihood', () => {
  it('the committed module is simd-kernels.wat assembled (npm run build:wasm)', async () => {
    const wabt = await wabtModule();
    const file = path.join(__dirname, 'simd-kernels.wat');
    const module = wabt.parseWat('simd-kernels.wat', fs.readFileSync(file, 'utf8'), { simd: true });
    const bytes = Buffer.from(module.toBinary({}).buffer);
    module.destroy();
    expect(bytes.toString('base64')).toBe(SIMD_KERNELS_WASM);
  });

  it.each([
    [13, 5, 3],
    [40, 8, 10],
    [1, 1, 4],
  ])('n %i, d %i, %i heads: log-likelihood, residual cross products and probabilities as computed directly', (n, d, H) => {
    const { x, y, w } = problem(n, d, H, n + d + H);
    const ref = reference(x, n, d, H, y, w);
    const k = new SoftmaxKernels(x, n, d, H, y);
    expect(k.logLikelihood(w)).toBeCloseTo(ref.ll, 10);
    const g = new Float64Array(H * (d + 1));
    k.residualCrossProducts(g);
    expectClose(g, ref.g, 1e-12);
    const { data, offset, stride } = k.probabilities();
    expectClose(
      Float64Array.from({ length: H * n }, (_, q) => data[offset + Math.floor(q / n) * stride + (q % n)]),
      ref.prob,
      1e-14,
    );
  });

  it('predictors hundreds apart: probabilities as accurate as the predictors, tiny ones positive', () => {
    const n = 64;
    const { x, y, w } = problem(n, 6, 5, 7, 60);
    const ref = reference(x, n, 6, 5, y, w);
    const k = new SoftmaxKernels(x, n, 6, 5, y);
    expect(k.logLikelihood(w)).toBeCloseTo(ref.ll, 8);
    const { data, offset, stride } = k.probabilities();
    let worst = 0;
    for (let h = 0; h < 5; h++)
      for (let i = 0; i < n; i++) {
        const p = data[offset + h * stride + i];
        const q = ref.prob[h * n + i];
        expect(p).toBeGreaterThanOrEqual(0);
        expect(p).toBeLessThanOrEqual(1);
        // below exp(-700) the kernel keeps exp(-700); such a probability is 0 for every sum it enters
        if (q > 1e-300) worst = Math.max(worst, Math.abs(p - q) / q);
      }
    expect(worst).toBeLessThan(1e-12);
  });

  it('workspaces sharing the memory in any order each see their own data', () => {
    const a = problem(30, 4, 3, 1);
    const b = problem(50, 7, 6, 2);
    const ka = new SoftmaxKernels(a.x, 30, 4, 3, a.y);
    const kb = new SoftmaxKernels(b.x, 50, 7, 6, b.y);
    const llA = ka.logLikelihood(a.w);
    expect(kb.logLikelihood(b.w)).toBeCloseTo(reference(b.x, 50, 7, 6, b.y, b.w).ll, 10);
    // a's residuals were overwritten by b's evaluation: a recomputes them
    const g = new Float64Array(3 * 5);
    ka.residualCrossProducts(g);
    const ref = reference(a.x, 30, 4, 3, a.y, a.w);
    expectClose(g, ref.g, 1e-12);
    expect(ka.logLikelihood(a.w)).toBe(llA);
  });
});

describe('RBF kernel rows in WebAssembly SIMD', () => {
  it.each([
    [1, 1],
    [7, 3],
    [30, 10],
  ])('n %i, d %i: exp(-gamma |x_i - x_k|^2) to 1e-15, symmetric to the bit, 1 on the diagonal', (n, d) => {
    const rng = new Rng(n * d);
    const x = Float64Array.from({ length: n * d }, () => rng.normal());
    const gamma = 0.7 / d;
    const rows = new RbfRows(x, n, d);
    const K = Array.from({ length: n }, (_, i) => {
      const out = new Float64Array(n);
      rows.row(i, gamma, out);
      return out;
    });
    for (let i = 0; i < n; i++) {
      expect(K[i][i]).toBe(1);
      for (let k = 0; k < n; k++) {
        let s = 0;
        for (let j = 0; j < d; j++) s += (x[i * d + j] - x[k * d + j]) ** 2;
        expect(Math.abs(K[i][k] - Math.exp(-gamma * s))).toBeLessThan(1e-15);
        expect(K[i][k]).toBe(K[k][i]);
      }
    }
    // a vector that is not one of the samples (a row to predict), from an offset into its array
    const v = Float64Array.from({ length: d + 2 }, () => rng.normal());
    const out = new Float64Array(n);
    rows.rowFor(v, 2, gamma, out);
    for (let k = 0; k < n; k++) {
      let s = 0;
      for (let j = 0; j < d; j++) s += (v[2 + j] - x[k * d + j]) ** 2;
      expect(Math.abs(out[k] - Math.exp(-gamma * s))).toBeLessThan(1e-15);
    }
  });

  it('row sets sharing the memory in any order each see their own samples', () => {
    const a = new RbfRows(Float64Array.from([0, 0, 1, 0, 0, 2]), 3, 2);
    const b = new RbfRows(Float64Array.from([5, 5, 5]), 1, 3);
    const out = new Float64Array(3);
    const one = new Float64Array(1);
    a.row(0, 1, out);
    b.row(0, 1, one);
    expect(one[0]).toBe(1);
    a.row(0, 1, out);
    expect(Math.abs(out[1] - Math.exp(-1))).toBeLessThan(1e-16);
    expect(Math.abs(out[2] - Math.exp(-4))).toBeLessThan(1e-16);
  });
});

describe('weighted sums of pairs of columns in WebAssembly SIMD (a multinomial information)', () => {
  /** sum_i w_b[i] (x_j[i] x_m[i]) by dotAt, the JavaScript loop the kernels replace */
  function direct(columns: Float64Array[], known: number, weights: Float64Array, blocks: number, n: number): Float64Array {
    const p = columns.length;
    const pairs = (p * (p + 1)) / 2 - (known * (known + 1)) / 2;
    const out = new Float64Array(blocks * pairs);
    const product = new Float64Array(n);
    for (let b = 0; b < blocks; b++)
      for (let j = known, q = 0; j < p; j++)
        for (let m = 0; m <= j; m++, q++) {
          for (let i = 0; i < n; i++) product[i] = columns[j][i] * columns[m][i];
          out[b * pairs + q] = dotAt(weights, b * n, product, 0, n);
        }
    return out;
  }

  const normalColumns = (rng: Rng, p: number, n: number): Float64Array[] =>
    Array.from({ length: p }, () => Float64Array.from({ length: n }, () => rng.normal()));

  /** weightedPairSums of `given` (weights or probabilities) are those of the loop over `weights`, to the bit */
  function expectSumsOfTheLoop(
    columns: Float64Array[],
    known: number,
    given: Parameters<typeof weightedPairSums>[2],
    weights: Float64Array,
    blocks: number,
    n: number,
  ): void {
    const expected = direct(columns, known, weights, blocks, n);
    const out = new Float64Array(expected.length);
    expect(weightedPairSums(columns, known, given, blocks, n, out)).toBe(expected.length / blocks);
    let differ = 0;
    for (let k = 0; k < out.length; k++) if (!Object.is(out[k], expected[k])) differ++;
    expect(differ).toBe(0);
  }

  it.each([
    [13, 3, 0, 3],
    [4, 1, 0, 1],
    [1002, 5, 0, 2],
    [1001, 7, 3, 1],
    [999, 17, 16, 6],
    [203, 26, 0, 45],
    // products of 465 pairs x 20,000 samples: more than the kernels' memory holds at once, so they go in runs of columns
    [20000, 30, 0, 3],
  ])('n %i, %i columns from %i, %i blocks: the sums of the JavaScript loop to the bit', (n, p, known, blocks) => {
    const rng = new Rng(n + p + known);
    const columns = normalColumns(rng, p, n);
    const weights = Float64Array.from({ length: blocks * n }, () => rng.normal());
    expectSumsOfTheLoop(columns, known, weights, weights, blocks, n);
  });

  it.each([
    [13, 3, 0, 2],
    [1, 2, 0, 3],
    [1002, 5, 2, 9],
    [1131, 4, 3, 9],
    [999, 17, 16, 4],
  ])('n %i, %i columns from %i, %i classes + 1: the weights from the probabilities, the sums to the bit', (n, p, known, width) => {
    const rng = new Rng(n + p + width);
    const columns = normalColumns(rng, p, n);
    // probabilities sample after sample (some exactly 0 or 1, as on separable data), the weights block after block
    const prob = Float64Array.from({ length: n * width }, (_, a) => (a % 7 === 0 ? a % 2 : rng.next() / width));
    const blocks = (width * (width + 1)) / 2;
    const weights = new Float64Array(blocks * n);
    for (let k = 0, b = 0; k < width; k++)
      for (let l = 0; l <= k; l++, b++)
        for (let i = 0; i < n; i++) weights[b * n + i] = prob[i * width + k] * ((k === l ? 1 : 0) - prob[i * width + l]);
    expectSumsOfTheLoop(columns, known, { prob, width }, weights, blocks, n);
  });
});

describe('the Cholesky factor in WebAssembly SIMD', () => {
  /** The row-by-row loop choleskyFactor replaces (linalg.ts, likelihood.ts's fallback). */
  const direct = choleskyRows;

  /** B B' for a random P x m B (rank min(P, m)), lower triangle and upper both filled. */
  function gram(P: number, m: number, seed: number): Float64Array {
    const rng = new Rng(seed);
    const B = Float64Array.from({ length: P * m }, () => rng.normal());
    const A = new Float64Array(P * P);
    for (let a = 0; a < P; a++) for (let c = 0; c < P; c++) A[a * P + c] = dotAt(B, a * m, B, c * m, m);
    return A;
  }

  it.each([
    [1, 3],
    [2, 5],
    [9, 20],
    [17, 40],
    [153, 300],
    [234, 500],
  ])('P = %i: the factor of the JavaScript loop to the bit', (P, m) => {
    const A = gram(P, m, P);
    const expected = new Float64Array(P * P);
    expect(direct(A, expected, P, 0, 1e-14)).toBe(true);
    const L = new Float64Array(P * P);
    expect(choleskyFactor(A, L, P, 0, 1e-14)).toBe(true);
    let differ = 0;
    for (let a = 0; a < P; a++) for (let c = 0; c <= a; c++) if (!Object.is(L[a * P + c], expected[a * P + c])) differ++;
    expect(differ).toBe(0);
  });

  it('a singular matrix fails as the loop does, and a ridge makes it factor to the same bits', () => {
    const P = 30;
    const A = gram(P, 12, 3);
    const L = new Float64Array(P * P);
    const expected = new Float64Array(P * P);
    expect(choleskyFactor(A, L, P, 0, 1e-10)).toBe(false);
    expect(direct(A, expected, P, 0, 1e-10)).toBe(false);
    expect(choleskyFactor(A, L, P, 1e-3, 1e-10)).toBe(true);
    expect(direct(A, expected, P, 1e-3, 1e-10)).toBe(true);
    for (let a = 0; a < P; a++) for (let c = 0; c <= a; c++) expect(L[a * P + c]).toBe(expected[a * P + c]);
  });
});
