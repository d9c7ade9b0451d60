import { Matrix, solve } from 'ml-matrix';
import { Design, Model, Target } from './common';
import { dotAt, solveCholesky } from '../linalg';

/** Above this many coefficients (heads x (1 + features)) a fit uses L-BFGS: Newton's Hessian costs n x P^2 per step. */
const NEWTON_MAX_COEFFICIENTS = 160;

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
 * Ridge logistic regression, binary (one sigmoid head) or multinomial (one softmax head per class). Maximizes
 * (1/n) sum log p(y_i | x_i) - (lambda/2) ||slopes||^2 (intercepts unpenalized; a 1e-6 ridge keeps the
 * multinomial intercepts identifiable). Fitted by Newton-Raphson with step halving, or, above
 * NEWTON_MAX_COEFFICIENTS coefficients with lambda > 0 (many classes x many features), by L-BFGS to a gradient
 * below 1e-9, which reaches the same optimum (the objective is strictly concave) without the P x P Hessian.
 * All arithmetic runs over Float64Arrays allocated once per fit.
 */
export class LogisticRegression implements Model {
  outputWidth = 2;
  classCount = 2;
  /** heads x (1 + d): intercept then slopes */
  weights: Float64Array = new Float64Array(0);
  cols = 0;

  constructor(readonly lambda: number) {}

  private get heads(): number {
    return this.classCount === 2 ? 1 : this.classCount;
  }

  /** Class probabilities (n x K) for the weights `w`. */
  private probabilities(X: Design, w: Float64Array, out: Float64Array): void {
    const { rows: n, cols: d, data } = X;
    const H = this.heads;
    const K = this.classCount;
    const D = d + 1;
    for (let i = 0; i < n; i++) {
      const xi = i * d;
      if (H === 1) {
        const s = w[0] + dotAt(w, 1, data, xi, d);
        const p = 1 / (1 + Math.exp(-s));
        out[i * 2] = 1 - p;
        out[i * 2 + 1] = p;
        continue;
      }
      const o = i * K;
      let m = -Infinity;
      for (let h = 0; h < H; h++) {
        const wh = h * D;
        const s = w[wh] + dotAt(w, wh + 1, data, xi, d);
        out[o + h] = s;
        if (s > m) m = s;
      }
      let z = 0;
      for (let h = 0; h < K; h++) {
        const e = Math.exp(out[o + h] - m);
        out[o + h] = e;
        z += e;
      }
      for (let h = 0; h < K; h++) out[o + h] /= z;
    }
  }

  /** The penalty's coefficient for coefficient q (intercepts: 0, or 1e-6 for multinomial heads). */
  private penalty(q: number, d: number): number {
    return q % (d + 1) === 0 ? (this.heads > 1 ? 1e-6 : 0) : this.lambda;
  }

  private objective(X: Design, y: Float64Array, w: Float64Array, p: Float64Array): number {
    this.probabilities(X, w, p);
    const K = this.classCount;
    const d = X.cols;
    let ll = 0;
    for (let i = 0; i < X.rows; i++) ll += Math.log(Math.max(p[i * K + y[i]], 1e-300));
    let pen = 0;
    for (let q = 0; q < w.length; q++) pen += this.penalty(q, d) * w[q] * w[q];
    return ll / X.rows - pen / 2;
  }

  /** The objective's gradient at the probabilities `p` of weights `w` (see `objective`), into g. */
  private gradient(X: Design, y: Float64Array, w: Float64Array, p: Float64Array, g: Float64Array): void {
    const { rows: n, cols: d, data } = X;
    const H = this.heads;
    const K = this.classCount;
    const D = d + 1;
    g.fill(0);
    for (let i = 0; i < n; i++) {
      const xi = i * d;
      for (let h = 0; h < H; h++) {
        const cls = H === 1 ? 1 : h;
        const r = (y[i] === cls ? 1 : 0) - p[i * K + cls];
        if (r === 0) continue;
        const gh = h * D;
        g[gh] += r;
        for (let j = 0; j < d; j++) g[gh + 1 + j] += r * data[xi + j];
      }
    }
    for (let q = 0; q < g.length; q++) g[q] = g[q] / n - this.penalty(q, d) * w[q];
  }

  fit(X: Design, target: Target): this {
    const K = target.classCount ?? 2;
    this.classCount = K;
    this.outputWidth = K;
    this.cols = X.cols;
    const P = this.heads * (X.cols + 1);
    this.weights = P > NEWTON_MAX_COEFFICIENTS && this.lambda > 0 ? this.lbfgs(X, target.y) : this.newton(X, target.y);
    return this;
  }

