import { dotAt } from '../linalg';
import type { Rng } from '../rng';
import type { Design } from './common';
import type { Expansion } from './kernel-expansion';
import { LinearDualKernels } from './simd-kernels';

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

/** The arrays of a dual coordinate descent over n samples of d features. */
export interface DualArrays {
  /** d + 1 weights, the bias last */
  w: Float64Array;
  /** the dual variables (the SVR's beta) */
  alpha: Float64Array;
  /** the diagonal 1 + |x_i|^2 */
  QD: Float64Array;
  /** the labels +-1 (the SVR's targets) */
  y: Float64Array;
  /** the order of the next pass, the active samples first */
  index: Int32Array;
}

/**
 * Where a dual coordinate descent keeps its arrays and runs its passes, each over the active samples
 * index[0, active) in that order: in WebAssembly (LinearDualKernels in simd-kernels.ts) or here (JsDualPasses), to
 * the same bits.
 */
export interface DualPasses {
  /** The arrays for a new fit: w and alpha zero, index 0 .. n - 1, QD and y for the caller to fill; valid until the next start. */
  start(): DualArrays;
  /** One pass of the SVM (linearDualCD): returns the active count after it; out = (largest, smallest projected gradient). */
  svc(active: number, C: number, pgMaxOld: number, pgMinOld: number, out: Float64Array): number;
  /** One pass of the SVR (linearSvrDualCD): returns the active count after it; out = (largest violation, their sum). */
  svr(active: number, C: number, epsilon: number, gmaxOld: number, out: Float64Array): number;
}

/** The passes in JavaScript: the reference of the WebAssembly ones, and for designs too large for those. */
export class JsDualPasses implements DualPasses {
  private readonly arrays: DualArrays;

  constructor(private readonly X: Design) {
    const n = X.rows;
    this.arrays = {
      w: new Float64Array(X.cols + 1),
      alpha: new Float64Array(n),
      QD: new Float64Array(n),
      y: new Float64Array(n),
      index: new Int32Array(n),
    };
  }

  start(): DualArrays {
    const { w, alpha, index } = this.arrays;
    w.fill(0);
    alpha.fill(0);
    for (let i = 0; i < index.length; i++) index[i] = i;
    return this.arrays;
  }

  svc(active: number, C: number, pgMaxOld: number, pgMinOld: number, out: Float64Array): number {
    const { cols: d, data } = this.X;
    const { w, alpha, QD, y, index } = this.arrays;
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
    out[0] = pgMax;
    out[1] = pgMin;
    return active;
  }

  svr(active: number, C: number, epsilon: number, gmaxOld: number, out: Float64Array): number {
    const { cols: d, data } = this.X;
    const { w, alpha: beta, QD, y: z, index } = this.arrays;
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
      let leaves = false;
      if (b === 0) {
        if (Gp < 0) violation = -Gp;
        else if (Gn > 0) violation = Gn;
        else leaves = Gp > gmaxOld && Gn < -gmaxOld;
      } else if (b >= C) {
        if (Gp > 0) violation = Gp;
        else leaves = Gp < -gmaxOld;
      } else if (b <= -C) {
        if (Gn < 0) violation = -Gn;
        else leaves = Gn > gmaxOld;
      } else violation = b > 0 ? Math.abs(Gp) : Math.abs(Gn);
      if (leaves) {
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
    out[0] = gmax;
    out[1] = gnorm;
    return active;
  }
}

/** The passes for the design X: in WebAssembly unless X is too large for them. */
export function dualPasses(X: Design): DualPasses {
  return LinearDualKernels.create(X.data, X.rows, X.cols) ?? new JsDualPasses(X);
}

/**
 * Linear C-SVM by dual coordinate descent (Hsieh et al. 2008, LIBLINEAR's L1-loss solver with its shrinking:
 * a variable at a bound whose gradient points out of the box by more than last pass's largest violation leaves
 * the active set; on convergence of the active set, one more pass over all variables confirms it); the bias is an
 * extra constant feature. Much faster than SMO for linear kernels. The passes run in `passes` (one-vs-rest heads
 * share one: the design is copied into WebAssembly memory once).
 */
export function linearDualCD(X: Design, y: Int8Array, C: number, rng: Rng, eps = 1e-3, passes = dualPasses(X)): Expansion {
  const { rows: n, cols: d, data } = X;
  const { w, QD, y: label, index } = passes.start();
  for (let i = 0; i < n; i++) {
    let s = 1;
    for (let j = 0; j < d; j++) s += data[i * d + j] ** 2;
    QD[i] = s;
    label[i] = y[i];
  }
  const out = new Float64Array(2);
  let active = n;
  let pgMaxOld = Infinity;
  let pgMinOld = -Infinity;
  for (let iter = 0; iter < 1000; iter++) {
    shuffle(index, active, rng);
    active = passes.svc(active, C, pgMaxOld, pgMinOld, out);
    const pgMax = out[0];
    const pgMin = out[1];
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
export function linearSvrDualCD(
  X: Design,
  z: Float64Array,
  C: number,
  epsilon: number,
  rng: Rng,
  eps = 1e-3,
  passes = dualPasses(X),
): Expansion {
  const { rows: n, cols: d, data } = X;
  const { w, QD, y, index } = passes.start();
  for (let i = 0; i < n; i++) QD[i] = 1 + dotAt(data, i * d, data, i * d, d);
  y.set(z.subarray(0, n));
  const out = new Float64Array(2);
  let active = n;
  let gmaxOld = Infinity;
  let gnormInit = -1;
  for (let iter = 0; iter < 1000; iter++) {
    shuffle(index, active, rng);
    active = passes.svr(active, C, epsilon, gmaxOld, out);
    const gmax = out[0];
    const gnorm = out[1];
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
