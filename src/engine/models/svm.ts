import { dotAt } from '../linalg';
import type { Rng } from '../rng';
import { Design, Model, Target } from './common';

export type Kernel = 'linear' | 'rbf';

const TAU = 1e-12;

/** The state of `smo` that its occasional steps (shrinking, rebuilding gradients) share with the main loop. */
interface SmoState {
  l: number;
  n: number;
  kRow: (i: number) => Float64Array;
  p: Float64Array;
  y: Int8Array;
  C: number;
  alpha: Float64Array;
  G: Float64Array;
  Gbar: Float64Array;
  /** active variables first: active[0, activeSize) */
  active: Int32Array;
  activeSize: number;
  /** the next working variable i and its violation, found while updating G (-1: choose it afresh) */
  nextI: number;
  nextGmax: number;
  /** false until shrinking first reorders `active` (until then active[s] = s) */
  permuted: boolean;
}

/** G of the inactive variables from G_bar and the free variables' rows (free variables are never inactive). */
function reconstructGradient(st: SmoState): void {
  const { l, n, alpha, G, y, C, active, activeSize } = st;
  if (activeSize === l) return;
  st.nextI = -1;
  for (let s = activeSize; s < l; s++) G[active[s]] = st.Gbar[active[s]] + st.p[active[s]];
  for (let s = 0; s < activeSize; s++) {
    const i = active[s];
    if (alpha[i] <= 0 || alpha[i] >= C) continue;
    const Ki = st.kRow(i < n ? i : i - n);
    const ai = alpha[i] * y[i];
    for (let r = activeSize; r < l; r++) {
      const t = active[r];
      G[t] += ai * y[t] * Ki[t < n ? t : t - n];
    }
  }
  st.activeSize = l;
}

/** G_bar_t += c Q_tu for every t (u reached the upper bound: c = C; left it: c = -C). */
function addUpperBound(st: SmoState, u: number, c: number, Ku: Float64Array): void {
  const { l, n, y, Gbar } = st;
  const cu = c * y[u];
  for (let t = 0; t < l; t++) Gbar[t] += cu * y[t] * Ku[t < n ? t : t - n];
}

/** LIBSVM's do_shrinking: variables at a bound beyond the largest violations leave the active set. */
function shrink(st: SmoState, eps: number, unshrink: boolean): boolean {
  const { alpha, G, y, C, active } = st;
  st.nextI = -1;
  let gmax1 = -Infinity;
  let gmax2 = -Infinity;
  for (let s = 0; s < st.activeSize; s++) {
    const t = active[s];
    if (y[t] === 1) {
      if (alpha[t] < C && -G[t] >= gmax1) gmax1 = -G[t];
      if (alpha[t] > 0 && G[t] >= gmax2) gmax2 = G[t];
    } else {
      if (alpha[t] < C && -G[t] >= gmax2) gmax2 = -G[t];
      if (alpha[t] > 0 && G[t] >= gmax1) gmax1 = G[t];
    }
  }
  if (!unshrink && gmax1 + gmax2 <= eps * 10) {
    unshrink = true;
    reconstructGradient(st);
  }
  for (let s = 0; s < st.activeSize; s++) {
    const t = active[s];
    let out = false;
    if (alpha[t] >= C) out = y[t] === 1 ? -G[t] > gmax1 : -G[t] > gmax2;
    else if (alpha[t] <= 0) out = y[t] === 1 ? G[t] > gmax2 : G[t] > gmax1;
    if (!out) continue;
    st.permuted = true;
    st.activeSize--;
    active[s] = active[st.activeSize];
    active[st.activeSize] = t;
    s--;
  }
  return unshrink;
}

/**
 * The working pair over the active variables (Fan, Chen & Lin's second-order rule) into `pair`, or false when
 * they satisfy the stopping rule; pair[0] = i, pair[1] = j.
 */
