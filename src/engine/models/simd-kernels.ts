import { SIMD_KERNELS_WASM } from './generated/simd-kernels-wasm';
import type { DualArrays, DualPasses } from './common';

// the parts of the WebAssembly JavaScript API used here (the project's type libraries leave it out)
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
};

/** The exports of simd-kernels.wat (offsets in bytes into `memory`). */
interface Exports {
  memory: WasmMemory;
  predictors(x: number, w: number, z: number, pairs: number, dp: number, hp: number): void;
  crossProducts(r: number, x: number, g: number, pairs: number, dp: number, hp: number): void;
  softmax(z: number, prob: number, y: number, s: number, pairs: number, h: number): number;
  rbfRow(x: number, sq: number, xi: number, sqi: number, rows: number, dp: number, gamma: number, out: number): void;
  svcPass(
    x: number,
    dp: number,
    d: number,
    w: number,
    alpha: number,
    qd: number,
    y: number,
    index: number,
    active: number,
    C: number,
    pgMaxOld: number,
    pgMinOld: number,
    out: number,
  ): number;
  cholesky(at: number, lt: number, P: number, stride: number, ridge: number, min: number): number;
  blockWeights(prob: number, w: number, width: number, n: number, rows: number): void;
  pairProducts(x: number, pr: number, known: number, p: number, rows: number): void;
  blockSums(w: number, pr: number, c: number, blocks: number, pairs: number, rows: number, n: number): void;
  svrPass(
    x: number,
    dp: number,
    d: number,
    w: number,
    beta: number,
    qd: number,
    z: number,
    index: number,
    active: number,
    C: number,
    epsilon: number,
    gmaxOld: number,
    out: number,
  ): number;
  aucLanes(at: number, pos: number, gs: number, g: number, n: number, lanes: number, out: number): void;
  weightedSums(v: number, w: number, out: number, n: number, jp: number, draws: number): void;
}

/** An instance of the kernels and the workspace whose data its memory holds. */
export interface Instance {
  exports: Exports;
  /** whose data the memory holds */
  holder: Holder | null;
}

/** A user of an instance's memory: copies its data in when it finds another's there (`previous`, or none). */
interface Holder {
  load(f: Float64Array, previous: Holder | null): void;
}

