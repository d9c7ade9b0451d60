import type { Design } from '../models/common';
import { Rng } from '../rng';
import type { ExplainedRows, Players, ShapleyInput } from './types';

/**
 * Shapley values from the values of every coalition, and the two ways of getting those of an output known only
 * through its rows: every coalition enumerated, or permutations sampled.
 */

/** Enumeration is used up to this many players: 2^8 coalitions x 100 background rows = 25,600 rows evaluated per row explained. */
export const ENUMERATION_MAX_PLAYERS = 8;

/** w(s) = s! (m - s - 1)! / m!, the weight of a coalition of s players in a player's value, for s < m. */
export function coalitionWeights(m: number): Float64Array {
  const w = new Float64Array(Math.max(1, m));
  for (let s = 0; s < m; s++) {
    // 1 / (m C(m - 1, s)) as a product of ratios
    let v = 1 / m;
    const lo = Math.min(s, m - 1 - s);
    const hi = m - 1 - lo;
    for (let k = 1; k <= lo; k++) v *= k / (hi + k);
    w[s] = v;
  }
  return w;
}

/** Players in each coalition mask (bit p = player p), for masks below 2^m. */
export function coalitionSizes(m: number): Uint8Array {
  const size = new Uint8Array(1 << m);
  for (let s = 1; s < size.length; s++) size[s] = size[s >> 1] + (s & 1);
  return size;
}

/**
 * Each player's Shapley value of the game v (v[S] for every coalition mask S of m players) into out[at .. at + m):
 * sum over S without p of w(|S|) (v(S + p) - v(S)).
 */
export function shapleyFromCoalitions(
  v: ArrayLike<number>,
  m: number,
  weights: Float64Array,
  sizes: Uint8Array,
  out: Float64Array,
  at: number,
): void {
  const full = 1 << m;
  for (let p = 0; p < m; p++) {
    const bit = 1 << p;
    let s = 0;
    for (let S = 0; S < full; S++) if (!(S & bit)) s += weights[sizes[S]] * (v[S | bit] - v[S]);
    out[at + p] = s;
  }
}

/** Row `i` of X on the columns of the players in the coalition (inS[p] = 1), background row `r` elsewhere, into `out` at `at`. */
function hybrid(
  X: Design,
  i: number,
  background: Design,
  r: number,
  players: Players,
  inS: Uint8Array,
  out: Float64Array,
  at: number,
): void {
  const d = X.cols;
  for (let j = 0; j < d; j++) out[at + j] = inS[players.of[j]] ? X.data[i * d + j] : background.data[r * d + j];
}

export type Evaluate = (X: Design) => Float64Array;

/**
 * Every coalition of every row, evaluated against every background row: exact for any output, at 2^players x
 * background rows evaluations per row explained.
 */
export function enumerationShapley(evaluate: Evaluate, H: number, { X, background, players }: ShapleyInput): ExplainedRows {
  const n = X.rows;
  const d = X.cols;
  const M = players.count;
  const B = background.rows;
  const C = 1 << M;
  const weights = coalitionWeights(M);
  const sizes = coalitionSizes(M);
  const values = new Float64Array(n * H * M);
  const output = new Float64Array(n * H);
  const base = meanOutput(evaluate(background), B, H);
  const rows = new Float64Array(C * B * d);
  const v = new Float64Array(C);
  const inS = new Uint8Array(M);
  for (let i = 0; i < n; i++) {
    for (let S = 0; S < C; S++) {
      for (let p = 0; p < M; p++) inS[p] = (S >> p) & 1;
      for (let r = 0; r < B; r++) hybrid(X, i, background, r, players, inS, rows, (S * B + r) * d);
    }
    const out = evaluate({ data: rows, rows: C * B, cols: d });
    for (let h = 0; h < H; h++) {
      for (let S = 0; S < C; S++) {
        let s = 0;
        for (let r = 0; r < B; r++) s += out[(S * B + r) * H + h];
        v[S] = s / B;
      }
      // the full coalition is x itself whatever the background row
      output[i * H + h] = out[(C - 1) * B * H + h];
      shapleyFromCoalitions(v, M, weights, sizes, values, (i * H + h) * M);
    }
  }
  return { base, values, output };
}

/** The mean of each of H columns over n rows. */
function meanOutput(out: Float64Array, n: number, H: number): Float64Array {
  const m = new Float64Array(H);
  for (let i = 0; i < n; i++) for (let h = 0; h < H; h++) m[h] += out[i * H + h] / n;
  return m;
}

