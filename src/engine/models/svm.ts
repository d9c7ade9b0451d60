import type { Rng } from '../rng';
import { Design, Model, Target } from './common';

export type Kernel = 'linear' | 'rbf';

const TAU = 1e-12;

/**
 * The dual problem of LIBSVM (Chang & Lin; Fan, Chen & Lin 2005 second-order working-set selection):
 * min 1/2 a'Qa + p'a  subject to  y'a = const, 0 <= a_i <= C_i.
 * `qRow(i, out)` fills row i of Q. Returns alpha and rho.
 */
function smo(
  l: number,
  qRow: (i: number, out: Float64Array) => void,
  QD: Float64Array,
  p: Float64Array,
  y: Int8Array,
  C: number,
  eps = 1e-3,
): { alpha: Float64Array; rho: number } {
  const alpha = new Float64Array(l);
  const G = Float64Array.from(p);
  const Qi = new Float64Array(l);
  const Qj = new Float64Array(l);
  const maxIter = Math.max(200000, 100 * l);
  for (let iter = 0; iter < maxIter; iter++) {
    let Gmax = -Infinity;
    let i = -1;
    for (let t = 0; t < l; t++) {
      if (y[t] === 1) {
        if (alpha[t] < C && -G[t] >= Gmax) {
          Gmax = -G[t];
          i = t;
        }
      } else if (alpha[t] > 0 && G[t] >= Gmax) {
        Gmax = G[t];
        i = t;
      }
    }
    if (i < 0) break;
    qRow(i, Qi);
    let Gmax2 = -Infinity;
    let j = -1;
    let objMin = Infinity;
    for (let t = 0; t < l; t++) {
      if (y[t] === 1) {
        if (alpha[t] > 0) {
          const gd = Gmax + G[t];
          if (G[t] >= Gmax2) Gmax2 = G[t];
          if (gd > 0) {
            const q = QD[i] + QD[t] - 2 * y[i] * Qi[t];
            const o = -(gd * gd) / (q > 0 ? q : TAU);
            if (o <= objMin) {
              j = t;
              objMin = o;
            }
          }
        }
      } else if (alpha[t] < C) {
        const gd = Gmax - G[t];
        if (-G[t] >= Gmax2) Gmax2 = -G[t];
        if (gd > 0) {
          const q = QD[i] + QD[t] + 2 * y[i] * Qi[t];
          const o = -(gd * gd) / (q > 0 ? q : TAU);
          if (o <= objMin) {
            j = t;
            objMin = o;
          }
        }
      }
    }
    if (Gmax + Gmax2 < eps || j < 0) break;
    qRow(j, Qj);
    const oi = alpha[i];
    const oj = alpha[j];
    if (y[i] !== y[j]) {
      let q = QD[i] + QD[j] + 2 * Qi[j];
      if (q <= 0) q = TAU;
      const delta = (-G[i] - G[j]) / q;
      const diff = alpha[i] - alpha[j];
      alpha[i] += delta;
      alpha[j] += delta;
      if (diff > 0) {
        if (alpha[j] < 0) {
          alpha[j] = 0;
          alpha[i] = diff;
        }
      } else if (alpha[i] < 0) {
        alpha[i] = 0;
        alpha[j] = -diff;
      }
      if (diff > 0) {
        if (alpha[i] > C) {
          alpha[i] = C;
          alpha[j] = C - diff;
        }
      } else if (alpha[j] > C) {
        alpha[j] = C;
        alpha[i] = C + diff;
      }
    } else {
      let q = QD[i] + QD[j] - 2 * Qi[j];
      if (q <= 0) q = TAU;
      const delta = (G[i] - G[j]) / q;
      const sum = alpha[i] + alpha[j];
      alpha[i] -= delta;
      alpha[j] += delta;
      if (sum > C) {
        if (alpha[i] > C) {
          alpha[i] = C;
          alpha[j] = sum - C;
        }
      } else if (alpha[j] < 0) {
        alpha[j] = 0;
        alpha[i] = sum;
      }
      if (sum > C) {
        if (alpha[j] > C) {
          alpha[j] = C;
          alpha[i] = sum - C;
        }
      } else if (alpha[i] < 0) {
        alpha[i] = 0;
        alpha[j] = sum;
      }
    }
    const di = alpha[i] - oi;
    const dj = alpha[j] - oj;
    for (let t = 0; t < l; t++) G[t] += Qi[t] * di + Qj[t] * dj;
  }
  let ub = Infinity;
  let lb = -Infinity;
  let free = 0;
  let sumFree = 0;
  for (let t = 0; t < l; t++) {
    const yG = y[t] * G[t];
    if (alpha[t] >= C) {
      if (y[t] === -1) ub = Math.min(ub, yG);
      else lb = Math.max(lb, yG);
    } else if (alpha[t] <= 0) {
      if (y[t] === 1) ub = Math.min(ub, yG);
      else lb = Math.max(lb, yG);
    } else {
      free++;
      sumFree += yG;
    }
  }
  const rho = free > 0 ? sumFree / free : (ub + lb) / 2;
  return { alpha, rho };
}

