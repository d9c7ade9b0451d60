import type { Design } from './common';
import { rowsTimesVector } from './dense';
import { RbfRows } from './simd-kernels';

export type Kernel = 'linear' | 'rbf';

/** A kernel expansion f(x) = sum_k coef_k K(sv_k, x) - rho (linear kernels keep w instead of support vectors). */
export interface Expansion {
  coef: Float64Array;
  sv: Float64Array;
  w: Float64Array | null;
  rho: number;
}

/** Up to this many samples KernelRows keeps every row it computes (at most 72 MB); above, a cache of recent rows. */
export const KEPT_ROWS_MAX = 3000;

/** Kept-row storage of fits that ended, for the next fit of the thread; larger buffers are not kept. */
const POOL_MAX_DOUBLES = 1 << 22;
const pool: Float64Array[] = [];

/**
 * A buffer of at least `doubles` from the pool (the smallest that fits) or new. A fresh buffer costs a page fault per
 * 4 KB when first written (1.3 ms of a 2 ms fit on breast_cancer), a reused one nothing.
 */
function takeStorage(doubles: number): Float64Array {
  let best = -1;
  for (let k = 0; k < pool.length; k++) if (pool[k].length >= doubles && (best < 0 || pool[k].length < pool[best].length)) best = k;
  return best >= 0 ? pool.splice(best, 1)[0] : new Float64Array(doubles);
}

function returnStorage(buffer: Float64Array): void {
  if (buffer.length > POOL_MAX_DOUBLES) return;
  pool.push(buffer);
  // two at most (one-vs-one uses two at a time: all samples' rows and a pair's); the smallest goes
  pool.sort((a, b) => a.length - b.length);
  if (pool.length > 2) pool.shift();
}

/**
 * Kernel rows K(i, .) of the training samples, computed when first asked for: into one n x n matrix when it is
 * small (n <= 3000, at most 72 MB), otherwise into a cache of recent rows, so memory stays bounded for large n.
 * The matrix's storage comes from a pool of the thread's earlier fits (`release` gives it back) and its rows are
 * written only when computed, so a fit touches the memory of the rows it asks for, and pages that a fit before it
 * faulted in already.
 */
export class KernelRows {
  /** n <= maxFull: each row's view (empty: not computed yet); else null */
  private readonly kept: Float64Array[] | null;
  /** n <= maxFull: the n x n matrix's storage (row i at i * n), null once released */
  private store: Float64Array | null;
  private readonly cache = new Map<number, Float64Array>();
  /** RBF: the rows in WebAssembly SIMD; linear: null */
  private readonly rbf: RbfRows | null;
  readonly diagonal: Float64Array;

  constructor(
    private readonly X: Design,
    private readonly kernel: Kernel,
    private readonly gamma: number,
    maxFull = KEPT_ROWS_MAX,
  ) {
    const { rows: n, cols: d, data } = X;
    if (kernel === 'rbf') {
      this.rbf = new RbfRows(data, n, d);
      this.diagonal = new Float64Array(n).fill(1);
    } else {
      this.rbf = null;
      // summed in the order of the rows' dot products (fill)
      this.diagonal = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        let s = 0;
        for (let j = 0; j < d; j++) s += data[i * d + j] * data[i * d + j];
        this.diagonal[i] = s;
      }
    }
    const none = new Float64Array(0);
    this.kept = n <= maxFull ? Array.from({ length: n }, () => none) : null;
    this.store = this.kept ? takeStorage(n * n) : null;
  }

  /** Gives the matrix's storage back to the pool for the next fit: no row may be asked for, nor one asked for before used, after this. */
  release(): void {
    if (this.store) returnStorage(this.store);
    this.store = null;
    this.kept?.fill(new Float64Array(0));
  }

  private fill(i: number, out: Float64Array): void {
    if (this.rbf) {
      this.rbf.row(i, this.gamma, out);
      return;
    }
    const { rows: n, cols: d, data } = this.X;
    // the dot products with every row, four rows at a time (symmetric: x_k . x_i sums the same products in the same order)
    rowsTimesVector(data, n, d, data.subarray(i * d, (i + 1) * d), 0, out);
  }

  row(i: number): Float64Array {
    const n = this.X.rows;
    if (this.kept) {
      let r = this.kept[i];
      if (r.length === 0) {
        if (!this.store) throw new Error('kernel rows asked for after release');
        r = this.store.subarray(i * n, (i + 1) * n);
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

export function expansion(X: Design, kernel: Kernel, coefAll: Float64Array, rho: number): Expansion {
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
  for (let k = 0; k < keep.length; k++) {
    const i = keep[k];
    coef[k] = coefAll[i];
    for (let j = 0; j < d; j++) sv[k * d + j] = X.data[i * d + j];
  }
  return { coef, sv, w: null, rho };
}

/** Decision values of one machine into out[i * stride + offset]; RBF kernels between a row and the support vectors in WebAssembly SIMD. */
export function decision(e: Expansion, X: Design, kernel: Kernel, gamma: number, out: Float64Array, stride: number, offset: number): void {
  const d = X.cols;
  const m = e.coef.length;
  const rows = e.w ? null : new RbfRows(e.sv, m, d);
  const kv = new Float64Array(m);
  for (let i = 0; i < X.rows; i++) {
    let s = -e.rho;
    if (e.w) {
      for (let j = 0; j < d; j++) s += e.w[j] * X.data[i * d + j];
    } else {
      rows?.rowFor(X.data, i * d, gamma, kv);
      for (let k = 0; k < m; k++) s += e.coef[k] * kv[k];
    }
    out[i * stride + offset] = s;
  }
}

/**
 * The distinct support vectors of machines over `d` columns, found by their bytes (row-major, `count` of them), and
 * for each machine the index of each of its support vectors among them.
 */
export function distinctSupportVectors(machines: Expansion[], d: number): { sv: Float64Array; count: number; refs: Int32Array[] } {
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
  const sv = new Float64Array(unique.length * d);
  unique.forEach((v, k) => sv.set(v, k * d));
  return { sv, count: unique.length, refs };
}

/**
 * Decision values of kernel machines that share support vectors (one-vs-one: a sample of class a is a support
 * vector of up to K - 1 pairs), as LIBSVM computes them: the kernel between a row and each distinct support
 * vector once, then each machine's sum over its own. Equal to `decision` per machine (the same kernel values), K / 2 times
 * cheaper or so.
 */
export function sharedDecisions(machines: Expansion[], X: Design, gamma: number, out: Float64Array): void {
  const d = X.cols;
  const m = machines.length;
  const { sv, count: u, refs } = distinctSupportVectors(machines, d);
  const kv = new Float64Array(u);
  const rows = new RbfRows(sv, u, d);
  for (let i = 0; i < X.rows; i++) {
    rows.rowFor(X.data, i * d, gamma, kv);
    for (let c = 0; c < m; c++) {
      const e = machines[c];
      const r = refs[c];
      let s = -e.rho;
      for (let k = 0; k < r.length; k++) s += e.coef[k] * kv[r[k]];
      out[i * m + c] = s;
    }
  }
}

export function expansionToJSON(e: Expansion): Record<string, unknown> {
  return { coef: Array.from(e.coef), sv: Array.from(e.sv), w: e.w ? Array.from(e.w) : null, rho: e.rho };
}

export function expansionFromJSON(j: Record<string, unknown>): Expansion {
  return {
    coef: Float64Array.from(j.coef as number[]),
    sv: Float64Array.from(j.sv as number[]),
    w: j.w ? Float64Array.from(j.w as number[]) : null,
    rho: j.rho as number,
  };
}
