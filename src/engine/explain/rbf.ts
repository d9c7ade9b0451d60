import type { Design } from '../models/common';
import type { KernelHead } from '../models/shapley-form';
import { coalitionSizes, coalitionWeights, shapleyFromCoalitions } from './coalitions';
import type { Players, ShapleyInput } from './types';

/**
 * Exact Shapley values of RBF kernel machines. The kernel is a product over the players:
 * exp(-gamma |sv - z|^2) = prod_p exp(-gamma |sv_p - z_p|^2), so at the hybrid row (x on coalition S, b elsewhere)
 * each support vector k contributes coef_k prod_{p in S} a_kp prod_{p not in S} c_kbp, with a_kp its factor at x and
 * c_kbp at background row b. Two exact ways, the cheaper chosen:
 * - coalitions (up to SUBSET_MAX_PLAYERS players): h_k(T) = mean_b prod_{p in T} c_kbp for every set T, once per
 *   machine; a row's coalition values are then sum_k coef_k prod_{p in S} a_kp h_k(complement of S), 2^players x
 *   support vectors per row, whatever the background's size;
 * - quadrature beyond: a product game's Shapley value is (Owen 1972, the multilinear extension)
 *   phi_p = (a_p - c_p) int_0^1 prod_{q != p} (c_q + t (a_q - c_q)) dt, a polynomial of degree players - 1 in t that
 *   Gauss-Legendre quadrature with ceil(players / 2) nodes integrates exactly; support vectors x background rows x
 *   nodes x players per row.
 */

/** Coalitions are enumerated up to this many players (2^12 sets per support vector). */
export const SUBSET_MAX_PLAYERS = 12;
/** ... and while the table of every set of every support vector holds at most this many numbers (64 MB). */
const SUBSET_MAX_TABLE = 1 << 23;

/** Gauss-Legendre nodes and weights on [0, 1] (Newton's method on the Legendre polynomial, as Numerical Recipes' gauleg). */
export function gaussLegendre(count: number): { nodes: Float64Array; weights: Float64Array } {
  const nodes = new Float64Array(count);
  const weights = new Float64Array(count);
  for (let i = 0; i < Math.ceil(count / 2); i++) {
    let z = Math.cos((Math.PI * (i + 0.75)) / (count + 0.5));
    let dp = 0;
    for (let iter = 0; iter < 100; iter++) {
      let p1 = 1;
      let p2 = 0;
      for (let j = 1; j <= count; j++) {
        const p3 = p2;
        p2 = p1;
        p1 = ((2 * j - 1) * z * p2 - (j - 1) * p3) / j;
      }
      dp = (count * (z * p1 - p2)) / (z * z - 1);
      const z1 = z;
      z = z1 - p1 / dp;
      if (Math.abs(z - z1) < 1e-15) break;
    }
    // on [-1, 1]: +-z with weight 2 / ((1 - z^2) dp^2); on [0, 1]: (1 -+ z) / 2 with half the weight
    const w = 1 / ((1 - z * z) * dp * dp);
    nodes[i] = (1 - z) / 2;
    nodes[count - 1 - i] = (1 + z) / 2;
    weights[i] = w;
    weights[count - 1 - i] = w;
  }
  return { nodes, weights };
}

/** factors[k * M + p] = exp(-gamma sum over p's columns (sv_k - row)^2) for the row at `at` of `data`. */
function playerFactors(
  head: KernelHead,
  d: number,
  gamma: number,
  players: Players,
  data: Float64Array,
  at: number,
  out: Float64Array,
): void {
  const K = head.coef.length;
  const M = players.count;
  out.fill(0, 0, K * M);
  for (let k = 0; k < K; k++) {
    for (let j = 0; j < d; j++) {
      const diff = head.sv[k * d + j] - data[at + j];
      out[k * M + players.of[j]] += diff * diff;
    }
    for (let p = 0; p < M; p++) out[k * M + p] = Math.exp(-gamma * out[k * M + p]);
  }
}

/** The machine's kernel sum (without rho) at each row: sum_k coef_k prod_p factors. */
function kernelSums(head: KernelHead, X: Design, gamma: number, players: Players): { sums: Float64Array; factors: Float64Array } {
  const K = head.coef.length;
  const M = players.count;
  const factors = new Float64Array(X.rows * K * M);
  const sums = new Float64Array(X.rows);
  const one = new Float64Array(K * M);
  for (let r = 0; r < X.rows; r++) {
    playerFactors(head, X.cols, gamma, players, X.data, r * X.cols, one);
    factors.set(one, r * K * M);
    let s = 0;
    for (let k = 0; k < K; k++) {
      let prod = head.coef[k];
      for (let p = 0; p < M; p++) prod *= one[k * M + p];
      s += prod;
    }
    sums[r] = s;
  }
  return { sums, factors };
}