/**
 * Linear C-SVM by dual coordinate descent (Hsieh et al. 2008, LIBLINEAR's L1-loss solver); the bias is an
 * extra constant feature. Much faster than SMO for linear kernels.
 */
function linearDualCD(X: Design, y: Int8Array, C: number, rng: Rng, eps = 1e-3): Expansion {
  const { rows: n, cols: d, data } = X;
  const w = new Float64Array(d + 1);
  const alpha = new Float64Array(n);
  const QD = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 1;
    for (let j = 0; j < d; j++) s += data[i * d + j] ** 2;
    QD[i] = s;
  }
  const order = Int32Array.from({ length: n }, (_, i) => i);
  for (let iter = 0; iter < 1000; iter++) {
    rng.shuffle(order);
    let maxPG = -Infinity;
    let minPG = Infinity;
    for (const i of order) {
      let dot = w[d];
      for (let j = 0; j < d; j++) dot += w[j] * data[i * d + j];
      const G = y[i] * dot - 1;
      let PG: number;
      if (alpha[i] === 0) PG = Math.min(G, 0);
      else if (alpha[i] === C) PG = Math.max(G, 0);
      else PG = G;
      if (PG > maxPG) maxPG = PG;
      if (PG < minPG) minPG = PG;
      if (Math.abs(PG) > 1e-12) {
        const old = alpha[i];
        alpha[i] = Math.min(Math.max(old - G / QD[i], 0), C);
        const delta = (alpha[i] - old) * y[i];
        for (let j = 0; j < d; j++) w[j] += delta * data[i * d + j];
        w[d] += delta;
      }
    }
    if (maxPG - minPG < eps) break;
  }
  return { coef: new Float64Array(0), sv: new Float64Array(0), w: w.slice(0, d), rho: -w[d] };
}

/** A kernel expansion f(x) = sum_k coef_k K(sv_k, x) - rho (linear kernels keep w instead of support vectors). */
interface Expansion {
  coef: Float64Array;
  sv: Float64Array;
  w: Float64Array | null;
  rho: number;
}

/**
 * Kernel rows K(i, .) of the training samples: the whole matrix when it is small (n <= 3000, at most 72 MB),
 * otherwise computed on demand with a cache of recent rows, so memory stays bounded for large n.
 */
export class KernelRows {
  private readonly full: Float64Array | null;
  private readonly cache = new Map<number, Float64Array>();
  private readonly sq: Float64Array;
  readonly diagonal: Float64Array;

  constructor(
    private readonly X: Design,
    private readonly kernel: Kernel,
    private readonly gamma: number,
    maxFull = 3000,
  ) {
    const { rows: n, cols: d, data } = X;
    this.sq = new Float64Array(n);
    for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) this.sq[i] += data[i * d + j] ** 2;
    this.diagonal = Float64Array.from(this.sq, (v) => (kernel === 'linear' ? v : 1));
    this.full = n <= maxFull ? new Float64Array(n * n) : null;
    if (this.full) {
      for (let i = 0; i < n; i++) {
        for (let k = 0; k <= i; k++) {
          const v = this.value(i, k);
          this.full[i * n + k] = v;
          this.full[k * n + i] = v;
        }
      }
    }
  }

  private value(i: number, k: number): number {
    const { cols: d, data } = this.X;
    let dot = 0;
    for (let j = 0; j < d; j++) dot += data[i * d + j] * data[k * d + j];
    return this.kernel === 'linear' ? dot : Math.exp(-this.gamma * Math.max(0, this.sq[i] + this.sq[k] - 2 * dot));
  }

  row(i: number): Float64Array {
    const n = this.X.rows;
    if (this.full) return this.full.subarray(i * n, (i + 1) * n);
    let r = this.cache.get(i);
    if (r) {
      this.cache.delete(i);
      this.cache.set(i, r);
      return r;
    }
    r = new Float64Array(n);
    for (let k = 0; k < n; k++) r[k] = this.value(i, k);
    if (this.cache.size >= 256) this.cache.delete(this.cache.keys().next().value as number);
    this.cache.set(i, r);
    return r;
  }
}

