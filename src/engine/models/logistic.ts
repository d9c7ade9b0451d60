import { CholeskyDecomposition, Matrix, solve } from 'ml-matrix';
import { Design, Model, Target } from './common';

/**
 * Ridge logistic regression, binary (one sigmoid head) or multinomial (one softmax head per class),
 * fitted by Newton-Raphson with step halving. Maximizes
 * (1/n) sum log p(y_i | x_i) - (lambda/2) ||slopes||^2 (intercepts unpenalized; a 1e-6 ridge keeps the
 * multinomial intercepts identifiable).
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

  private probabilities(X: Design, w: Float64Array, out: Float64Array): void {
    const { rows: n, cols: d, data } = X;
    const H = this.heads;
    const K = this.classCount;
    const eta = new Float64Array(H);
    for (let i = 0; i < n; i++) {
      for (let h = 0; h < H; h++) {
        let s = w[h * (d + 1)];
        for (let j = 0; j < d; j++) s += w[h * (d + 1) + 1 + j] * data[i * d + j];
        eta[h] = s;
      }
      if (H === 1) {
        const p = 1 / (1 + Math.exp(-eta[0]));
        out[i * 2] = 1 - p;
        out[i * 2 + 1] = p;
      } else {
        let m = -Infinity;
        for (let h = 0; h < H; h++) m = Math.max(m, eta[h]);
        let z = 0;
        for (let h = 0; h < H; h++) z += Math.exp(eta[h] - m);
        for (let h = 0; h < K; h++) out[i * K + h] = Math.exp(eta[h] - m) / z;
      }
    }
  }

  private objective(X: Design, y: Float64Array, w: Float64Array, p: Float64Array): number {
    this.probabilities(X, w, p);
    const K = this.classCount;
    const d = X.cols;
    let ll = 0;
    for (let i = 0; i < X.rows; i++) ll += Math.log(Math.max(p[i * K + y[i]], 1e-300));
    let pen = 0;
    for (let h = 0; h < this.heads; h++) {
      pen += 1e-6 * (this.heads > 1 ? w[h * (d + 1)] ** 2 : 0);
      for (let j = 0; j < d; j++) pen += this.lambda * w[h * (d + 1) + 1 + j] ** 2;
    }
    return ll / X.rows - pen / 2;
  }

  fit(X: Design, target: Target): this {
    const K = target.classCount ?? 2;
    this.classCount = K;
    this.outputWidth = K;
    const { rows: n, cols: d, data } = X;
    this.cols = d;
    const H = this.heads;
    const P = H * (d + 1);
    const y = target.y;
    let w = new Float64Array(P);
    const p = new Float64Array(n * K);
    let obj = this.objective(X, y, w, p);
    const x1 = new Float64Array(d + 1);
    for (let iter = 0; iter < 100; iter++) {
      const g = new Float64Array(P);
      const hd = Array.from({ length: P }, () => new Float64Array(P));
      for (let i = 0; i < n; i++) {
        x1[0] = 1;
        for (let j = 0; j < d; j++) x1[j + 1] = data[i * d + j];
        for (let h = 0; h < H; h++) {
          const cls = H === 1 ? 1 : h;
          const ph = p[i * K + cls];
          const r = (y[i] === cls ? 1 : 0) - ph;
          for (let a = 0; a <= d; a++) g[h * (d + 1) + a] += x1[a] * r;
          for (let l = 0; l <= h; l++) {
            const cl = H === 1 ? 1 : l;
            const c = ph * ((h === l ? 1 : 0) - p[i * K + cl]);
            if (c === 0) continue;
            for (let a = 0; a <= d; a++) {
              const row = hd[h * (d + 1) + a];
              const xa = c * x1[a];
              const bMax = l === h ? a : d;
              for (let b = 0; b <= bMax; b++) row[l * (d + 1) + b] += xa * x1[b];
            }
          }
        }
      }
      // only the lower triangle was accumulated (row q, column r <= q)
      for (let q = 0; q < P; q++) for (let r = q + 1; r < P; r++) hd[q][r] = hd[r][q];
      for (let q = 0; q < P; q++) {
        g[q] /= n;
        for (let r = 0; r < P; r++) hd[q][r] /= n;
        const isIntercept = q % (d + 1) === 0;
        const pen = isIntercept ? (H > 1 ? 1e-6 : 0) : this.lambda;
        g[q] -= pen * w[q];
        hd[q][q] += pen + 1e-12;
      }
      const Hm = new Matrix(hd.map((r) => Array.from(r)));
      let step: Matrix;
      const gm = Matrix.columnVector(Array.from(g));
      try {
        const chol = new CholeskyDecomposition(Hm);
        step = chol.isPositiveDefinite() ? chol.solve(gm) : solve(Hm, gm, true);
      } catch {
        step = solve(Hm, gm, true);
      }
      let t = 1;
      let next = w;
      let nextObj = obj;
      let accepted = false;
      for (let half = 0; half < 30; half++) {
        const cand = new Float64Array(P);
        for (let q = 0; q < P; q++) cand[q] = w[q] + t * step.get(q, 0);
        const o = this.objective(X, y, cand, p);
        if (o >= obj - 1e-15) {
          next = cand;
          nextObj = o;
          accepted = true;
          break;
        }
        t /= 2;
      }
      const done = !accepted || Math.abs(nextObj - obj) < 1e-12 * (1 + Math.abs(obj));
      w = next;
      obj = nextObj;
      if (done) break;
    }
    this.weights = w;
    this.probabilities(X, w, p);
    return this;
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
