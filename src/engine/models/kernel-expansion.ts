import type { Design } from './common';
import { rowsTimesVector } from './dense';

export type Kernel = 'linear' | 'rbf';

/** A kernel expansion f(x) = sum_k coef_k K(sv_k, x) - rho (linear kernels keep w instead of support vectors). */
export interface Expansion {
  coef: Float64Array;
  sv: Float64Array;
  w: Float64Array | null;
  rho: number;
}

/**
 * Kernel rows K(i, .) of the training samples, computed when first asked for: into one n x n matrix when it is
 * small (n <= 3000, at most 72 MB), otherwise into a cache of recent rows, so memory stays bounded for large n.
 * Rows are kept in blocks of about 64 KB allocated as first needed, rather than a buffer per row (each typed
 * array's own buffer is memory outside the JavaScript heap that the garbage collector tracks one by one) or one
 * n x n buffer (fresh pages to fault in on every fit).
 */
export class KernelRows {
  /** n <= maxFull: each row's view (empty: not computed yet); else null */
  private readonly kept: Float64Array[] | null;
  /** n <= maxFull: the blocks of ROWS_PER_BLOCK rows */
  private readonly blocks: Float64Array[] = [];
  private readonly rowsPerBlock: number;
  /** n <= maxFull: 1 for the rows computed (kept); else empty */
  private readonly done: Uint8Array;
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
    // summed in the order of the rows' dot products (fill), so that a row's distance to itself is exactly 0
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < d; j++) s += data[i * d + j] * data[i * d + j];
      this.sq[i] = s;
    }
    this.diagonal = Float64Array.from(this.sq, (v) => (kernel === 'linear' ? v : 1));
    const none = new Float64Array(0);
    this.kept = n <= maxFull ? Array.from({ length: n }, () => none) : null;
    this.done = new Uint8Array(this.kept ? n : 0);
    // the cache path (no kept rows) fills a row per call: one row per 'block'
    this.rowsPerBlock = this.kept ? Math.max(1, Math.floor(8192 / Math.max(1, n))) : Math.max(1, n);
  }

  private fill(i: number, out: Float64Array): void {
    const { rows: n, cols: d, data } = this.X;
    // the dot products with every row, four rows at a time (symmetric: x_k . x_i sums the same products in the same order)
    rowsTimesVector(data, n, d, data.subarray(i * d, (i + 1) * d), 0, out);
    if (this.kernel !== 'rbf') return;
    const g = this.gamma;
    const sq = this.sq;
    const si = sq[i];
    const done = this.done;
    const per = this.rowsPerBlock;
    for (let b = 0, k0 = 0; k0 < n; b++, k0 += per) {
      const k1 = Math.min(n, k0 + per);
      // K is symmetric: a row computed before (of this block) already holds this entry, and spares an exp
      const block = done.length > 0 ? this.blocks[b] : undefined;
      for (let k = k0; k < k1; k++)
        out[k] = block && done[k] ? block[(k - k0) * n + i] : Math.exp(-g * Math.max(0, si + sq[k] - 2 * out[k]));
    }
  }

  row(i: number): Float64Array {
    const n = this.X.rows;
    if (this.kept) {
      let r = this.kept[i];
      if (r.length === 0) {
        const b = Math.floor(i / this.rowsPerBlock);
        this.blocks[b] ??= new Float64Array(this.rowsPerBlock * n);
        const at = (i - b * this.rowsPerBlock) * n;
        r = this.blocks[b].subarray(at, at + n);
        this.fill(i, r);
        this.kept[i] = r;
        this.done[i] = 1;
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
  keep.forEach((i, k) => {
    coef[k] = coefAll[i];
    sv.set(X.data.subarray(i * d, (i + 1) * d), k * d);
  });
  return { coef, sv, w: null, rho };
}

export function decision(e: Expansion, X: Design, kernel: Kernel, gamma: number, out: Float64Array, stride: number, offset: number): void {
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
export function sharedDecisions(machines: Expansion[], X: Design, gamma: number, out: Float64Array): void {
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