  private newton(X: Design, y: Float64Array): Float64Array {
    const K = this.classCount;
    const { rows: n, cols: d, data } = X;
    const H = this.heads;
    const D = d + 1;
    const P = H * D;
    let w = new Float64Array(P);
    let cand = new Float64Array(P);
    const p = new Float64Array(n * K);
    const g = new Float64Array(P);
    const hd = new Float64Array(P * P);
    // column-major copy with the intercept's column of ones first, and its weighted form
    const xt = new Float64Array(D * n);
    xt.fill(1, 0, n);
    for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) xt[(j + 1) * n + i] = data[i * d + j];
    const wx = new Float64Array(D * n);
    const weight = new Float64Array(n);
    // start at the intercepts of the class frequencies (log-odds; for softmax heads, centred log-frequencies)
    const freq = new Float64Array(K);
    for (let i = 0; i < n; i++) freq[y[i]]++;
    const logFreq = Array.from(freq, (f) => Math.log(Math.max(f, 0.5) / n));
    if (H === 1) w[0] = logFreq[1] - logFreq[0];
    else {
      const mean = logFreq.reduce((a, b) => a + b, 0) / K;
      for (let h = 0; h < H; h++) w[h * D] = logFreq[h] - mean;
    }
    let obj = this.objective(X, y, w, p);
    // Near the optimum (a full step that gained < 1e-4) the next steps reuse the factored Hessian (chord steps)
    // while each gains less than a tenth of the one before; otherwise the Hessian is rebuilt.
    let factored = false;
    let reuse = false;
    let lastGain = Infinity;
    for (let iter = 0; iter < 100; iter++) {
      this.gradient(X, y, w, p, g);
      const chord: boolean = reuse && factored;
      const step = Float64Array.from(g);
      if (chord) solveCholesky(hd, step, step, P);
      else {
        this.hessian(X, p, xt, wx, weight, hd);
        factored = cholesky(hd, P);
        if (factored) solveCholesky(hd, step, step, P);
        // not numerically positive definite: a general solve of the full matrix
        else step.set(this.fallbackStep(X, y, w, p, g));
      }
      let t = 1;
      let nextObj = obj;
      let accepted = false;
      for (let half = 0; half < 30; half++) {
        for (let q = 0; q < P; q++) cand[q] = w[q] + t * step[q];
        const o = this.objective(X, y, cand, p);
        if (o >= obj - 1e-15) {
          nextObj = o;
          accepted = true;
          break;
        }
        t /= 2;
      }
      if (!accepted) {
        this.probabilities(X, w, p);
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

  /**
   * The negative Hessian of the mean log-likelihood plus the penalty, lower triangle, into hd (P x P), at the
   * probabilities p; xt is the column-major design with a first column of ones, wx and weight scratch.
   */
  private hessian(X: Design, p: Float64Array, xt: Float64Array, wx: Float64Array, weight: Float64Array, hd: Float64Array): void {
    const K = this.classCount;
    const { rows: n, cols: d } = X;
    const H = this.heads;
    const D = d + 1;
    const P = H * D;
    {
      // the negative Hessian of the log-likelihood, lower triangle, block (h, l <= h) at a time: entry (a, b) of a
      // block is the dot product of column a weighted by p_ih (1[h = l] - p_il) with column b
      hd.fill(0);
      for (let h = 0; h < H; h++) {
        const ch = H === 1 ? 1 : h;
        for (let l = 0; l <= h; l++) {
          const cl = H === 1 ? 1 : l;
          for (let i = 0; i < n; i++) weight[i] = p[i * K + ch] * ((h === l ? 1 : 0) - p[i * K + cl]);
          for (let a = 0; a < D; a++) for (let i = 0; i < n; i++) wx[a * n + i] = weight[i] * xt[a * n + i];
          for (let a = 0; a < D; a++) {
            const row = (h * D + a) * P + l * D;
            const bMax = l === h ? a : d;
            let b = 0;
            // four columns per pass over the weighted column a
            for (; b + 3 <= bMax; b += 4) {
              const ao = a * n;
              const b0 = b * n;
              let s0 = 0;
              let s1 = 0;
              let s2 = 0;
              let s3 = 0;
              for (let i = 0; i < n; i++) {
                const v = wx[ao + i];
                s0 += v * xt[b0 + i];
                s1 += v * xt[b0 + n + i];
                s2 += v * xt[b0 + 2 * n + i];
                s3 += v * xt[b0 + 3 * n + i];
              }
              hd[row + b] = s0;
              hd[row + b + 1] = s1;
              hd[row + b + 2] = s2;
              hd[row + b + 3] = s3;
            }
            for (; b <= bMax; b++) hd[row + b] = dotAt(wx, a * n, xt, b * n, n);
          }
        }
      }
      for (let q = 0; q < P; q++) {
        for (let r = 0; r <= q; r++) hd[q * P + r] /= n;
        hd[q * P + q] += this.penalty(q, d) + 1e-12;
      }
    }
  }

  /** Newton's step by a general solve, for a Hessian that Cholesky rejects (rounding at an extreme fit). */
  private fallbackStep(X: Design, y: Float64Array, w: Float64Array, p: Float64Array, g: Float64Array): Float64Array {
    const K = this.classCount;
    const { rows: n, cols: d, data } = X;
    const H = this.heads;
    const D = d + 1;
    const P = H * D;
    const hm = new Matrix(P, P);
    for (let i = 0; i < n; i++) {
      for (let h = 0; h < H; h++) {
        const ph = p[i * K + (H === 1 ? 1 : h)];
        for (let l = 0; l < H; l++) {
          const c = ph * ((h === l ? 1 : 0) - p[i * K + (H === 1 ? 1 : l)]);
          for (let a = 0; a < D; a++) {
            const xa = a === 0 ? 1 : data[i * d + a - 1];
            for (let b = 0; b < D; b++)
              hm.set(h * D + a, l * D + b, hm.get(h * D + a, l * D + b) + (c * xa * (b === 0 ? 1 : data[i * d + b - 1])) / n);
          }
        }
      }
    }
    for (let q = 0; q < P; q++) hm.set(q, q, hm.get(q, q) + this.penalty(q, d) + 1e-12);
    return Float64Array.from(solve(hm, Matrix.columnVector(Array.from(g)), true).getColumn(0));
  }

  /**
   * The objective and (into g) its gradient at weights `w`, for L-BFGS. Two heads' linear predictors accumulate
   * side by side over a row (two independent sums, each split in two), the residuals are kept per head
   * (`resid[h * n + i]`), and each gradient entry is one dot product of a residual column with a column of the
   * column-major copy `xt` (`xt[j * n + i]`).
   */
  private evaluate(X: Design, xt: Float64Array, y: Float64Array, w: Float64Array, g: Float64Array, resid: Float64Array): number {
    const { rows: n, cols: d, data } = X;
    const H = this.heads;
    const K = this.classCount;
    const D = d + 1;
    let ll = 0;
    for (let i = 0; i < n; i++) {
      const xi = i * d;
      for (let h = 0; h < H; h += 2) {
        const a = h * D + 1;
        const two = h + 1 < H;
        const b = two ? a + D : a;
        let s0 = 0;
        let s1 = 0;
        let t0 = 0;
        let t1 = 0;
        let j = 0;
        for (; j + 1 < d; j += 2) {
          const x0 = data[xi + j];
          const x1 = data[xi + j + 1];
          s0 += w[a + j] * x0;
          s1 += w[a + j + 1] * x1;
          t0 += w[b + j] * x0;
          t1 += w[b + j + 1] * x1;
        }
        if (j < d) {
          s0 += w[a + j] * data[xi + j];
          t0 += w[b + j] * data[xi + j];
        }
        resid[h * n + i] = w[a - 1] + s0 + s1;
        if (two) resid[(h + 1) * n + i] = w[b - 1] + t0 + t1;
      }
      const yi = y[i];
      if (H === 1) {
        const p = 1 / (1 + Math.exp(-resid[i]));
        ll += Math.log(Math.max(yi === 1 ? p : 1 - p, 1e-300));
        resid[i] = (yi === 1 ? 1 : 0) - p;
        continue;
      }
      let m = -Infinity;
      for (let h = 0; h < K; h++) m = Math.max(m, resid[h * n + i]);
      let z = 0;
      for (let h = 0; h < K; h++) {
        const e = Math.exp(resid[h * n + i] - m);
        resid[h * n + i] = e;
        z += e;
      }
      ll += Math.log(Math.max(resid[yi * n + i] / z, 1e-300));
      for (let h = 0; h < K; h++) resid[h * n + i] = (h === yi ? 1 : 0) - resid[h * n + i] / z;
    }
    let pen = 0;
    for (let h = 0; h < H; h++) {
      const r = h * n;
      let s = 0;
      for (let i = 0; i < n; i++) s += resid[r + i];
      g[h * D] = s;
      for (let j = 0; j < d; j++) {
        const c = j * n;
        g[h * D + 1 + j] = dotAt(resid, r, xt, c, n);
      }
    }
    for (let q = 0; q < g.length; q++) {
      const c = this.penalty(q, d);
      pen += c * w[q] * w[q];
      g[q] = g[q] / n - c * w[q];
    }
    return ll / n - pen / 2;
  }

  /**
   * L-BFGS (10 pairs) with a backtracking Armijo line search, maximizing the objective, until no gradient entry
   * exceeds 1e-8 (the coefficients are then within about 1e-8 / lambda of the optimum; scikit-learn's lbfgs
   * default stops earlier).
   */
  private lbfgs(X: Design, y: Float64Array): Float64Array {
    const H = this.heads;
    const D = X.cols + 1;
    const P = H * D;
    const M = 10;
    const S = Array.from({ length: M }, () => new Float64Array(P));
    const Yd = Array.from({ length: M }, () => new Float64Array(P));
    const rho = new Float64Array(M);
    const alpha = new Float64Array(M);
    const { rows: n, cols: d, data } = X;
    const xt = new Float64Array(n * d);
    for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) xt[j * n + i] = data[i * d + j];
    const resid = new Float64Array(this.classCount * n);
    let w = new Float64Array(P);
    let cand = new Float64Array(P);
    let g = new Float64Array(P);
    let gNew = new Float64Array(P);
    const dir = new Float64Array(P);
    let obj = this.evaluate(X, xt, y, w, g, resid);
    let stored = 0;
    let head = 0;
    const dot = (a: Float64Array, b: Float64Array): number => {
      let s = 0;
      for (let q = 0; q < P; q++) s += a[q] * b[q];
      return s;
    };
    for (let iter = 0; iter < 5000; iter++) {
      let gmax = 0;
      for (let q = 0; q < P; q++) gmax = Math.max(gmax, Math.abs(g[q]));
      if (gmax < 1e-8) break;
      // two-loop recursion on the ascent direction (g is the gradient of the objective we maximize)
      dir.set(g);
      for (let k = 0; k < stored; k++) {
        const m = (head - 1 - k + M) % M;
        alpha[m] = rho[m] * dot(S[m], dir);
        for (let q = 0; q < P; q++) dir[q] -= alpha[m] * Yd[m][q];
      }
      if (stored > 0) {
        const m = (head - 1 + M) % M;
        const gamma = dot(S[m], Yd[m]) / dot(Yd[m], Yd[m]);
        for (let q = 0; q < P; q++) dir[q] *= gamma;
      }
      for (let k = stored - 1; k >= 0; k--) {
        const m = (head - 1 - k + M) % M;
        const beta = rho[m] * dot(Yd[m], dir);
        for (let q = 0; q < P; q++) dir[q] += (alpha[m] - beta) * S[m][q];
      }
      let slope = dot(g, dir);
      if (!(slope > 0)) {
        dir.set(g);
        slope = dot(g, g);
        stored = 0;
      }
      let t = stored === 0 ? Math.min(1, 1 / Math.sqrt(slope)) : 1;
      let nextObj = obj;
      let accepted = false;
      for (let half = 0; half < 40; half++) {
        for (let q = 0; q < P; q++) cand[q] = w[q] + t * dir[q];
        nextObj = this.evaluate(X, xt, y, cand, gNew, resid);
        if (nextObj >= obj + 1e-4 * t * slope) {
          accepted = true;
          break;
        }
        t /= 2;
      }
      if (!accepted) break;
      // curvature pair for the negated objective: s = step, y = -(gNew - g)
      const s = S[head];
      const yd = Yd[head];
      for (let q = 0; q < P; q++) {
        s[q] = cand[q] - w[q];
        yd[q] = g[q] - gNew[q];
      }
      const sy = dot(s, yd);
      if (sy > 1e-16 * dot(yd, yd)) {
        rho[head] = 1 / sy;
        head = (head + 1) % M;
        stored = Math.min(M, stored + 1);
      }
      let swap = w;
      w = cand;
      cand = swap;
      swap = g;
      g = gNew;
      gNew = swap;
      obj = nextObj;
    }
    return w;
  }

  predict(X: Design): Float64Array {
    const out = new Float64Array(X.rows * this.classCount);
    this.probabilities(X, this.weights, out);
    return out;
  }

  /** Intercepts (one per head). */
  intercepts(): number[] {
    const d = this.cols;
    return Array.from({ length: this.heads }, (_, h) => this.weights[h * (d + 1)]);
  }

  /** Slopes, one array per head (a single head for binary: log-odds of the second class). */
  slopes(): number[][] {
    const d = this.cols;
    return Array.from({ length: this.heads }, (_, h) => Array.from(this.weights.subarray(h * (d + 1) + 1, (h + 1) * (d + 1))));
  }

  toJSON(): Record<string, unknown> {
    return {
      type: 'logistic',
      lambda: this.lambda,
      classCount: this.classCount,
      cols: this.cols,
      weights: Array.from(this.weights),
    };
  }

  static fromJSON(json: Record<string, unknown>): LogisticRegression {
    const m = new LogisticRegression(json.lambda as number);
    m.classCount = json.classCount as number;
    m.outputWidth = m.classCount;
    m.cols = json.cols as number;
    m.weights = Float64Array.from(json.weights as number[]);
    return m;
  }
}