/** Sampling stops once every value's standard error is below this fraction of the output's spread over the background. */
export const SAMPLING_RELATIVE_SE = 0.01;
/** Rounds of sampling at most (a round: one antithetic pair of permutations per background row). */
export const SAMPLING_MAX_ROUNDS = 20;

/**
 * Permutation sampling with antithetic pairs (Strumbelj and Kononenko 2014; Mitchell et al. 2022): a permutation of
 * the players and its reverse, each walked from the empty coalition to the full one on one background row, give each
 * player's marginal contribution twice; their mean is one draw of the player's value. A round draws one such pair for
 * each background row, in a random order, so that after every round the draws' sum over the players telescopes to the
 * output minus the mean output over the background: base + the values equal the output exactly, as the exact methods'.
 * Rounds go on until each value's standard error (the draws' standard deviation / sqrt(draws)) is below
 * SAMPLING_RELATIVE_SE x the standard deviation of the output over the background, or SAMPLING_MAX_ROUNDS rounds.
 */
export function samplingShapley(
  evaluate: Evaluate,
  H: number,
  { X, background, players }: ShapleyInput,
  seed: number,
): { base: Float64Array; values: Float64Array; output: Float64Array; standardErrors: Float64Array } {
  const n = X.rows;
  const d = X.cols;
  const M = players.count;
  const B = background.rows;
  const backgroundOut = evaluate(background);
  const base = meanOutput(backgroundOut, B, H);
  let spread = 0;
  for (let h = 0; h < H; h++) {
    let ss = 0;
    for (let r = 0; r < B; r++) ss += (backgroundOut[r * H + h] - base[h]) ** 2;
    spread = Math.max(spread, Math.sqrt(ss / Math.max(1, B - 1)));
  }
  const target = SAMPLING_RELATIVE_SE * (spread > 0 ? spread : 1);
  const values = new Float64Array(n * H * M);
  const output = new Float64Array(n * H);
  const standardErrors = new Float64Array(n * H * M);
  // one round: B pairs x 2 permutations x (M + 1) coalitions from the empty one to the full one
  const steps = M + 1;
  const rows = new Float64Array(B * 2 * steps * d);
  const perm = new Int32Array(M);
  const order = new Int32Array(B);
  const sum = new Float64Array(H * M);
  const sumSq = new Float64Array(H * M);
  const draw = new Float64Array(H * M);
  const inS = new Uint8Array(M);
  const rng = new Rng(seed);
  for (let i = 0; i < n; i++) {
    sum.fill(0);
    sumSq.fill(0);
    let draws = 0;
    const perms: Int32Array[] = [];
    for (let round = 0; round < SAMPLING_MAX_ROUNDS; round++) {
      for (let r = 0; r < B; r++) order[r] = r;
      rng.shuffle(order);
      perms.length = 0;
      for (let q = 0; q < B; q++) {
        for (let p = 0; p < M; p++) perm[p] = p;
        rng.shuffle(perm);
        perms.push(Int32Array.from(perm));
        for (let t = 0; t < 2; t++) {
          inS.fill(0);
          for (let s = 0; s < steps; s++) {
            if (s > 0) inS[perm[t === 0 ? s - 1 : M - s]] = 1;
            hybrid(X, i, background, order[q], players, inS, rows, ((q * 2 + t) * steps + s) * d);
          }
        }
      }
      const out = evaluate({ data: rows, rows: B * 2 * steps, cols: d });
      if (round === 0) for (let h = 0; h < H; h++) output[i * H + h] = out[(steps - 1) * H + h];
      for (let q = 0; q < B; q++) {
        draw.fill(0);
        const pm = perms[q];
        for (let t = 0; t < 2; t++)
          for (let s = 1; s < steps; s++) {
            const p = pm[t === 0 ? s - 1 : M - s];
            const at = ((q * 2 + t) * steps + s) * H;
            for (let h = 0; h < H; h++) draw[h * M + p] += (out[at + h] - out[at - H + h]) / 2;
          }
        for (let k = 0; k < H * M; k++) {
          sum[k] += draw[k];
          sumSq[k] += draw[k] * draw[k];
        }
        draws++;
      }
      let worst = 0;
      for (let k = 0; k < H * M; k++) {
        const mean = sum[k] / draws;
        const variance = Math.max(0, sumSq[k] / draws - mean * mean) * (draws / Math.max(1, draws - 1));
        standardErrors[i * H * M + k] = Math.sqrt(variance / draws);
        worst = Math.max(worst, standardErrors[i * H * M + k]);
      }
      if (worst < target) break;
    }
    for (let k = 0; k < H * M; k++) values[i * H * M + k] = sum[k] / draws;
  }
  return { base, values, output, standardErrors };
}
