import type { KernelExpansions } from '../models/shapley-form';
import { coalitionSizes, coalitionWeights, shapleyFromCoalitions } from './coalitions';
import type { ExplainedRows, Players, ShapleyInput } from './types';

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
  sv: Float64Array,
  K: number,
  d: number,
  gamma: number,
  players: Players,
  data: Float64Array,
  at: number,
  out: Float64Array,
): void {
  const M = players.count;
  out.fill(0, 0, K * M);
  for (let k = 0; k < K; k++) {
    for (let j = 0; j < d; j++) {
      const diff = sv[k * d + j] - data[at + j];
      out[k * M + players.of[j]] += diff * diff;
    }
    for (let p = 0; p < M; p++) out[k * M + p] = Math.exp(-gamma * out[k * M + p]);
  }
}

/** Whether the coalition table is used for this many players and support vectors. */
export function usesCoalitions(players: number, supportVectors: number): boolean {
  return players <= SUBSET_MAX_PLAYERS && supportVectors * 2 ** players <= SUBSET_MAX_TABLE;
}

/** Adds each head's Shapley values of a row (heads x players, into phi) from its factors a (K x M). */
type RowMethod = (a: Float64Array, phi: Float64Array) => void;

export function rbfShapley(
  machines: KernelExpansions,
  gamma: number,
  offset: number,
  factor: number,
  { X, background, players }: ShapleyInput,
  /** the way to use (tests): by default coalitions when usesCoalitions, else quadrature */
  way?: 'coalitions' | 'quadrature',
): ExplainedRows {
  const n = X.rows;
  const d = X.cols;
  const { sv, coefs, rho } = machines;
  const H = coefs.length;
  const K = H > 0 ? coefs[0].length : 0;
  const M = players.count;
  const B = background.rows;
  // the background's factors, (row x K + k) x M
  const c = new Float64Array(B * K * M);
  const one = new Float64Array(K * M);
  for (let r = 0; r < B; r++) {
    playerFactors(sv, K, d, gamma, players, background.data, r * d, one);
    c.set(one, r * K * M);
  }
  // each head's kernel sum at each background row: the base value
  const base = Float64Array.from(coefs, (coef, h) => {
    let s = 0;
    for (let r = 0; r < B; r++)
      for (let k = 0; k < K; k++) {
        let prod = coef[k];
        for (let p = 0; p < M; p++) prod *= c[(r * K + k) * M + p];
        s += prod;
      }
    return offset + factor * (s / Math.max(1, B) - rho[h]);
  });
  const coalitions = way ? way === 'coalitions' : usesCoalitions(M, K);
  const explain = coalitions ? coalitionMethod(coefs, c, K, B, M) : quadratureMethod(coefs, c, K, B, M);
  const values = new Float64Array(n * H * M);
  const output = new Float64Array(n * H);
  const a = new Float64Array(K * M);
  const phi = new Float64Array(H * M);
  for (let i = 0; i < n; i++) {
    playerFactors(sv, K, d, gamma, players, X.data, i * d, a);
    for (let h = 0; h < H; h++) {
      let s = 0;
      for (let k = 0; k < K; k++) {
        let prod = coefs[h][k];
        for (let p = 0; p < M; p++) prod *= a[k * M + p];
        s += prod;
      }
      output[i * H + h] = offset + factor * (s - rho[h]);
    }
    explain(a, phi);
    for (let q = 0; q < H * M; q++) values[i * H * M + q] = factor * phi[q];
  }
  return { base, values, output };
}

/**
 * The coalition table: h_k(T) = mean over the background of prod_{p in T} c_kbp for every support vector k and set T,
 * once; a row's coalition values per head are then sum_k coef_hk prod_{p in S} a_kp h_k(complement of S).
 */
function coalitionMethod(coefs: Float64Array[], c: Float64Array, K: number, B: number, M: number): RowMethod {
  const H = coefs.length;
  const C = 1 << M;
  const full = C - 1;
  const table = new Float64Array(K * C);
  const prod = new Float64Array(C);
  for (let k = 0; k < K; k++) {
    for (let r = 0; r < B; r++) {
      const at = (r * K + k) * M;
      prod[0] = 1;
      for (let T = 1; T < C; T++) prod[T] = prod[T & (T - 1)] * c[at + 31 - Math.clz32(T & -T)];
      for (let T = 0; T < C; T++) table[k * C + T] += prod[T] / B;
    }
  }
  const weights = coalitionWeights(M);
  const sizes = coalitionSizes(M);
  const v = new Float64Array(H * C);
  return (a, phi) => {
    v.fill(0);
    for (let k = 0; k < K; k++) {
      const at = k * M;
      prod[0] = 1;
      for (let S = 1; S < C; S++) prod[S] = prod[S & (S - 1)] * a[at + 31 - Math.clz32(S & -S)];
      for (let S = 0; S < C; S++) prod[S] *= table[k * C + (full ^ S)];
      for (let h = 0; h < H; h++) {
        const coef = coefs[h][k];
        if (coef === 0) continue;
        const vh = h * C;
        for (let S = 0; S < C; S++) v[vh + S] += coef * prod[S];
      }
    }
    for (let h = 0; h < H; h++) shapleyFromCoalitions(v.subarray(h * C, (h + 1) * C), M, weights, sizes, phi, h * M);
  };
}

/** Owen's integral by Gauss-Legendre quadrature, over every (support vector, background row). */
function quadratureMethod(coefs: Float64Array[], c: Float64Array, K: number, B: number, M: number): RowMethod {
  const H = coefs.length;
  const G = Math.max(1, Math.ceil(M / 2));
  const { nodes, weights } = gaussLegendre(G);
  const m = new Float64Array(M);
  const prefix = new Float64Array(M + 1);
  const acc = new Float64Array(M);
  return (a, phi) => {
    phi.fill(0);
    for (let k = 0; k < K; k++) {
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
        for (let p = 0; p < M; p++) {
          const term = ((a[ak + p] - c[cb + p]) * acc[p]) / B;
          for (let h = 0; h < H; h++) phi[h * M + p] += coefs[h][k] * term;
        }
      }
    }
  };
}
