/**
 * What every test shares: the design by columns, the orthonormal bases of Z and of X given Z, and the cache of
 * conditioning sets (index.ts explains the reparametrization).
 */
import type { ConditionalIndependenceTest, IndependenceTestResult } from '../independence';
import { dotAt } from '../linalg';
import type { SelectionInput } from '../selection-types';

/** What a test reads of the selector's input (selection.ts): the preprocessed design, its features, the outcome. */
export type IndependenceTestInput = Pick<SelectionInput, 'X' | 'columnFeature' | 'featureCount' | 'categorical' | 'target' | 'task'>;

/**
 * A column whose residual on the others keeps less than this fraction of its centered sum of squares is taken
 * as a linear function of them (a residual norm below 1e-5 of the column's spread: exact copies and linear
 * combinations leave about 1e-15 in double precision).
 */
const COLLINEAR = 1e-10;

/**
 * The cache of conditioning sets keeps CACHE_NUMBERS / (8 n) of them (an entry holds about 8 vectors of n numbers
 * when |Z| <= 3: the basis, the null fit's linear predictor and state): about 32 MB, 2,500 sets at n = 200.
 */
const CACHE_NUMBERS = 4e6;

export function dot(a: Float64Array, b: Float64Array, n: number): number {
  return dotAt(a, 0, b, 0, n);
}

/**
 * Removes from v its projections on the orthonormal vectors `basis` (modified Gram-Schmidt, done twice when most
 * of v was removed, which restores orthogonality to working precision). Returns the squared norm left.
 */
export function orthogonalize(v: Float64Array, basis: readonly Float64Array[], n: number): number {
  const before = dot(v, v, n);
  for (let pass = 0; pass < 2; pass++) {
    for (const q of basis) {
      const c = dot(q, v, n);
      for (let i = 0; i < n; i++) v[i] -= c * q[i];
    }
    const after = dot(v, v, n);
    if (pass === 1 || after > 0.25 * before) return after;
  }
  return 0;
}

/** A result with no evidence against independence (p = 1). */
export function noEvidence(df: number): IndependenceTestResult {
  return { statistic: 0, df, logP: 0 };
}

/** Never NaN or infinite: a failed computation means no evidence (p = 1). */
export function finite(r: IndependenceTestResult): IndependenceTestResult {
  const statistic = Number.isNaN(r.statistic) ? 0 : Math.min(Math.max(r.statistic, 0), Number.MAX_VALUE);
  const logP = Number.isNaN(r.logP) ? 0 : Math.max(Math.min(r.logP, 0), -Number.MAX_VALUE);
  return r.bound ? { statistic, df: r.df, logP, bound: true } : { statistic, df: r.df, logP };
}

/** A start for a null fit: the fit of another set, a subset of the one fitted or not (then only if it does better). */
export interface NullStart<Null> {
  fit: Null;
  subset: boolean;
}

export interface Conditioning<Null> {
  /** orthonormal basis of span(1, columns of Z); basis[0] is the constant */
  basis: Float64Array[];
  fit: Null;
}

/** What the tests share: the design by columns, the bases of Z and of X given Z, and the cache by Z. */
export abstract class ResidualTest<Null> implements ConditionalIndependenceTest {
  abstract readonly description: string;
  protected readonly n: number;
  /** design columns (views into one column-major copy) */
  protected readonly columns: Float64Array[] = [];
  /** centered sum of squares of each design column */
  private readonly spread: Float64Array;
  /** sum of squares of each design column */
  protected readonly squares: Float64Array;
  protected readonly featureColumns: number[][];
  protected readonly categorical: Uint8Array;
  private readonly cache = new Map<string, Conditioning<Null>>();
  /** the last set whose null fit was computed (sorted), and that fit */
  private last?: { set: number[]; fit: Null };
  private readonly cacheLimit: number;
  /** buffers for X's basis, which lives for one test only */
  private readonly pool: Float64Array[] = [];