/** The instance's memory as doubles for `holder`, grown to at least `end` bytes, its data loaded unless it is there. */
function claimMemory(inst: Instance, holder: Holder, end: number, view: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> {
  const memory = inst.exports.memory;
  if (inst.holder === holder && view.buffer === memory.buffer) return view;
  if (memory.buffer.byteLength < end) memory.grow(Math.ceil((end - memory.buffer.byteLength) / PAGE));
  const f = new Float64Array(memory.buffer);
  if (inst.holder !== holder) {
    const previous = inst.holder;
    inst.holder = holder;
    holder.load(f, previous);
  }
  return f;
}

/** Workspaces up to this size share one instance per thread; a larger one gets its own, freed with it. */
const SHARED_MAX_BYTES = 64 << 20;
export const PAGE = 65536;

let compiled: object | undefined;
let shared: Instance | undefined;

export function instantiate(): Instance {
  compiled ??= new WebAssembly.Module(Buffer.from(SIMD_KERNELS_WASM, 'base64'));
  return { exports: new WebAssembly.Instance(compiled, {}).exports as Exports, holder: null };
}

export const roundUp = (v: number, m: number): number => Math.ceil(v / m) * m;

/**
 * The multinomial likelihood's passes over the data in WebAssembly SIMD (simd-kernels.wat): the design (with a leading
 * column of ones) copied once into the kernels' memory, rows in pairs; per evaluation the weights are copied in, and
 * the kernels write the linear predictors, the probabilities, the residuals 1[y_i = h] - p_ih and their cross products
 * with the design. On digits (1,797 x 62 x 10 heads) one value and gradient takes about 0.55 ms against 1.9 ms in the
 * register-blocked JavaScript products (dense.ts). The memory of one instance per thread is shared by the workspaces
 * of that thread: a workspace that finds another's data there copies its own back in (and recomputes its last
 * evaluation), so workspaces may be used in any interleaving.
 */
export class SoftmaxKernels {
  /** heads, padded heads (even), columns with the intercept (D = d + 1) and padded (multiple of 4), rows padded (multiple of 8) */
  readonly hp: number;
  readonly D: number;
  readonly dp: number;
  readonly rows: number;
  private readonly instance: Instance;
  /** byte offsets: design, weights, predictors then residuals, probabilities, class codes, row sums, cross products */
  private readonly at: { x: number; w: number; z: number; prob: number; y: number; s: number; g: number; end: number };
  private f64 = new Float64Array(0);
  /** the weights of the last evaluation (to recompute it after another workspace used the memory) */
  private readonly lastW: Float64Array;
  private evaluated = false;

  constructor(
    private readonly xr: Float64Array,
    readonly n: number,
    private readonly d: number,
    readonly H: number,
    private readonly y: Int32Array,
  ) {
    this.D = d + 1;
    this.dp = roundUp(this.D, 4);
    this.hp = roundUp(H, 2);
    this.rows = roundUp(Math.max(n, 1), 8);
    const { rows, dp, hp } = this;
    let o = 0;
    const take = (doubles: number): number => {
      const at = o;
      o += doubles * 8;
      return at;
    };
    this.at = {
      x: take(rows * dp),
      w: take(hp * dp),
      z: take(hp * rows),
      prob: take(hp * rows),
      y: take(rows),
      s: take(rows),
      g: take(hp * dp),
      end: o,
    };
    this.lastW = new Float64Array(H * this.D);
    this.instance = o > SHARED_MAX_BYTES ? instantiate() : (shared ??= instantiate());
  }

  /** The memory as doubles, holding this workspace's design and class codes (copied in when another's were there). */
  private claim(): Float64Array {
    this.f64 = claimMemory(this.instance, this, this.at.end, this.f64);
    return this.f64;
  }

  /** Copies the design and class codes in; the workspace whose data were there must evaluate again. */
  load(f: Float64Array, previous: Holder | null): void {
    if (previous instanceof SoftmaxKernels) previous.evaluated = false;
    this.evaluated = false;
    const { n, d, dp, xr } = this;
    const x = this.at.x / 8;
    f.fill(0, x, x + this.rows * dp);
    for (let i = 0; i < n; i++) {
      // row i is lane i & 1 of pair i >> 1: column a at x + ((i >> 1) * dp + a) * 2 + (i & 1)
      const base = x + (i >> 1) * dp * 2 + (i & 1);
      f[base] = 1;
      for (let j = 0, q = base + 2; j < d; j++, q += 2) f[q] = xr[i * d + j];
    }
    const y = this.at.y / 8;
    for (let i = 0; i < this.rows; i++) f[y + i] = i < n ? this.y[i] : -1;
  }

  /** The log-likelihood sum_i log p(y_i | x_i) at the weights w (H x D, intercept first); keeps the residuals and probabilities. */
  logLikelihood(w: Float64Array): number {
    const f = this.claim();
    const { H, D, dp, hp, n, at } = this;
    const wo = at.w / 8;
    for (let h = 0; h < H; h++) for (let a = 0; a < D; a++) f[wo + h * dp + a] = w[h * D + a];
    const k = this.instance.exports;
    const pairs = this.rows / 2;
    k.predictors(at.x, at.w, at.z, pairs, dp, hp);
    let ll = k.softmax(at.z, at.prob, at.y, at.s, pairs, H);
    const s = at.s / 8;
    for (let i = 0; i < n; i++) ll -= Math.log(f[s + i]);
    this.lastW.set(w);
    this.evaluated = true;
    return ll;
  }

  /** Recomputes the last evaluation when another workspace has used the memory since. */
  private current(): Float64Array {
    const f = this.claim();
    if (!this.evaluated) this.logLikelihood(this.lastW);
    return this.f64 === f ? f : this.f64;
  }

  /** out[h * D + a] = sum_i (1[y_i = h] - p_ih) x_ia at the last evaluation (column 0: the intercept's ones). */
  residualCrossProducts(out: Float64Array): void {
    const f = this.current();
    const { H, D, dp, hp, at } = this;
    this.instance.exports.crossProducts(at.z, at.x, at.g, this.rows / 2, dp, hp);
    const g = at.g / 8;
    for (let h = 0; h < H; h++) for (let a = 0; a < D; a++) out[h * D + a] = f[g + h * dp + a];
  }

  /** The probabilities of the last evaluation: p_ih at data[offset + h * stride + i] (a view valid until the next call). */
  probabilities(): { data: Float64Array; offset: number; stride: number } {
    return { data: this.current(), offset: this.at.prob / 8, stride: this.rows };
  }
}

/** An instance of the kernels for kernel rows (per thread, up to SHARED_MAX_BYTES) and the RbfRows whose data it holds. */
let sharedRows: Instance | undefined;

/**
 * Rows of an RBF kernel matrix exp(-gamma |x_i - x_k|^2) = exp(-gamma max(0, |x_i|^2 + |x_k|^2 - 2 x_i . x_k)) in
 * WebAssembly SIMD (rbfRow in simd-kernels.wat): the samples copied once into the kernels' memory, padded to an
 * even number of features and of rows; a row is computed there and copied out. The squared norms are summed here in
 * the order of the kernels' dot products (even terms, odd terms, then both), so a sample's distance to itself is
 * exactly 0 and the rows are symmetric to the bit. Several RbfRows of a thread share one instance's memory: one that
 * finds another's samples there copies its own back in.
 */
export class RbfRows {
  /** squared norms of the samples */
  readonly sq: Float64Array;
  private readonly dp: number;
  private readonly rows: number;
  private readonly instance: Instance;
  private readonly at: { x: number; sq: number; out: number; v: number; end: number };
  private f64 = new Float64Array(0);

  constructor(
    private readonly data: Float64Array,
    readonly n: number,
    private readonly d: number,
  ) {
    this.dp = roundUp(Math.max(d, 1), 2);
    this.rows = roundUp(Math.max(n, 1), 4);
    const x = 0;
    const sq = x + this.rows * this.dp * 8;
    const out = sq + this.rows * 8;
    const v = out + this.rows * 8;
    this.at = { x, sq, out, v, end: v + this.dp * 8 };
    this.sq = Float64Array.from({ length: n }, (_, i) => squaredNorm(data, i * d, d));
    const own = this.at.end > SHARED_MAX_BYTES;
    this.instance = own ? instantiate() : (sharedRows ??= instantiate());
  }

  /** The memory as doubles, holding these samples (copied in when another's were there). */
  private claim(): Float64Array {
    this.f64 = claimMemory(this.instance, this, this.at.end, this.f64);
    return this.f64;
  }

  /** Copies the samples and their squared norms in. */
  load(f: Float64Array): void {
    const { n, d, dp, data } = this;
    f.fill(0, 0, this.at.end / 8);
    for (let i = 0; i < n; i++) f.set(data.subarray(i * d, (i + 1) * d), i * dp);
    f.set(this.sq, this.at.sq / 8);
  }

  /** out[k] = K(x_i, x_k) for k < n. */
  row(i: number, gamma: number, out: Float64Array): void {
    const f = this.claim();
    const { at, dp } = this;
    this.instance.exports.rbfRow(at.x, at.sq, at.x + i * dp * 8, this.sq[i], this.rows, dp, gamma, at.out);
    out.set(f.subarray(at.out / 8, at.out / 8 + this.n));
  }

  /** out[k] = K(v, x_k) for k < n, v the d values of `data` from `offset` (a sample to predict). */
  rowFor(data: Float64Array, offset: number, gamma: number, out: Float64Array): void {
    const f = this.claim();
    const { at, dp, d } = this;
    f.set(data.subarray(offset, offset + d), at.v / 8);
    this.instance.exports.rbfRow(at.x, at.sq, at.v, squaredNorm(data, offset, d), this.rows, dp, gamma, at.out);
    out.set(f.subarray(at.out / 8, at.out / 8 + this.n));
  }
}

/** The squared norm of data[offset, offset + d) summed as rbfRow sums a dot product: even terms, odd terms, then both. */
function squaredNorm(data: Float64Array, offset: number, d: number): number {
  let even = 0;
  let odd = 0;
  for (let j = 0; j < d; j += 2) {
    const v = data[offset + j];
    even += v * v;
    if (j + 1 < d) {
      const w = data[offset + j + 1];
      odd += w * w;
    }
  }
  return even + odd;
}

/** An instance of the kernels for the linear dual solvers (per thread, up to SHARED_MAX_BYTES) and the design it holds. */
let sharedDual: Instance | undefined;

/** Linear dual fits past this size run their passes in JavaScript (wasm32 addresses 4 GB; offsets here are i32). */
const DUAL_MAX_BYTES = 2 ** 31 - PAGE;

/**
 * The passes of the linear SVM's and SVR's dual coordinate descent (linear-dual.ts) in WebAssembly SIMD (svcPass and
 * svrPass in simd-kernels.wat), computing exactly what the JavaScript passes compute: the design copied once into
 * the kernels' memory (rows padded to an even number of features), which also holds the solver's arrays, so a
 * pass over the active samples is one call (a call from JavaScript costs about 8 ns: one per visit would add 7 to
 * 14 ms on digits). On digits (1,797 x 61, 10 one-vs-rest heads of 1,000 passes of about 86 visits, 79% of them
 * moving w) a fit takes 43-48 ms of CPU against 105-110 ms in JavaScript (load 7-10). Several fits of a thread
 * share one instance's memory: one that finds another's design there copies its own back in. `create` gives null
 * for a design too large for it.
 */
export class LinearDualKernels implements DualPasses {
  private readonly dp: number;
  private readonly instance: Instance;
  private readonly at: { x: number; w: number; a: number; qd: number; y: number; index: number; out: number; end: number };
  private f64 = new Float64Array(0);
  private arrays: DualArrays | null = null;

  private constructor(
    private readonly data: Float64Array,
    private readonly n: number,
    private readonly d: number,
    end: number,
  ) {
    this.dp = roundUp(Math.max(d, 1), 2);
    const n2 = roundUp(Math.max(n, 1), 2);
    const x = 0;
    const w = x + n * this.dp * 8;
    const a = w + roundUp(d + 1, 2) * 8;
    const qd = a + n2 * 8;
    const y = qd + n2 * 8;
    const index = y + n2 * 8;
    const out = index + roundUp(n2 * 4, 16);
    this.at = { x, w, a, qd, y, index, out, end };
    this.instance = end > SHARED_MAX_BYTES ? instantiate() : (sharedDual ??= instantiate());
  }

  /** The kernels for a design of n x d (row-major `data`), or null when it is too large for them. */
  static create(data: Float64Array, n: number, d: number): LinearDualKernels | null {
    const n2 = roundUp(Math.max(n, 1), 2);
    const end = n * roundUp(Math.max(d, 1), 2) * 8 + roundUp(d + 1, 2) * 8 + 3 * n2 * 8 + roundUp(n2 * 4, 16) + 16;
    return end > DUAL_MAX_BYTES ? null : new LinearDualKernels(data, n, d, end);
  }

  /** Copies the design in, each row padded to dp. */
  load(f: Float64Array): void {
    const { n, d, dp, data } = this;
    if (dp === d) f.set(data.subarray(0, n * d));
    else
      for (let i = 0; i < n; i++) {
        f.set(data.subarray(i * d, (i + 1) * d), i * dp);
        f[i * dp + d] = 0;
      }
  }

  start(): DualArrays {
    const f = claimMemory(this.instance, this, this.at.end, this.f64);
    const { n, d, at } = this;
    if (f !== this.f64 || !this.arrays) {
      const { buffer } = f;
      this.arrays = {
        w: new Float64Array(buffer, at.w, d + 1),
        alpha: new Float64Array(buffer, at.a, n),
        QD: new Float64Array(buffer, at.qd, n),
        y: new Float64Array(buffer, at.y, n),
        index: new Int32Array(buffer, at.index, n),
      };
      this.f64 = f;
    }
    const { w, alpha, index } = this.arrays;
    w.fill(0);
    alpha.fill(0);
    for (let i = 0; i < n; i++) index[i] = i;
    return this.arrays;
  }

  svc(active: number, C: number, pgMaxOld: number, pgMinOld: number, out: Float64Array): number {
    const { at, dp, d } = this;
    const left = this.instance.exports.svcPass(at.x, dp, d, at.w, at.a, at.qd, at.y, at.index, active, C, pgMaxOld, pgMinOld, at.out);
    return this.passed(left, out);
  }

  svr(active: number, C: number, epsilon: number, gmaxOld: number, out: Float64Array): number {
    const { at, dp, d } = this;
    const left = this.instance.exports.svrPass(at.x, dp, d, at.w, at.a, at.qd, at.y, at.index, active, C, epsilon, gmaxOld, at.out);
    return this.passed(left, out);
  }

  /** The active count `left` after a pass, its two figures copied to `out`. */
  private passed(left: number, out: Float64Array): number {
    const o = this.at.out / 8;
    out[0] = this.f64[o];
    out[1] = this.f64[o + 1];
    return left;
  }
}