/** Whether the coalition table is used for this many players and support vectors. */
export function usesCoalitions(players: number, supportVectors: number): boolean {
  return players <= SUBSET_MAX_PLAYERS && supportVectors * 2 ** players <= SUBSET_MAX_TABLE;
}

export function rbfShapley(
  heads: KernelHead[],
  gamma: number,
  offset: number,
  factor: number,
  { X, background, players }: ShapleyInput,
  /** the way to use (tests): by default coalitions when usesCoalitions, else quadrature */
  way?: 'coalitions' | 'quadrature',
): { base: Float64Array; values: Float64Array; output: Float64Array } {
  const n = X.rows;
  const H = heads.length;
  const M = players.count;
  const B = background.rows;
  const values = new Float64Array(n * H * M);
  const output = new Float64Array(n * H);
  const base = new Float64Array(H);
  const phi = new Float64Array(M);
  heads.forEach((head, h) => {
    const K = head.coef.length;
    const bg = kernelSums(head, background, gamma, players);
    base[h] = offset + factor * (bg.sums.reduce((s, v) => s + v, 0) / Math.max(1, B) - head.rho);
    const a = new Float64Array(K * M);
    const coalitions = way ? way === 'coalitions' : usesCoalitions(M, K);
    const explain = coalitions ? coalitionMethod(head, bg.factors, B, M) : quadratureMethod(head, bg.factors, B, M);
    for (let i = 0; i < n; i++) {
      playerFactors(head, X.cols, gamma, players, X.data, i * X.cols, a);
      let s = 0;
      for (let k = 0; k < K; k++) {
        let prod = head.coef[k];
        for (let p = 0; p < M; p++) prod *= a[k * M + p];
        s += prod;
      }
      output[i * H + h] = offset + factor * (s - head.rho);
      explain(a, phi);
      for (let p = 0; p < M; p++) values[(i * H + h) * M + p] = factor * phi[p];
    }
  });
  return { base, values, output };
}

/** The coalition table of one machine: phi of a row from its factors a (K x M). */
function coalitionMethod(head: KernelHead, c: Float64Array, B: number, M: number): (a: Float64Array, phi: Float64Array) => void {
  const K = head.coef.length;
  const C = 1 << M;
  const full = C - 1;
  // table[k * C + T] = mean over the background of prod_{p in T} c_kbp
  const table = new Float64Array(K * C);
  const prod = new Float64Array(C);
  for (let k = 0; k < K; k++) {
    for (let r = 0; r < B; r++) {
      const at = (r * K + k) * M;
      prod[0] = 1;
      for (let T = 1; T < C; T++) {
        const low = 31 - Math.clz32(T & -T);
        prod[T] = prod[T & (T - 1)] * c[at + low];
      }
      for (let T = 0; T < C; T++) table[k * C + T] += prod[T] / B;
    }
  }
  const weights = coalitionWeights(M);
  const sizes = coalitionSizes(M);
  const v = new Float64Array(C);
  return (a, phi) => {
    v.fill(0);
    for (let k = 0; k < K; k++) {
      const coef = head.coef[k];
      if (coef === 0) continue;
      prod[0] = coef;
      const at = k * M;
      for (let S = 1; S < C; S++) {
        const low = 31 - Math.clz32(S & -S);
        prod[S] = prod[S & (S - 1)] * a[at + low];
      }
      for (let S = 0; S < C; S++) v[S] += prod[S] * table[k * C + (full ^ S)];
    }
    shapleyFromCoalitions(v, M, weights, sizes, phi, 0);
  };
}

/** Owen's integral by Gauss-Legendre quadrature, over every (support vector, background row): phi from factors a. */
function quadratureMethod(head: KernelHead, c: Float64Array, B: number, M: number): (a: Float64Array, phi: Float64Array) => void {
  const K = head.coef.length;
  const G = Math.max(1, Math.ceil(M / 2));
  const { nodes, weights } = gaussLegendre(G);
  const m = new Float64Array(M);
  const prefix = new Float64Array(M + 1);
  const acc = new Float64Array(M);
  return (a, phi) => {
    phi.fill(0);
    for (let k = 0; k < K; k++) {
      const coef = head.coef[k];
      if (coef === 0) continue;
      const ak = k * M;
      for (let r = 0; r < B; r++) {
        const cb = (r * K + k) * M;
        acc.fill(0);
        for (let g = 0; g < G; g++) {
          const t = nodes[g];
          prefix[0] = 1;
          for (let p = 0; p < M; p++) {
            m[p] = c[cb + p] + t * (a[ak + p] - c[cb + p]);
            prefix[p + 1] = prefix[p] * m[p];
          }
          // the product of the others: prefix before p times the suffix after it
          let suffix = weights[g];
          for (let p = M - 1; p >= 0; p--) {
            acc[p] += prefix[p] * suffix;
            suffix *= m[p];
          }
        }
        for (let p = 0; p < M; p++) phi[p] += (coef * (a[ak + p] - c[cb + p]) * acc[p]) / B;
      }
    }
  };
}