function selectPair(st: SmoState, QD: Float64Array, eps: number, pair: Int32Array): boolean {
  const { n, alpha, G, y, C, active, activeSize } = st;
  let Gmax = st.nextGmax;
  let i = st.nextI;
  if (i < 0) {
    Gmax = -Infinity;
    for (let s = 0; s < activeSize; s++) {
      const t = active[s];
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
  }
  st.nextI = -1;
  if (i < 0) return false;
  const Ki = st.kRow(i < n ? i : i - n);
  const QDi = QD[i];
  let Gmax2 = -Infinity;
  let j = -1;
  let objMin = Infinity;
  for (let s = 0; s < activeSize; s++) {
    const t = active[s];
    const yt = y[t];
    if (yt === 1) {
      if (alpha[t] > 0) {
        const Gt = G[t];
        if (Gt >= Gmax2) Gmax2 = Gt;
        const gd = Gmax + Gt;
        if (gd > 0) {
          // QD_i + QD_t - 2 y_i Q_it with Q_it = y_i y_t K_it
          const q = QDi + QD[t] - 2 * Ki[t < n ? t : t - n];
          const o = -(gd * gd) / (q > 0 ? q : TAU);
          if (o <= objMin) {
            j = t;
            objMin = o;
          }
        }
      }
    } else if (alpha[t] < C) {
      const Gt = G[t];
      if (-Gt >= Gmax2) Gmax2 = -Gt;
      const gd = Gmax - Gt;
      if (gd > 0) {
        const q = QDi + QD[t] - 2 * Ki[t < n ? t : t - n];
        const o = -(gd * gd) / (q > 0 ? q : TAU);
        if (o <= objMin) {
          j = t;
          objMin = o;
        }
      }
    }
  }
  pair[0] = i;
  pair[1] = j;
  return !(Gmax + Gmax2 < eps || j < 0);
}

/**
 * The dual problem of LIBSVM (Chang & Lin; Fan, Chen & Lin 2005 second-order working-set selection), with
 * LIBSVM's shrinking: min 1/2 a'Qa + p'a  subject to  y'a = const, 0 <= a_i <= C, where
 * Q_st = y_s y_t K(s mod n, t mod n) over the n samples' kernel rows `kRow` (l = n for classification, 2n for
 * regression). Every min(l, 1000) iterations, variables at a bound that the largest violations say will stay
 * there leave the active set; their gradients are rebuilt (from G_bar, the upper-bound variables' share)
 * before the solution is declared optimal on all l (`shrinking` false: never). Returns alpha and rho.
 */
export function smo(
  l: number,
  n: number,
  kRow: (i: number) => Float64Array,
  QD: Float64Array,
  p: Float64Array,
  y: Int8Array,
  C: number,
  eps = 1e-3,
  shrinking = true,
): { alpha: Float64Array; rho: number } {
  const alpha = new Float64Array(l);
  const G = Float64Array.from(p);
  const Gbar = new Float64Array(l);
  const active = Int32Array.from({ length: l }, (_, t) => t);
  const st: SmoState = { l, n, kRow, p, y, C, alpha, G, Gbar, active, activeSize: l, nextI: -1, nextGmax: -Infinity, permuted: false };
  const pair = new Int32Array(2);
  let unshrink = false;
  let counter = Math.min(l, 1000) + 1;
  const maxIter = Math.max(200000, 100 * l);
  for (let iter = 0; iter < maxIter; iter++) {
    if (shrinking && --counter === 0) {
      counter = Math.min(l, 1000);
      unshrink = shrink(st, eps, unshrink);
    }
    if (!selectPair(st, QD, eps, pair)) {
      if (st.activeSize === l) break;
      reconstructGradient(st);
      if (!selectPair(st, QD, eps, pair)) break;
      counter = 1;
    }
    const i = pair[0];
    const j = pair[1];
    const Ki = kRow(i < n ? i : i - n);
    const Kj = kRow(j < n ? j : j - n);
    const yi = y[i];
    const yj = y[j];
    const Qij = yi * yj * Ki[j < n ? j : j - n];
    const oi = alpha[i];
    const oj = alpha[j];
    if (yi !== yj) {
      let q = QD[i] + QD[j] + 2 * Qij;
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
      let q = QD[i] + QD[j] - 2 * Qij;
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
    // G_t += Q_ti di + Q_tj dj over the active variables, with Q_ti = y_t y_i K(i, t); the same pass finds the
    // next iteration's i as selectPair would (largest violation, the last of equals)
    const ci = yi * (alpha[i] - oi);
    const cj = yj * (alpha[j] - oj);
    const activeSize = st.activeSize;
    let Gmax = -Infinity;
    let next = -1;
    const permuted = st.permuted;
    for (let s = 0; s < activeSize; s++) {
      const t = permuted ? active[s] : s;
      const bt = t < n ? t : t - n;
      const yt = y[t];
      const Gt = G[t] + yt * (Ki[bt] * ci + Kj[bt] * cj);
      G[t] = Gt;
      if (yt === 1) {
        if (alpha[t] < C && -Gt >= Gmax) {
          Gmax = -Gt;
          next = t;
        }
      } else if (alpha[t] > 0 && Gt >= Gmax) {
        Gmax = Gt;
        next = t;
      }
    }
    st.nextI = next;
    st.nextGmax = Gmax;
    // G_bar_t = sum over upper-bound variables u of C Q_tu
    if (oi >= C !== alpha[i] >= C) addUpperBound(st, i, alpha[i] >= C ? C : -C, Ki);
    if (oj >= C !== alpha[j] >= C) addUpperBound(st, j, alpha[j] >= C ? C : -C, Kj);
  }
  reconstructGradient(st);
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
 * Linear C-SVM by dual coordinate descent (Hsieh et al. 2008, LIBLINEAR's L1-loss solver with its shrinking:
 * a variable at a bound whose gradient points out of the box by more than last pass's largest violation leaves
 * the active set; on convergence of the active set, one more pass over all variables confirms it); the bias is an
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

/** A kernel expansion f(x) = sum_k coef_k K(sv_k, x) - rho (linear kernels keep w instead of support vectors). */
interface Expansion {
  coef: Float64Array;
  sv: Float64Array;
  w: Float64Array | null;
  rho: number;
}

/**
 * Kernel rows K(i, .) of the training samples, computed when first asked for: into one n x n matrix when it is
 * small (n <= 3000, at most 72 MB), otherwise into a cache of recent rows, so memory stays bounded for large n.
 */
export class KernelRows {
  /** rows computed so far (n <= maxFull: every row is kept once computed; empty: not yet), else null */
  private readonly kept: Float64Array[] | null;
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
    for (let i = 0; i < n; i++) this.sq[i] = dotAt(data, i * d, data, i * d, d);
    this.diagonal = Float64Array.from(this.sq, (v) => (kernel === 'linear' ? v : 1));
    const none = new Float64Array(0);
    this.kept = n <= maxFull ? Array.from({ length: n }, () => none) : null;
  }

  private fill(i: number, out: Float64Array): void {
    const { rows: n, cols: d, data } = this.X;
    const xi = i * d;
    const rbf = this.kernel === 'rbf';
    const kept = this.kept;
    for (let k = 0; k < n; k++) {
      // K is symmetric: a row computed before already holds this entry
      if (kept && kept[k].length > 0) {
        out[k] = kept[k][i];
        continue;
      }
      const dot = dotAt(data, xi, data, k * d, d);
      out[k] = rbf ? Math.exp(-this.gamma * Math.max(0, this.sq[i] + this.sq[k] - 2 * dot)) : dot;
    }
  }

  row(i: number): Float64Array {
    const n = this.X.rows;
    if (this.kept) {
      let r = this.kept[i];
      if (r.length === 0) {
        r = new Float64Array(n);
        this.fill(i, r);
        this.kept[i] = r;
      }
      return r;
    }
    let r = this.cache.get(i);
    if (r) {
      this.cache.delete(i);
      this.cache.set(i, r);
      return r;
    }
    r = new Float64Array(n);
    this.fill(i, r);
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

/**
 * Decision values of kernel machines that share support vectors (one-vs-one: a sample of class a is a support
 * vector of up to K - 1 pairs), as LIBSVM computes them: the kernel between a row and each distinct support
 * vector once, then each machine's sum over its own. Equal to `decision` per machine, K / 2 times cheaper or so.
 */
function sharedDecisions(machines: Expansion[], X: Design, gamma: number, out: Float64Array): void {
  const d = X.cols;
  const m = machines.length;
  // the distinct support vectors, found by their bytes
  const index = new Map<string, number>();
  const unique: Float64Array[] = [];
  const refs = machines.map((e) =>
    Int32Array.from({ length: e.coef.length }, (_, k) => {
      const v = e.sv.subarray(k * d, (k + 1) * d);
      const key = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('latin1');
      let u = index.get(key);
      if (u === undefined) {
        u = unique.length;
        index.set(key, u);
        unique.push(v);
      }
      return u;
    }),
  );
  const u = unique.length;
  const sv = new Float64Array(u * d);
  unique.forEach((v, k) => sv.set(v, k * d));
  const kv = new Float64Array(u);
  for (let i = 0; i < X.rows; i++) {
    const xi = i * d;
    for (let k = 0; k < u; k++) {
      let dist = 0;
      const sk = k * d;
      for (let j = 0; j < d; j++) {
        const t = X.data[xi + j] - sv[sk + j];
        dist += t * t;
      }
      kv[k] = Math.exp(-gamma * dist);
    }
    for (let c = 0; c < m; c++) {
      const e = machines[c];
      const r = refs[c];
      let s = -e.rho;
      for (let k = 0; k < r.length; k++) s += e.coef[k] * kv[r[k]];
      out[i * m + c] = s;
    }
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
 * C-SVM classifier (more than two classes: one-vs-one with a kernel, as LIBSVM; one-vs-rest with the linear solver). Outputs scores that order like the decision
 * values: the logistic of the decision value (binary, column 1 = second class) or a softmax of the
 * one-vs-rest decision values (one-vs-one: of the class scores of `pairScores`); these are scores for AUC, not
 * calibrated probabilities. Pipelines saved before one-vs-one (no `scheme`) still predict one-vs-rest.
 */
export class SVM implements Model {
  outputWidth = 2;
  classCount = 2;
  machines: Expansion[] = [];
  /** 'ovr': a machine per class against the rest (two classes, linear kernels); 'ovo': a machine per pair of classes */
  scheme: 'ovr' | 'ovo' = 'ovr';
  /** ovo: the classes (a, b) of each machine; a positive decision votes for a */
  pairs: [number, number][] = [];

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
    if (this.classCount > 2) return this.fitPairs(X, target);
    const K = new KernelRows(X, this.kernel, this.gamma);
    const QD = K.diagonal;
    const p = new Float64Array(n).fill(-1);
    this.machines = heads.map((cls) => {
      const y = labels(cls);
      const { alpha, rho } = smo(n, n, (i) => K.row(i), QD, p, y, this.C);
      const coef = new Float64Array(n);
      for (let i = 0; i < n; i++) coef[i] = alpha[i] * y[i];
      return expansion(X, this.kernel, coef, rho);
    });
    return this;
  }

  /**
   * More than two classes with a kernel: one machine per pair of classes on the samples of those two, as LIBSVM
   * (and scikit-learn's SVC) do; each solves a problem of about 2n / K samples instead of n, so K classes cost about
   * K / 2 times less than one-vs-rest. The kernel rows of all samples are computed once and shared by the pairs.
   */
  private fitPairs(X: Design, target: Target): this {
    const n = X.rows;
    this.scheme = 'ovo';
    this.pairs = [];
    this.machines = [];
    for (let a = 0; a < this.classCount; a++)
      for (let b = a + 1; b < this.classCount; b++) {
        const idx: number[] = [];
        for (let i = 0; i < n; i++) if (target.y[i] === a || target.y[i] === b) idx.push(i);
        const y = Int8Array.from(idx, (i) => (target.y[i] === a ? 1 : -1));
        const coef = new Float64Array(n);
        let rho: number;
        if (y.includes(1) && y.includes(-1)) {
          // the pair's own kernel rows, over its samples only: short rows that stay in cache
          const d = X.cols;
          const data = new Float64Array(idx.length * d);
          idx.forEach((i, k) => data.set(X.data.subarray(i * d, (i + 1) * d), k * d));
          const pairK = new KernelRows({ rows: idx.length, cols: d, data }, this.kernel, this.gamma);
          const fitted = smo(idx.length, idx.length, (i) => pairK.row(i), pairK.diagonal, new Float64Array(idx.length).fill(-1), y, this.C);
          idx.forEach((i, k) => (coef[i] = fitted.alpha[k] * y[k]));
          rho = fitted.rho;
        } else rho = y.includes(1) ? -1 : 1; // a class absent from these rows: the pair always votes for the other
        this.machines.push(expansion(X, this.kernel, coef, rho));
        this.pairs.push([a, b]);
      }
    return this;
  }

  /** Raw decision values, one column per machine. */
  decisionValues(X: Design): Float64Array {
    const m = this.machines.length;
    const out = new Float64Array(X.rows * m);
    if (this.scheme === 'ovo' && this.kernel === 'rbf') {
      sharedDecisions(this.machines, X, this.gamma, out);
      return out;
    }
    this.machines.forEach((e, k) => decision(e, X, this.kernel, this.gamma, out, m, k));
    return out;
  }

  predict(X: Design): Float64Array {
    const f = this.scheme === 'ovo' ? this.pairScores(this.decisionValues(X), X.rows) : this.decisionValues(X);
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

  /**
   * One score per class from the pairs' decision values, as scikit-learn's one-vs-rest shaped decision function of
   * SVC: the votes of a class plus its summed confidence squashed into (-1/3, 1/3), so ties of votes are broken by
   * confidence and no confidence outweighs a vote.
   */
  private pairScores(f: Float64Array, rows: number): Float64Array {
    const K = this.classCount;
    const m = this.pairs.length;
    const votes = new Float64Array(rows * K);
    const confidence = new Float64Array(rows * K);
    for (let i = 0; i < rows; i++)
      this.pairs.forEach(([a, b], k) => {
        const v = f[i * m + k];
        votes[i * K + (v > 0 ? a : b)]++;
        confidence[i * K + a] += v;
        confidence[i * K + b] -= v;
      });
    return votes.map((v, j) => v + confidence[j] / (3 * (Math.abs(confidence[j]) + 1)));
  }

  toJSON(): Record<string, unknown> {
    return {
      type: 'svm',
      scheme: this.scheme,
      ...(this.scheme === 'ovo' ? { pairs: this.pairs } : {}),
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
    // pipelines saved before one-vs-one have no scheme: one-vs-rest
    if (json.scheme === 'ovo') {
      m.scheme = 'ovo';
      m.pairs = json.pairs as [number, number][];
    }
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
    const { alpha, rho } = smo(l, n, (i) => K.row(i), QD, p, y, this.C);
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
