import { Matrix, solve } from 'ml-matrix';
import { solveCholesky } from '../linalg';
import type { Design } from './common';
import { crossProducts, rowsTimesVector } from './dense';
import { SoftmaxKernels } from './simd-kernels';

/**
 * In-place Cholesky factorization of the symmetric positive definite P x P matrix `a` (lower triangle read and
 * overwritten with L); false when `a` is not numerically positive definite.
 */
function cholesky(a: Float64Array, P: number): boolean {
  for (let j = 0; j < P; j++) {
    const rj = j * P;
    let s = a[rj + j];
    for (let k = 0; k < j; k++) s -= a[rj + k] * a[rj + k];
    if (!(s > 0)) return false;
    const ljj = Math.sqrt(s);
    a[rj + j] = ljj;
    for (let i = j + 1; i < P; i++) {
      const ri = i * P;
      let t = a[ri + j];
      for (let k = 0; k < j; k++) t -= a[ri + k] * a[rj + k];
      a[ri + j] = t / ljj;
    }
  }
  return true;
}

/**
 * The ridge logistic objective of one fit (see LogisticRegression): (1/n) sum log p(y_i | x_i) - (1/2) sum
 * penalty_q w_q^2 over the weights w (heads x (1 + d): intercept then slopes; one sigmoid head for two classes,
 * one softmax head per class otherwise), with its gradient and the negative Hessian. Two classes: the sigmoid's
 * passes in JavaScript over the caller's row-major design and a column-major copy (dense.ts). More: the softmax's
 * passes in WebAssembly SIMD over the kernels' own copy of the design (simd-kernels.ts). Every buffer is
 * allocated here, once per fit.
 */
export class SoftmaxObjective {
  readonly n: number;
  readonly D: number;
  /** heads: 1 for two classes, else K */
  readonly H: number;
  readonly P: number;
  readonly y: Int32Array;
  readonly penalty: Float64Array;
  /** the design, row-major n x d (the caller's) */
  private readonly xr: Float64Array;
  private readonly d: number;
  /** the design with a leading column of ones, column-major: xc[a * n + i] (two classes: made here; more: by the first `hessian`) */
  private xc = new Float64Array(0);
  /** more than two classes: the kernels' workspace */
  private readonly kernels: SoftmaxKernels | null;
  /** two classes: the probability of the second class, then 1[y_i = 1] - probability, from the last `value` */
  private readonly prob: Float64Array;
  private readonly resid: Float64Array;
  /** the weighted columns of one Hessian block, allocated by the first `hessian` */
  private scratch = new Float64Array(0);

  constructor(
    X: Design,
    y: Float64Array,
    readonly K: number,
    lambda: number,
  ) {
    const { rows: n, cols: d, data } = X;
    const D = d + 1;
    this.n = n;
    this.D = D;
    this.H = K === 2 ? 1 : K;
    this.P = this.H * D;
    this.y = Int32Array.from(y);
    // intercepts unpenalized (a 1e-6 ridge keeps softmax intercepts identifiable), slopes lambda
    this.penalty = Float64Array.from({ length: this.P }, (_, q) => (q % D === 0 ? (this.H > 1 ? 1e-6 : 0) : lambda));
    this.xr = data;
    this.d = d;
    const binary = this.H === 1;
    this.kernels = binary ? null : new SoftmaxKernels(data, n, d, this.H, this.y);
    if (binary) this.columnMajor();
    this.prob = new Float64Array(binary ? n : 0);
    this.resid = new Float64Array(binary ? n : 0);
  }