function expansion(X: Design, kernel: Kernel, coefAll: Float64Array, rho: number): Expansion {
  const d = X.cols;
  const keep: number[] = [];
  for (let i = 0; i < X.rows; i++) if (coefAll[i] !== 0) keep.push(i);
  if (kernel === 'linear') {
    const w = new Float64Array(d);
    for (const i of keep) for (let j = 0; j < d; j++) w[j] += coefAll[i] * X.data[i * d + j];
    return { coef: new Float64Array(0), sv: new Float64Array(0), w, rho };
  }
  const sv = new Float64Array(keep.length * d);
  const coef = new Float64Array(keep.length);
  keep.forEach((i, k) => {
    coef[k] = coefAll[i];
    sv.set(X.data.subarray(i * d, (i + 1) * d), k * d);
  });
  return { coef, sv, w: null, rho };
}

function decision(e: Expansion, X: Design, kernel: Kernel, gamma: number, out: Float64Array, stride: number, offset: number): void {
  const d = X.cols;
  const m = e.coef.length;
  for (let i = 0; i < X.rows; i++) {
    let s = -e.rho;
    if (e.w) {
      for (let j = 0; j < d; j++) s += e.w[j] * X.data[i * d + j];
    } else {
      for (let k = 0; k < m; k++) {
        let dist = 0;
        for (let j = 0; j < d; j++) dist += (X.data[i * d + j] - e.sv[k * d + j]) ** 2;
        s += e.coef[k] * Math.exp(-gamma * dist);
      }
    }
    out[i * stride + offset] = s;
  }
}

function expansionToJSON(e: Expansion): Record<string, unknown> {
  return { coef: Array.from(e.coef), sv: Array.from(e.sv), w: e.w ? Array.from(e.w) : null, rho: e.rho };
}

function expansionFromJSON(j: Record<string, unknown>): Expansion {
  return {
    coef: Float64Array.from(j.coef as number[]),
    sv: Float64Array.from(j.sv as number[]),
    w: j.w ? Float64Array.from(j.w as number[]) : null,
    rho: j.rho as number,
  };
}

/**
 * C-SVM classifier (one-vs-rest for more than two classes). Outputs scores that order like the decision
 * values: the logistic of the decision value (binary, column 1 = second class) or a softmax of the
 * one-vs-rest decision values; these are scores for AUC, not calibrated probabilities.
 */
export class SVM implements Model {
  outputWidth = 2;
  classCount = 2;
  machines: Expansion[] = [];

  constructor(
    readonly kernel: Kernel,
    readonly C: number,
    /** RBF gamma as a multiple of 1 / (number of features) */
    readonly gammaFactor = 1,
    public gamma = 0,
  ) {}

  fit(X: Design, target: Target, rng: Rng): this {
    const n = X.rows;
    this.classCount = target.classCount ?? 2;
    this.outputWidth = this.classCount;
    this.gamma = this.gammaFactor / Math.max(1, X.cols);
    const heads = this.classCount === 2 ? [1] : Array.from({ length: this.classCount }, (_, c) => c);
    const labels = (cls: number): Int8Array => Int8Array.from(target.y, (v) => (v === cls ? 1 : -1));
    if (this.kernel === 'linear') {
      this.machines = heads.map((cls) => linearDualCD(X, labels(cls), this.C, rng));
      return this;
    }
    const K = new KernelRows(X, this.kernel, this.gamma);
    const QD = K.diagonal;
    const p = new Float64Array(n).fill(-1);
    this.machines = heads.map((cls) => {
      const y = labels(cls);
      const qRow = (i: number, out: Float64Array): void => {
        const Ki = K.row(i);
        for (let k = 0; k < n; k++) out[k] = y[i] * y[k] * Ki[k];
      };
      const { alpha, rho } = smo(n, qRow, QD, p, y, this.C);
      const coef = new Float64Array(n);
      for (let i = 0; i < n; i++) coef[i] = alpha[i] * y[i];
      return expansion(X, this.kernel, coef, rho);
    });
    return this;
  }

  /** Raw decision values, one column per machine. */
  decisionValues(X: Design): Float64Array {
    const m = this.machines.length;
    const out = new Float64Array(X.rows * m);
    this.machines.forEach((e, k) => decision(e, X, this.kernel, this.gamma, out, m, k));
    return out;
  }

