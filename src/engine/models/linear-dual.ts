import { dotAt } from '../linalg';
import type { Rng } from '../rng';
import type { Design } from './common';
import type { Expansion } from './kernel-expansion';

/** w[j] += c * x[xo + j] for j < d, four at a time. */
function axpy(c: number, x: Float64Array, xo: number, w: Float64Array, d: number): void {
  let j = 0;
  for (; j + 3 < d; j += 4) {
    const a = w[j] + c * x[xo + j];
    const b = w[j + 1] + c * x[xo + j + 1];
    const e = w[j + 2] + c * x[xo + j + 2];
    const f = w[j + 3] + c * x[xo + j + 3];
    w[j] = a;
    w[j + 1] = b;
    w[j + 2] = e;
    w[j + 3] = f;
  }
  for (; j < d; j++) w[j] += c * x[xo + j];
}

/** Puts index[0, active) in a random order (Fisher-Yates), as LIBLINEAR does before each pass. */
function shuffle(index: Int32Array, active: number, rng: Rng): void {
  for (let k = 0; k < active - 1; k++) {
    const j = k + rng.int(active - k);
    const t = index[k];
    index[k] = index[j];
    index[j] = t;
  }
}

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
    shuffle(index, active, rng);
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
        axpy(delta, data, xi, w, d);
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

/**
 * Linear epsilon-SVR by dual coordinate descent (Ho & Lin 2012, LIBLINEAR's L1-loss SVR solver with its
 * shrinking): min over w of 1/2 ||w||^2 + C sum max(0, |z_i - w.x_i| - epsilon), the bias an extra constant
 * feature (so, unlike LIBSVM's, penalized: on standardized features and target it stays near 0). Each pass
 * visits the active samples in random order and moves beta_i = alpha_i - alpha_i^* in [-C, C] to its optimum
 * given the others; a sample at 0 or a bound whose gradient points out of its range by more than last pass's
 * largest violation leaves the active set. Stops when the summed violations fall below eps times the first
 * pass's (then confirmed on all samples), or after 1,000 passes.
 */
export function linearSvrDualCD(X: Design, z: Float64Array, C: number, epsilon: number, rng: Rng, eps = 1e-3): Expansion {
  const { rows: n, cols: d, data } = X;
  const w = new Float64Array(d + 1);
  const beta = new Float64Array(n);
  const QD = new Float64Array(n);
  for (let i = 0; i < n; i++) QD[i] = 1 + dotAt(data, i * d, data, i * d, d);
  const index = Int32Array.from({ length: n }, (_, i) => i);
  let active = n;
  let gmaxOld = Infinity;
  let gnormInit = -1;
  for (let iter = 0; iter < 1000; iter++) {
    shuffle(index, active, rng);
    let gmax = 0;
    let gnorm = 0;
    for (let s = 0; s < active; s++) {
      const i = index[s];
      const xi = i * d;
      const G = w[d] + dotAt(w, 0, data, xi, d) - z[i];
      const Gp = G + epsilon;
      const Gn = G - epsilon;
      const b = beta[i];
      let violation = 0;
      let out = false;
      if (b === 0) {
        if (Gp < 0) violation = -Gp;
        else if (Gn > 0) violation = Gn;
        else out = Gp > gmaxOld && Gn < -gmaxOld;
      } else if (b >= C) {
        if (Gp > 0) violation = Gp;
        else out = Gp < -gmaxOld;
      } else if (b <= -C) {
        if (Gn < 0) violation = -Gn;
        else out = Gn > gmaxOld;
      } else violation = b > 0 ? Math.abs(Gp) : Math.abs(Gn);
      if (out) {
        active--;
        index[s] = index[active];
        index[active] = i;
        s--;
        continue;
      }
      if (violation > gmax) gmax = violation;
      gnorm += violation;
      // the minimizer of the one-variable problem: a Newton step on each side of 0, else 0
      const H = QD[i];
      let step: number;
      if (Gp < H * b) step = -Gp / H;
      else if (Gn > H * b) step = -Gn / H;
      else step = -b;
      if (Math.abs(step) < 1e-12) continue;
      const next = Math.min(Math.max(b + step, -C), C);
      const delta = next - b;
      beta[i] = next;
      if (delta !== 0) {
        axpy(delta, data, xi, w, d);
        w[d] += delta;
      }
    }
    if (gnormInit < 0) gnormInit = gnorm;
    if (gnorm <= eps * gnormInit) {
      if (active === n) break;
      active = n;
      gmaxOld = Infinity;
      continue;
    }
    gmaxOld = gmax;
  }
  return { coef: new Float64Array(0), sv: new Float64Array(0), w: w.slice(0, d), rho: -w[d] };
}