  constructor(input: IndependenceTestInput) {
    const { rows: n, cols: d, data } = input.X;
    this.n = n;
    this.categorical = input.categorical;
    // one transposed copy: every test reads whole columns, which row-major storage scatters over the memory
    const byColumn = new Float64Array(n * d);
    const B = 64;
    for (let i0 = 0; i0 < n; i0 += B)
      for (let j0 = 0; j0 < d; j0 += B)
        for (let i = i0; i < Math.min(n, i0 + B); i++) for (let j = j0; j < Math.min(d, j0 + B); j++) byColumn[j * n + i] = data[i * d + j];
    this.spread = new Float64Array(d);
    this.squares = new Float64Array(d);
    for (let j = 0; j < d; j++) {
      const c = byColumn.subarray(j * n, (j + 1) * n);
      this.columns.push(c);
      this.squares[j] = dot(c, c, n);
      let s = 0;
      for (let i = 0; i < n; i++) s += c[i];
      const mean = s / n;
      let ss = 0;
      for (let i = 0; i < n; i++) ss += (c[i] - mean) ** 2;
      this.spread[j] = ss;
    }
    this.featureColumns = Array.from({ length: input.featureCount }, () => []);
    for (let j = 0; j < d; j++) this.featureColumns[input.columnFeature[j]].push(j);
    this.cacheLimit = Math.max(8, Math.floor(CACHE_NUMBERS / (8 * Math.max(1, n))));
  }

  test(x: number, z: readonly number[], below = -Infinity): IndependenceTestResult {
    const conditioning = this.conditioning(z);
    const added = this.span(this.featureColumns[x] ?? [], conditioning.basis, this.pool);
    if (added.length === 0) return noEvidence(this.nominalDf(x, z));
    return finite(this.compare(x, z, conditioning, added, below));
  }

  /** degrees of freedom reported when X adds nothing to Z */
  protected abstract nominalDf(x: number, z: readonly number[]): number;
  /**
   * The fit of T ~ Z (on the basis) that every X tested against Z is compared with; `from`, when given, is the fit
   * of a set close to Z, a start (see NullStart).
   */
  protected abstract fitNull(basis: Float64Array[], from?: NullStart<Null>): Null;
  /** the test proper, given the orthonormal basis `added` of what X adds to Z (not empty); `below` as in `test` */
  protected abstract compare(
    x: number,
    z: readonly number[],
    conditioning: Conditioning<Null>,
    added: Float64Array[],
    below: number,
  ): IndependenceTestResult;

  /** Q and the null fit for Z, from the cache (least recently used entries leave first). */
  protected conditioning(z: readonly number[]): Conditioning<Null> {
    const sorted = [...new Set(z)].sort((a, b) => a - b);
    const key = sorted.join(',');
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const constant = new Float64Array(this.n).fill(1 / Math.sqrt(this.n));
    const basis = [
      constant,
      ...this.span(
        sorted.flatMap((f) => this.featureColumns[f] ?? []),
        [constant],
      ),
    ];
    const entry = { basis, fit: this.fitNull(basis, this.nearFit(sorted)) };
    if (this.cache.size >= this.cacheLimit) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, entry);
    this.last = { set: sorted, fit: entry.fit };
    return entry;
  }

  /**
   * A fit to start the null fit of the set `sorted` from: SES conditions on a set after its subsets (each pass adds
   * the newest selected feature to the older sets), so the fit of the set without one feature is usually cached;
   * otherwise the last set fitted when it differs from this one by one feature swapped (the equivalence analysis
   * drops each member of a signature in turn).
   */
  private nearFit(sorted: number[]): NullStart<Null> | undefined {
    for (let t = sorted.length - 1; t >= 0; t--) {
      const fit = this.cache.get(sorted.filter((_, u) => u !== t).join(','))?.fit;
      if (fit) return { fit, subset: true };
    }
    const last = this.last;
    if (!last || sorted.length < 2 || last.set.length !== sorted.length) return undefined;
    let shared = 0;
    for (const f of sorted) if (last.set.includes(f)) shared++;
    return shared === sorted.length - 1 ? { fit: last.fit, subset: false } : undefined;
  }

  /**
   * Orthonormal basis of what the design columns `cols` add to span(basis); a column that adds (numerically)
   * nothing is skipped. The vectors are new, or the `pool`'s buffers when given.
   */
  private span(cols: readonly number[], basis: readonly Float64Array[], pool?: Float64Array[]): Float64Array[] {
    const out: Float64Array[] = [];
    const all = [...basis];
    for (const c of cols) {
      if (!(this.spread[c] > 0)) continue;
      let v: Float64Array;
      if (pool) {
        v = pool[out.length] ??= new Float64Array(this.n);
        v.set(this.columns[c]);
      } else v = Float64Array.from(this.columns[c]);
      const left = orthogonalize(v, all, this.n);
      if (!(left > COLLINEAR * this.spread[c])) continue;
      const scale = 1 / Math.sqrt(left);
      for (let i = 0; i < this.n; i++) v[i] *= scale;
      out.push(v);
      all.push(v);
    }
    return out;
  }
}

// ---------------------------------------------------------------- regression