  predict(X: Design): Float64Array {
    const f = this.decisionValues(X);
    const K = this.classCount;
    const out = new Float64Array(X.rows * K);
    for (let i = 0; i < X.rows; i++) {
      if (K === 2) {
        const p = 1 / (1 + Math.exp(-f[i]));
        out[i * 2] = 1 - p;
        out[i * 2 + 1] = p;
      } else {
        let mx = -Infinity;
        for (let c = 0; c < K; c++) mx = Math.max(mx, f[i * K + c]);
        let z = 0;
        for (let c = 0; c < K; c++) z += Math.exp(f[i * K + c] - mx);
        for (let c = 0; c < K; c++) out[i * K + c] = Math.exp(f[i * K + c] - mx) / z;
      }
    }
    return out;
  }

  toJSON(): Record<string, unknown> {
    return {
      type: 'svm',
      kernel: this.kernel,
      C: this.C,
      gammaFactor: this.gammaFactor,
      gamma: this.gamma,
      classCount: this.classCount,
      machines: this.machines.map(expansionToJSON),
    };
  }

  static fromJSON(json: Record<string, unknown>): SVM {
    const m = new SVM(json.kernel as Kernel, json.C as number, json.gammaFactor as number, json.gamma as number);
    m.classCount = json.classCount as number;
    m.outputWidth = m.classCount;
    m.machines = (json.machines as Record<string, unknown>[]).map(expansionFromJSON);
    return m;
  }
}

/** epsilon-SVR (LIBSVM formulation with 2n dual variables); the target is standardized internally. */
export class SVR implements Model {
  readonly outputWidth = 1;
  machine: Expansion;
  yMean = 0;
  yScale = 1;

  constructor(
    readonly kernel: Kernel,
    readonly C: number,
    readonly epsilon: number,
    readonly gammaFactor = 1,
    public gamma = 0,
  ) {}

  fit(X: Design, target: Target): this {
    const n = X.rows;
    this.gamma = this.gammaFactor / Math.max(1, X.cols);
    let s = 0;
    for (let i = 0; i < n; i++) s += target.y[i];
    this.yMean = s / n;
    let v = 0;
    for (let i = 0; i < n; i++) v += (target.y[i] - this.yMean) ** 2;
    this.yScale = Math.sqrt(v / Math.max(1, n - 1)) || 1;
    const z = Float64Array.from(target.y, (t) => (t - this.yMean) / this.yScale);
    const K = new KernelRows(X, this.kernel, this.gamma);
    const l = 2 * n;
    const y = new Int8Array(l);
    const p = new Float64Array(l);
    const QD = new Float64Array(l);
    for (let i = 0; i < n; i++) {
      y[i] = 1;
      y[i + n] = -1;
      p[i] = this.epsilon - z[i];
      p[i + n] = this.epsilon + z[i];
      QD[i] = QD[i + n] = K.diagonal[i];
    }
    const qRow = (i: number, out: Float64Array): void => {
      const Kr = K.row(i % n);
      for (let k = 0; k < n; k++) {
        out[k] = y[i] * Kr[k];
        out[k + n] = -y[i] * Kr[k];
      }
    };
    const { alpha, rho } = smo(l, qRow, QD, p, y, this.C);
    const coef = new Float64Array(n);
    for (let i = 0; i < n; i++) coef[i] = alpha[i] - alpha[i + n];
    this.machine = expansion(X, this.kernel, coef, rho);
    return this;
  }

  predict(X: Design): Float64Array {
    const out = new Float64Array(X.rows);
    decision(this.machine, X, this.kernel, this.gamma, out, 1, 0);
    for (let i = 0; i < X.rows; i++) out[i] = this.yMean + this.yScale * out[i];
    return out;
  }

  toJSON(): Record<string, unknown> {
    return {
      type: 'svr',
      kernel: this.kernel,
      C: this.C,
      epsilon: this.epsilon,
      gammaFactor: this.gammaFactor,
      gamma: this.gamma,
      yMean: this.yMean,
      yScale: this.yScale,
      machine: expansionToJSON(this.machine),
    };
  }

  static fromJSON(json: Record<string, unknown>): SVR {
    const m = new SVR(json.kernel as Kernel, json.C as number, json.epsilon as number, json.gammaFactor as number, json.gamma as number);
    m.yMean = json.yMean as number;
    m.yScale = json.yScale as number;
    m.machine = expansionFromJSON(json.machine as Record<string, unknown>);
    return m;
  }
}
