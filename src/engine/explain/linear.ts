import { columnMeans } from '../models/common';
import type { LinearHead } from '../models/shapley-form';
import type { ExplainedRows, ShapleyInput } from './types';

/**
 * Closed form for outputs linear in the design columns: a coalition's value is linear in the columns, so player p's
 * Shapley value is sum over its columns j of w_j (x_j - mean_b b_j), and the base value intercept + sum w_j mean_b b_j.
 */
export function linearShapley(heads: LinearHead[], { X, background, players }: ShapleyInput): ExplainedRows {
  const { rows: n, cols: d, data } = X;
  const H = heads.length;
  const M = players.count;
  const mean = background.rows > 0 ? columnMeans(background) : new Float64Array(d);
  const base = Float64Array.from(heads, (h) => {
    let s = h.intercept;
    for (let j = 0; j < d; j++) s += (h.weights[j] ?? 0) * mean[j];
    return s;
  });
  const values = new Float64Array(n * H * M);
  const output = new Float64Array(n * H);
  for (let i = 0; i < n; i++) {
    for (let h = 0; h < H; h++) {
      const w = heads[h].weights;
      const at = (i * H + h) * M;
      let out = heads[h].intercept;
      for (let j = 0; j < d; j++) {
        const wj = w[j] ?? 0;
        const x = data[i * d + j];
        out += wj * x;
        values[at + players.of[j]] += wj * (x - mean[j]);
      }
      output[i * H + h] = out;
    }
  }
  return { base, values, output };
}
