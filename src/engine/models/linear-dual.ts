import { dotAt } from '../linalg';
import type { Rng } from '../rng';
import type { Design } from './common';
import type { Expansion } from './kernel-expansion';

/**
 * Linear C-SVM by dual coordinate descent (Hsieh et al. 2008, LIBLINEAR's L1-loss solver with its shrinking:
 * a variable at a bound whose gradient points out of the box by more than last pass's largest violation leaves
 * the active set; on convergence of the active set, one more pass over all variables confirms it); the bias is an
 * extra constant feature. Much faster than SMO for linear kernels.
 */
export function linearDualCD(X: Design, y: Int8Array, C: number, rng: Rng, eps = 1e-3): Expansion {
  const { rows: n, cols: d, data } = X;
  const w = new Float64Array(d + 1);
  const alpha = new Float64Array(n);
  const QD = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 1;
    for (let j = 0; j < d; j++) s += data[i * d + j] ** 2;
    QD[i] = s;
  }
  const index = Int32Array.from({ length: n }, (_, i) => i);
  let active = n;
  let pgMaxOld = Infinity;
  let pgMinOld = -Infinity;
  for (let iter = 0; iter < 1000; iter++) {
    for (let k = 0; k < active - 1; k++) {
      const j = k + rng.int(active - k);
      const t = index[k];
      index[k] = index[j];
      index[j] = t;
    }
    let pgMax = -Infinity;
    let pgMin = Infinity;
    for (let s = 0; s < active; s++) {
      const i = index[s];
      const xi = i * d;
      const G = y[i] * (w[d] + dotAt(w, 0, data, xi, d)) - 1;
      let PG = 0;
      if (alpha[i] === 0) {
        if (G > pgMaxOld) {
          active--;
          index[s] = index[active];
          index[active] = i;
          s--;
          continue;
        }
        if (G < 0) PG = G;
      } else if (alpha[i] === C) {
        if (G < pgMinOld) {
          active--;
          index[s] = index[active];
          index[active] = i;
          s--;
          continue;
        }
        if (G > 0) PG = G;
      } else PG = G;
      if (PG > pgMax) pgMax = PG;
      if (PG < pgMin) pgMin = PG;
      if (Math.abs(PG) > 1e-12) {
        const old = alpha[i];
        alpha[i] = Math.min(Math.max(old - G / QD[i], 0), C);
        const delta = (alpha[i] - old) * y[i];
        for (let j = 0; j < d; j++) w[j] += delta * data[xi + j];
        w[d] += delta;
      }
    }
    if (pgMax - pgMin <= eps) {
      if (active === n) break;
      active = n;
      pgMaxOld = Infinity;
      pgMinOld = -Infinity;
      continue;
    }
    pgMaxOld = pgMax > 0 ? pgMax : Infinity;
    pgMinOld = pgMin < 0 ? pgMin : -Infinity;
  }
  return { coef: new Float64Array(0), sv: new Float64Array(0), w: w.slice(0, d), rho: -w[d] };
}