  /** The column-major copy of the design with its column of ones (once). */
  private columnMajor(): Float64Array {
    if (this.xc.length > 0) return this.xc;
    const { n, d, xr } = this;
    const xc = new Float64Array(this.D * n);
    xc.fill(1, 0, n);
    for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) xc[(j + 1) * n + i] = xr[i * d + j];
    this.xc = xc;
    return xc;
  }

  /** The starting weights: the intercepts of the class frequencies (log-odds; for softmax heads, centred log-frequencies). */
  start(): Float64Array {
    const { n, K, H, D } = this;
    const w = new Float64Array(this.P);
    const freq = new Float64Array(K);
    for (let i = 0; i < n; i++) freq[this.y[i]]++;
    const logFreq = Array.from(freq, (f) => Math.log(Math.max(f, 0.5) / n));
    if (H === 1) w[0] = logFreq[1] - logFreq[0];
    else {
      const mean = logFreq.reduce((a, b) => a + b, 0) / K;
      for (let h = 0; h < H; h++) w[h * D] = logFreq[h] - mean;
    }
    return w;
  }

  /** The objective at w; keeps the probabilities and residuals for `gradient` and `hessian`. */
  value(w: Float64Array): number {
    const ll = this.kernels ? this.kernels.logLikelihood(w) : this.binaryLogLikelihood(w);
    let pen = 0;
    for (let q = 0; q < w.length; q++) pen += this.penalty[q] * w[q] * w[q];
    return ll / this.n - pen / 2;
  }

  private binaryLogLikelihood(w: Float64Array): number {
    const { n, y, prob, resid } = this;
    rowsTimesVector(this.xr, n, this.d, w.subarray(1), w[0], prob);
    let ll = 0;
    for (let i = 0; i < n; i++) {
      const p = 1 / (1 + Math.exp(-prob[i]));
      const positive = y[i] === 1;
      ll += Math.log(Math.max(positive ? p : 1 - p, 1e-300));
      prob[i] = p;
      resid[i] = (positive ? 1 : 0) - p;
    }
    return ll;
  }

  /** The objective's gradient at the w of the last `value`, into g. */
  gradient(w: Float64Array, g: Float64Array): void {
    const { n, D } = this;
    if (this.kernels) this.kernels.residualCrossProducts(g);
    else crossProducts(this.resid, this.xc, n, 1, D, false, g, 0, D);
    for (let q = 0; q < g.length; q++) g[q] = g[q] / n - this.penalty[q] * w[q];
  }

  /**
   * The negative Hessian of the objective at the w of the last `value`, lower triangle, into hd (P x P): block
   * (h, l <= h) is the cross products of the design's columns weighted by p_ih (1[h = l] - p_il), over n, plus the
   * penalty on the diagonal.
   */
  hessian(hd: Float64Array): void {
    const { n, D, H, P } = this;
    const xc = this.columnMajor();
    const { data: prob, offset, stride } = this.kernels ? this.kernels.probabilities() : { data: this.prob, offset: 0, stride: n };
    if (this.scratch.length === 0) this.scratch = new Float64Array(D * n);
    const z = this.scratch;
    hd.fill(0);
    for (let h = 0; h < H; h++)
      for (let l = 0; l <= h; l++) {
        const ph = offset + h * stride;
        const pl = offset + l * stride;
        for (let a = 0; a < D; a++) {
          const xa = a * n;
          for (let i = 0; i < n; i++) z[xa + i] = prob[ph + i] * ((h === l ? 1 : 0) - prob[pl + i]) * xc[xa + i];
        }
        crossProducts(z, xc, n, D, D, h === l, hd, h * D * P + l * D, P);
      }
    for (let q = 0; q < P; q++) {
      for (let r = 0; r <= q; r++) hd[q * P + r] /= n;
      hd[q * P + q] += this.penalty[q] + 1e-12;
    }
  }

  /** Newton's step by a general solve of the full negative Hessian, for one that Cholesky rejects (rounding at an extreme fit). */
  fallbackStep(g: Float64Array): Float64Array {
    const full = new Float64Array(this.P * this.P);
    this.hessian(full);
    const P = this.P;
    const hm = new Matrix(P, P);
    for (let q = 0; q < P; q++)
      for (let r = 0; r <= q; r++) {
        hm.set(q, r, full[q * P + r]);
        hm.set(r, q, full[q * P + r]);
      }
    return Float64Array.from(solve(hm, Matrix.columnVector(Array.from(g)), true).getColumn(0));
  }
}

/**
 * Newton-Raphson with step halving from the class frequencies' intercepts. Near the optimum (a full step that
 * gained < 1e-4) the next steps reuse the factored Hessian (chord steps) while each gains less than a tenth of the
 * one before; otherwise the Hessian is rebuilt.
 */
export function newton(f: SoftmaxObjective): Float64Array {
  const P = f.P;
  let w: Float64Array = f.start();
  let cand: Float64Array = new Float64Array(P);
  const g = new Float64Array(P);
  const step = new Float64Array(P);
  const hd = new Float64Array(P * P);
  let obj = f.value(w);
  let factored = false;
  let reuse = false;
  let lastGain = Infinity;
  for (let iter = 0; iter < 100; iter++) {
    f.gradient(w, g);
    const chord: boolean = reuse && factored;
    step.set(g);
    if (chord) solveCholesky(hd, step, step, P);
    else {
      f.hessian(hd);
      factored = cholesky(hd, P);
      if (factored) solveCholesky(hd, step, step, P);
      // not numerically positive definite: a general solve of the full matrix
      else step.set(f.fallbackStep(g));
    }
    let t = 1;
    let nextObj = obj;
    let accepted = false;
    for (let half = 0; half < 30; half++) {
      for (let q = 0; q < P; q++) cand[q] = w[q] + t * step[q];
      const o = f.value(cand);
      if (o >= obj - 1e-15) {
        nextObj = o;
        accepted = true;
        break;
      }
      t /= 2;
    }
    if (!accepted) {
      f.value(w);
      if (chord) {
        reuse = false;
        continue;
      }
      break;
    }
    const gain = nextObj - obj;
    const contracting: boolean = !chord || gain < 0.1 * lastGain;
    const done = Math.abs(gain) < 1e-12 * (1 + Math.abs(obj)) && contracting;
    reuse = t === 1 && gain < 1e-4 * (1 + Math.abs(obj)) && contracting;
    lastGain = gain;
    const swap = w;
    w = cand;
    cand = swap;
    obj = nextObj;
    if (done) break;
  }
  return w;
}
