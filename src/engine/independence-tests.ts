/**
 * The conditional-independence tests of SES, one per outcome kind (engine.md, "Feature selection in detail";
 * reference values in spec/references/ci-tests.json):
 * - regression: Fisher's z of the partial correlation with MXM's Student-t p-value, or the F-test of nested
 *   linear models when a categorical feature takes part;
 * - classification: likelihood ratio of nested logistic (2 classes) or multinomial logistic regressions;
 * - survival: likelihood ratio of nested Cox models with Efron's ties.
 *
 * Every test works in one reparametrization: the conditioning set Z becomes an orthonormal basis Q of
 * span(1, Z columns), and X becomes an orthonormal basis W of what its columns add to it (their residuals on Q,
 * orthonormalized). The models T ~ Z and T ~ Z + X have the same fits on [Q] and [Q, W], so the likelihoods
 * (and the statistics) are unchanged, while the fits become well conditioned, the partial correlation is one
 * dot product, and "X is a linear function of Z" is simply "W is empty" (then p = 1).
 * Q and the null fit T ~ Z are cached by Z, since SES tests many X against the same Z.
 */
import { logChiSquareSurvival, logFSurvival, logStudentTTwoSided } from './distributions';
import { type ConditionalIndependenceTest, type IndependenceTestResult, REFERENCE_TEST_SAMPLES } from './independence';
import { solveCholesky } from './linalg';
import type { SelectionInput } from './selection';

/** What a test reads of the selector's input (selection.ts): the preprocessed design, its features, the outcome. */
export type IndependenceTestInput = Pick<SelectionInput, 'X' | 'columnFeature' | 'featureCount' | 'categorical' | 'target' | 'task'>;

/**
 * A column whose residual on the others keeps less than this fraction of its centered sum of squares is taken
 * as a linear function of them (a residual norm below 1e-5 of the column's spread: exact copies and linear
 * combinations leave about 1e-15 in double precision).
 */
const COLLINEAR = 1e-10;
/** Newton's method: at most this many steps (complete separation would otherwise run forever), and step halvings per step */
const MAX_NEWTON_STEPS = 30;
const MAX_HALVINGS = 30;
/**
 * Newton stops once the predicted decrease of the deviance delta = score' information^-1 score is below this, and
 * reports deviance - delta, the minimum of the quadratic model: its error is of the order delta^1.5 (about 1e-10),
 * and the step it saves costs an exponential and a logarithm per sample.
 */
const NEWTON_TOLERANCE = 1e-7;
/**
 * Newton's information costs far more than its score (multinomial: (K - 1)^2 / 2 blocks of p^2 sums over the samples,
 * against K - 1 score vectors), and changes little between steps near the optimum. A step reuses the last factored
 * information (a chord step) while the decrement falls at least by this factor per step; otherwise the information is
 * computed afresh. The fit converges to the same optimum (to NEWTON_TOLERANCE) either way.
 */
const CHORD_RATIO = 0.03;
/**
 * The cache of conditioning sets keeps CACHE_NUMBERS / (8 n) of them (an entry holds about 8 vectors of n numbers
 * when |Z| <= 3: the basis, the null fit's linear predictor and state): about 32 MB, 2,500 sets at n = 200.
 */
const CACHE_NUMBERS = 4e6;

/** Creates the test that engine.md prescribes for the task. */
export function createIndependenceTest(input: IndependenceTestInput): ConditionalIndependenceTest {
  if (input.task === 'regression') return new LinearTest(input);
  if (input.task === 'classification') return new LogisticTest(input);
  return new CoxTest(input);
}

function dot(a: Float64Array, b: Float64Array, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/**
 * Removes from v its projections on the orthonormal vectors `basis` (modified Gram-Schmidt, done twice when most
 * of v was removed, which restores orthogonality to working precision). Returns the squared norm left.
 */
function orthogonalize(v: Float64Array, basis: readonly Float64Array[], n: number): number {
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
function noEvidence(df: number): IndependenceTestResult {
  return { statistic: 0, df, logP: 0 };
}

/** Never NaN or infinite: a failed computation means no evidence (p = 1). */
function finite(r: IndependenceTestResult): IndependenceTestResult {
  const statistic = Number.isNaN(r.statistic) ? 0 : Math.min(Math.max(r.statistic, 0), Number.MAX_VALUE);
  const logP = Number.isNaN(r.logP) ? 0 : Math.max(Math.min(r.logP, 0), -Number.MAX_VALUE);
  return { statistic, df: r.df, logP };
}

interface Conditioning<Null> {
  /** orthonormal basis of span(1, columns of Z); basis[0] is the constant */
  basis: Float64Array[];
  fit: Null;
}

/** What the tests share: the design by columns, the bases of Z and of X given Z, and the cache by Z. */
abstract class ResidualTest<Null> implements ConditionalIndependenceTest {
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

  test(x: number, z: readonly number[]): IndependenceTestResult {
    const conditioning = this.conditioning(z);
    const added = this.span(this.featureColumns[x] ?? [], conditioning.basis, this.pool);
    if (added.length === 0) return noEvidence(this.nominalDf(x, z));
    return finite(this.compare(x, z, conditioning, added));
  }

  /** degrees of freedom reported when X adds nothing to Z */
  protected abstract nominalDf(x: number, z: readonly number[]): number;
  /** the fit of T ~ Z (on the basis) that every X tested against Z is compared with */
  protected abstract fitNull(basis: Float64Array[]): Null;
  /** the test proper, given the orthonormal basis `added` of what X adds to Z (not empty) */
  protected abstract compare(
    x: number,
    z: readonly number[],
    conditioning: Conditioning<Null>,
    added: Float64Array[],
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
    const entry = { basis, fit: this.fitNull(basis) };
    if (this.cache.size >= this.cacheLimit) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, entry);
    return entry;
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

/** Fisher's z of the partial correlation r, p-value from Student's t with df degrees of freedom (MXM testIndFisher). */
function fisherZ(r: number, df: number): IndependenceTestResult {
  // |r| = 1 (T a linear function of X and Z) would give an infinite statistic
  const clamped = Math.max(-1 + 1e-15, Math.min(1 - 1e-15, r));
  const statistic = Math.sqrt(df) * Math.abs(Math.atanh(clamped));
  return { statistic, df, logP: logStudentTTwoSided(statistic, df) };
}

interface LinearNull {
  /** residual of T on Z */
  residual: Float64Array;
  rss: number;
}

/** Fisher's z (MXM testIndFisher) with numerical features only, else the F-test of nested linear models. */
class LinearTest extends ResidualTest<LinearNull> {
  readonly description: string;
  private readonly y: Float64Array;
  /** below this residual sum of squares, T is (numerically) a linear function of Z: rounding leaves about 1e-32 of sum y^2 */
  private readonly noResidual: number;

  constructor(input: IndependenceTestInput) {
    super(input);
    this.y = input.target.y;
    this.noResidual = 1e-24 * dot(this.y, this.y, this.y.length);
    this.description = input.categorical.some((c) => c === 1)
      ? "Fisher's z test of partial correlations (F-test of nested linear models when a categorical feature is involved)"
      : "Fisher's z test of partial correlations";
  }

  private fisher(x: number, z: readonly number[]): boolean {
    return this.categorical[x] !== 1 && z.every((f) => this.categorical[f] !== 1);
  }

  protected nominalDf(x: number, z: readonly number[]): number {
    return this.fisher(x, z) ? Math.max(0, this.n - z.length - 3) : this.featureColumns[x].length;
  }

  protected fitNull(basis: Float64Array[]): LinearNull {
    const residual = Float64Array.from(this.y);
    const rss = orthogonalize(residual, basis, this.n);
    return { residual, rss: rss > this.noResidual ? rss : 0 };
  }

  override test(x: number, z: readonly number[]): IndependenceTestResult {
    return (this.fisher(x, z) && this.featureColumns[x].length === 1 && this.fisherFromProjections(x, z)) || super.test(x, z);
  }

  /**
   * The common case without allocation: X's residual on Z is never formed, only its squared norm
   * |x|^2 - |Q'x|^2 and its product with T's residual (= x' residual, as that is orthogonal to Q). Null when most
   * of x lies in span(Z), where that difference cancels: the explicit residual decides then.
   */
  private fisherFromProjections(x: number, z: readonly number[]): IndependenceTestResult | null {
    const { basis, fit } = this.conditioning(z);
    const n = this.n;
    const c = this.featureColumns[x][0];
    const col = this.columns[c];
    let projected = 0;
    for (const q of basis) projected += dot(q, col, n) ** 2;
    const left = this.squares[c] - projected;
    if (!(left > 1e-4 * this.squares[c])) return null;
    const df = n - z.length - 3;
    if (df < 1 || !(fit.rss > 0)) return noEvidence(Math.max(df, 0));
    return finite(fisherZ(dot(col, fit.residual, n) / Math.sqrt(left * fit.rss), df));
  }

  protected compare(
    x: number,
    z: readonly number[],
    { basis, fit }: Conditioning<LinearNull>,
    added: Float64Array[],
  ): IndependenceTestResult {
    const n = this.n;
    if (this.fisher(x, z)) {
      const df = n - z.length - 3;
      if (df < 1 || !(fit.rss > 0)) return noEvidence(Math.max(df, 0));
      // `added[0]` is X's residual on Z, normalized; T's residual is orthogonal to Z, so this is the partial correlation
      return fisherZ(dot(added[0], fit.residual, n) / Math.sqrt(fit.rss), df);
    }
    const m = added.length;
    const df2 = n - basis.length - m;
    if (df2 < 1 || !(fit.rss > 0)) return noEvidence(m);
    let explained = 0;
    for (const w of added) explained += dot(w, fit.residual, n) ** 2;
    // a perfect fit of the larger model would give F = infinity
    const rss1 = Math.max(fit.rss - explained, fit.rss * 1e-15);
    const statistic = explained / m / (rss1 / df2);
    return { statistic, df: m, logP: logFSurvival(statistic, m, df2) };
  }
}

// ---------------------------------------------------------------- likelihood-ratio tests by Newton's method

/** A log-likelihood in the linear predictor: binomial, multinomial or Cox partial likelihood. */
interface Likelihood {
  /** numbers in the linear predictor per sample: 1, or K - 1 for the multinomial (sample i, part k at i * width + k) */
  readonly width: number;
  /** length of the per-sample state that `deviance` leaves for `derivatives` */
  readonly stateLength: number;
  /**
   * -2 log-likelihood at the linear predictor. Also writes into `state` what the derivatives at eta need (fitted
   * probabilities or risks), so that Newton's method spends no second exponential per sample on them.
   */
  deviance(eta: Float64Array, state: Float64Array): number;
  /**
   * The score (gradient of the log-likelihood) and the information (minus its Hessian, lower triangle, row-major
   * P x P) of the coefficients of `columns`, from the `state` of eta; the score alone when `information` is null.
   * Coefficient k * columns.length + j multiplies column j in part k.
   */
  derivatives(columns: readonly Float64Array[], state: Float64Array, score: Float64Array, information: Float64Array | null): void;
}

interface Fit {
  /** coefficient k * p + j of column j in part k */
  beta: Float64Array;
  eta: Float64Array;
  deviance: number;
  /** what `deviance` left at eta */
  state: Float64Array;
}

/** The fit at the linear predictor eta (coefficients given by the caller). */
function evaluate(likelihood: Likelihood, beta: Float64Array, eta: Float64Array): Fit {
  const state = new Float64Array(likelihood.stateLength);
  return { beta, eta, deviance: likelihood.deviance(eta, state), state };
}

/**
 * Cholesky factor L (lower, row-major P x P) of the symmetric positive (semi)definite A (lower triangle given); a
 * singular or nearly singular A (e.g. under separation, where the weights vanish) gets a growing ridge. False if
 * nothing works.
 */
function factorSymmetric(A: Float64Array, L: Float64Array, P: number): boolean {
  let maxDiagonal = 0;
  for (let a = 0; a < P; a++) maxDiagonal = Math.max(maxDiagonal, Math.abs(A[a * P + a]));
  if (!(maxDiagonal > 0) || !Number.isFinite(maxDiagonal)) return false;
  for (let attempt = 0, ridge = 0; attempt < 8; attempt++, ridge = maxDiagonal * 10 ** (attempt * 2 - 14)) {
    let ok = true;
    for (let a = 0; a < P && ok; a++) {
      for (let c = 0; c <= a; c++) {
        let s = A[a * P + c] + (a === c ? ridge : 0);
        for (let k = 0; k < c; k++) s -= L[a * P + k] * L[c * P + k];
        if (a === c) {
          if (!(s > maxDiagonal * 1e-14)) {
            ok = false;
            break;
          }
          L[a * P + a] = Math.sqrt(s);
        } else L[a * P + c] = s / L[c * P + c];
      }
    }
    if (ok) return true;
  }
  return false;
}

/**
 * Maximizes the likelihood over the coefficients of `columns` by Newton's method with step halving, from `start`
 * (a fit whose linear predictor matches its coefficients; it is not modified). The deviance never increases, and
 * the number of steps is capped, so a fit that cannot converge (complete separation) still ends with a finite
 * deviance. The last, tiny step (NEWTON_TOLERANCE) is not taken: the deviance is extrapolated instead, so then
 * the deviance no longer matches eta and state, which only the cached null fits use: `exact` keeps them consistent.
 */
function newton(likelihood: Likelihood, columns: readonly Float64Array[], start: Fit, exact = false, scratch?: Scratch): Fit {
  const w = likelihood.width;
  const p = columns.length;
  const P = w * p;
  if (P === 0) return start;
  const n = columns[0].length;
  const beta = Float64Array.from(start.beta);
  let { eta, state, deviance } = start;
  // trial buffers (the start's arrays are only read), and one spare pair for the first accepted step
  let trial: Float64Array = scratch?.eta[0] ?? new Float64Array(eta.length);
  let trialState: Float64Array = scratch?.state[0] ?? new Float64Array(state.length);
  const spareEta = scratch?.eta[1] ?? new Float64Array(eta.length);
  const spareState = scratch?.state[1] ?? new Float64Array(state.length);
  let owned = false;
  const score = new Float64Array(P);
  const information = new Float64Array(P * P);
  const step = new Float64Array(P);
  const direction = scratch?.direction ?? new Float64Array(eta.length);
  const factor = new Float64Array(P * P);
  let factored = false;
  let previous = Infinity;
  for (let iteration = 0; iteration < MAX_NEWTON_STEPS; iteration++) {
    // A chord step first (the last information's factor, the score only): kept when the decrement fell fast enough
    let decrement = NaN;
    if (factored) {
      likelihood.derivatives(columns, state, score, null);
      solveCholesky(factor, score, step, P);
      decrement = dot(score, step, P);
    }
    if (!(decrement <= CHORD_RATIO * previous)) {
      likelihood.derivatives(columns, state, score, information);
      factored = factorSymmetric(information, factor, P);
      if (!factored) break;
      solveCholesky(factor, score, step, P);
      decrement = dot(score, step, P);
    }
    if (!(decrement > 0)) break;
    previous = decrement;
    if (decrement < NEWTON_TOLERANCE && !exact) {
      deviance -= decrement;
      break;
    }
    if (decrement < NEWTON_TOLERANCE * 1e-3) break;
    for (let i = 0; i < n; i++)
      for (let k = 0; k < w; k++) {
        let d = 0;
        for (let j = 0; j < p; j++) d += step[k * p + j] * columns[j][i];
        direction[i * w + k] = d;
      }
    let t = 1;
    let accepted = false;
    for (let h = 0; h < MAX_HALVINGS; h++, t /= 2) {
      for (let i = 0; i < eta.length; i++) trial[i] = eta[i] + t * direction[i];
      const d = likelihood.deviance(trial, trialState);
      if (d <= deviance) {
        deviance = d;
        accepted = true;
        break;
      }
    }
    if (!accepted) break;
    for (let a = 0; a < P; a++) beta[a] += t * step[a];
    [eta, trial] = [trial, owned ? eta : spareEta];
    [state, trialState] = [trialState, owned ? state : spareState];
    owned = true;
  }
  return { beta, eta, deviance, state };
}

/** Work buffers for Newton's method, reused by the fits whose arrays are not kept (the full model of each test). */
interface Scratch {
  eta: [Float64Array, Float64Array];
  state: [Float64Array, Float64Array];
  direction: Float64Array;
}

function scratchFor(likelihood: Likelihood, n: number): Scratch {
  const m = n * likelihood.width;
  const k = likelihood.stateLength;
  return {
    eta: [new Float64Array(m), new Float64Array(m)],
    state: [new Float64Array(k), new Float64Array(k)],
    direction: new Float64Array(m),
  };
}

/** The null fit when there is nothing to test (a single class, no event). */
const EMPTY_FIT: Fit = { beta: new Float64Array(0), eta: new Float64Array(0), deviance: 0, state: new Float64Array(0) };

/** Coefficients of a fit on p columns, laid out for p + extra columns (the new ones at 0), for a warm start. */
function widen(beta: Float64Array, width: number, p: number, extra: number): Float64Array {
  const out = new Float64Array(width * (p + extra));
  for (let k = 0; k < width; k++) for (let j = 0; j < p; j++) out[k * (p + extra) + j] = beta[k * p + j];
  return out;
}

/** Fills the lower triangle of sum_i weight_i x_ij x_im into information[(row0 + j) * P + col0 + m]. */
function weightedCross(
  columns: readonly Float64Array[],
  weight: Float64Array,
  information: Float64Array,
  P: number,
  row0: number,
  col0: number,
  lowerOnly: boolean,
): void {
  const p = columns.length;
  const n = weight.length;
  for (let j = 0; j < p; j++) {
    const a = columns[j];
    for (let m = 0; m < (lowerOnly ? j + 1 : p); m++) {
      const b = columns[m];
      let s = 0;
      for (let i = 0; i < n; i++) s += weight[i] * a[i] * b[i];
      information[(row0 + j) * P + col0 + m] = s;
    }
  }
}

class Binomial implements Likelihood {
  readonly width = 1;
  readonly stateLength: number;
  private readonly residual: Float64Array;
  private readonly weight: Float64Array;

  /** state: the fitted probabilities */
  constructor(private readonly y: Uint8Array) {
    this.stateLength = y.length;
    this.residual = new Float64Array(y.length);
    this.weight = new Float64Array(y.length);
  }

  deviance(eta: Float64Array, mu: Float64Array): number {
    let d = 0;
    for (let i = 0; i < eta.length; i++) {
      // one exponential for both: -log P(y_i) = log(1 + e^(-/+ eta)), and mu = 1 / (1 + e^-eta)
      const v = eta[i];
      const e = Math.exp(-Math.abs(v));
      const l = Math.log1p(e);
      d += this.y[i] ? (v > 0 ? l : l - v) : v > 0 ? l + v : l;
      mu[i] = v > 0 ? 1 / (1 + e) : e / (1 + e);
    }
    return 2 * d;
  }

  derivatives(columns: readonly Float64Array[], mu: Float64Array, score: Float64Array, information: Float64Array | null): void {
    const P = columns.length;
    const n = mu.length;
    for (let i = 0; i < n; i++) {
      this.residual[i] = this.y[i] - mu[i];
      this.weight[i] = mu[i] * (1 - mu[i]);
    }
    for (let j = 0; j < P; j++) score[j] = dot(columns[j], this.residual, n);
    if (information) weightedCross(columns, this.weight, information, P, 0, 0, true);
  }
}

/** Multinomial logit with class 0 as the baseline: part k - 1 of the linear predictor is class k's log odds against class 0. */
class Multinomial implements Likelihood {
  readonly width: number;
  readonly stateLength: number;
  private readonly weight: Float64Array;
  private readonly residual: Float64Array;
  /** x_ij x_im for each pair of columns m <= j, pair after pair (grown as needed) */
  private products = new Float64Array(0);

  /** state: the fitted probabilities of classes 1 .. K - 1, sample-major */
  constructor(
    private readonly y: Int32Array,
    classCount: number,
  ) {
    this.width = classCount - 1;
    this.stateLength = y.length * this.width;
    this.weight = new Float64Array(y.length);
    this.residual = new Float64Array(y.length);
  }

  deviance(eta: Float64Array, prob: Float64Array): number {
    const w = this.width;
    let d = 0;
    for (let i = 0; i < this.y.length; i++) {
      let max = 0;
      for (let k = 0; k < w; k++) max = Math.max(max, eta[i * w + k]);
      let s = Math.exp(-max);
      for (let k = 0; k < w; k++) s += prob[i * w + k] = Math.exp(eta[i * w + k] - max);
      for (let k = 0; k < w; k++) prob[i * w + k] /= s;
      const c = this.y[i];
      d += max + Math.log(s) - (c > 0 ? eta[i * w + c - 1] : 0);
    }
    return 2 * d;
  }

  derivatives(columns: readonly Float64Array[], prob: Float64Array, score: Float64Array, information: Float64Array | null): void {
    const w = this.width;
    const p = columns.length;
    const P = w * p;
    const n = this.y.length;
    for (let k = 0; k < w; k++) {
      for (let i = 0; i < n; i++) this.residual[i] = (this.y[i] === k + 1 ? 1 : 0) - prob[i * w + k];
      for (let j = 0; j < p; j++) score[k * p + j] = dot(columns[j], this.residual, n);
    }
    if (!information) return;
    // The products x_ij x_im of each pair of columns (m <= j), which every block weighs differently.
    const pairs = (p * (p + 1)) / 2;
    if (this.products.length < pairs * n) this.products = new Float64Array(pairs * n);
    const products = this.products;
    for (let j = 0, at = 0; j < p; j++)
      for (let m = 0; m <= j; m++, at += n) {
        const a = columns[j];
        const b = columns[m];
        for (let i = 0; i < n; i++) products[at + i] = a[i] * b[i];
      }
    // information block (k, l) for l <= k: sum_i p_ik (delta_kl - p_il) x_ij x_im, symmetric in (j, m) within the block
    for (let k = 0; k < w; k++)
      for (let l = 0; l <= k; l++) {
        const weight = this.weight;
        for (let i = 0; i < n; i++) weight[i] = prob[i * w + k] * ((k === l ? 1 : 0) - prob[i * w + l]);
        for (let j = 0, at = 0; j < p; j++)
          for (let m = 0; m <= j; m++, at += n) {
            let s = 0;
            for (let i = 0; i < n; i++) s += weight[i] * products[at + i];
            information[(k * p + j) * P + l * p + m] = s;
            if (k !== l) information[(k * p + m) * P + l * p + j] = s;
          }
      }
  }
}

/** Cox partial likelihood with Efron's approximation for tied event times. */
class CoxPartial implements Likelihood {
  readonly width = 1;
  readonly stateLength: number;
  /** samples by decreasing time; group g spans order[groupStart[g] .. groupStart[g + 1]) (equal times) */
  private readonly order: Int32Array;
  private readonly groupStart: Int32Array;

  /** state: the risks exp(eta - max eta), which cannot overflow and leave the partial likelihood's ratios unchanged */
  constructor(
    time: Float64Array,
    private readonly event: Uint8Array,
  ) {
    const n = time.length;
    this.stateLength = n;
    this.order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => time[b] - time[a] || a - b);
    const starts: number[] = [];
    for (let k = 0; k < n; k++) if (k === 0 || time[this.order[k]] !== time[this.order[k - 1]]) starts.push(k);
    starts.push(n);
    this.groupStart = Int32Array.from(starts);
  }

  deviance(eta: Float64Array, risk: Float64Array): number {
    let shift = -Infinity;
    for (let i = 0; i < eta.length; i++) shift = Math.max(shift, eta[i]);
    if (!Number.isFinite(shift)) shift = 0;
    for (let i = 0; i < eta.length; i++) risk[i] = Math.exp(eta[i] - shift);
    const { order, groupStart, event } = this;
    let loglik = 0;
    let S0 = 0;
    for (let g = 0; g + 1 < groupStart.length; g++) {
      let D0 = 0;
      let deaths = 0;
      for (let k = groupStart[g]; k < groupStart[g + 1]; k++) {
        const i = order[k];
        S0 += risk[i];
        if (event[i]) {
          D0 += risk[i];
          deaths++;
          loglik += eta[i];
        }
      }
      // the risk set sums are of exp(eta - shift)
      for (let l = 0; l < deaths; l++) loglik -= Math.log(S0 - (l / deaths) * D0) + shift;
    }
    return -2 * loglik;
  }

  derivatives(columns: readonly Float64Array[], risk: Float64Array, score: Float64Array, information: Float64Array | null): void {
    const { order, groupStart, event } = this;
    const second = information !== null;
    const p = columns.length;
    const S1 = new Float64Array(p);
    const S2 = new Float64Array(p * p);
    const D1 = new Float64Array(p);
    const D2 = new Float64Array(p * p);
    const x = new Float64Array(p);
    score.fill(0);
    information?.fill(0);
    let S0 = 0;
    for (let g = 0; g + 1 < groupStart.length; g++) {
      let D0 = 0;
      let deaths = 0;
      D1.fill(0);
      D2.fill(0);
      for (let k = groupStart[g]; k < groupStart[g + 1]; k++) {
        const i = order[k];
        const r = risk[i];
        for (let a = 0; a < p; a++) x[a] = columns[a][i];
        S0 += r;
        for (let a = 0; a < p; a++) {
          const ra = r * x[a];
          S1[a] += ra;
          if (second) for (let b = 0; b <= a; b++) S2[a * p + b] += ra * x[b];
        }
        if (event[i]) {
          deaths++;
          D0 += r;
          for (let a = 0; a < p; a++) {
            const ra = r * x[a];
            score[a] += x[a];
            D1[a] += ra;
            if (second) for (let b = 0; b <= a; b++) D2[a * p + b] += ra * x[b];
          }
        }
      }
      for (let l = 0; l < deaths; l++) {
        const f = l / deaths;
        const s0 = S0 - f * D0;
        for (let a = 0; a < p; a++) {
          const ma = (S1[a] - f * D1[a]) / s0;
          score[a] -= ma;
          if (information)
            for (let b = 0; b <= a; b++)
              information[a * p + b] += (S2[a * p + b] - f * D2[a * p + b]) / s0 - ma * ((S1[b] - f * D1[b]) / s0);
        }
      }
    }
  }
}

// ---------------------------------------------------------------- classification

/** Likelihood ratio of nested logistic regressions (2 classes) or multinomial logistic regressions (more), no penalty. */
class LogisticTest extends ResidualTest<Fit> {
  readonly description: string;
  readonly cost: number;
  /** null when fewer than two classes occur (nothing to test) */
  private readonly likelihood: Likelihood | null;
  /** samples per class, over the classes that occur */
  private readonly counts: number[];
  private scratch?: Scratch;

  constructor(input: IndependenceTestInput) {
    super(input);
    const y = input.target.y;
    let maxClass = 0;
    for (let i = 0; i < y.length; i++) maxClass = Math.max(maxClass, y[i]);
    const classCount = Math.max(input.target.classCount ?? 0, maxClass + 1);
    this.description =
      classCount > 2 ? 'likelihood-ratio test of multinomial logistic regressions' : 'likelihood-ratio test of logistic regressions';
    // a class missing from these rows (e.g. a rare class in a training fold) has no parameters: its intercept would run to -infinity
    const all = new Array<number>(classCount).fill(0);
    for (let i = 0; i < y.length; i++) all[y[i]]++;
    const present = all.map((c, k) => (c > 0 ? k : -1)).filter((k) => k >= 0);
    const index = new Map(present.map((k, m) => [k, m]));
    this.counts = present.map((k) => all[k]);
    const coded = Int32Array.from(y, (v) => index.get(v) as number);
    if (present.length < 2) this.likelihood = null;
    else if (present.length === 2) this.likelihood = new Binomial(Uint8Array.from(coded));
    else this.likelihood = new Multinomial(coded, present.length);
    // the information's blocks (K - 1) K / 2 dominate a test's work, each a pass over the samples
    const blocks = (this.width * (this.width + 1)) / 2;
    this.cost = (blocks * this.n) / REFERENCE_TEST_SAMPLES;
  }

  private get width(): number {
    return Math.max(1, this.counts.length - 1);
  }

  protected nominalDf(x: number): number {
    return this.width * this.featureColumns[x].length;
  }

  protected fitNull(basis: Float64Array[]): Fit {
    const lik = this.likelihood;
    if (!lik) return EMPTY_FIT;
    // intercept only, in closed form: each class's log odds against class 0 (basis[0] is the constant 1 / sqrt(n))
    const w = lik.width;
    const beta = new Float64Array(w);
    const eta = new Float64Array(this.n * w);
    for (let k = 0; k < w; k++) {
      const logOdds = Math.log(this.counts[k + 1] / this.counts[0]);
      beta[k] = logOdds * Math.sqrt(this.n);
      for (let i = 0; i < this.n; i++) eta[i * w + k] = logOdds;
    }
    const intercept = evaluate(lik, beta, eta);
    if (basis.length === 1) return intercept;
    return newton(lik, basis, { ...intercept, beta: widen(beta, w, 1, basis.length - 1) }, true);
  }

  protected compare(x: number, _z: readonly number[], { basis, fit }: Conditioning<Fit>, added: Float64Array[]): IndependenceTestResult {
    const lik = this.likelihood;
    const df = this.width * added.length;
    if (!lik) return noEvidence(df);
    this.scratch ??= scratchFor(lik, this.n);
    const full = newton(
      lik,
      [...basis, ...added],
      { ...fit, beta: widen(fit.beta, lik.width, basis.length, added.length) },
      false,
      this.scratch,
    );
    const statistic = Math.max(0, fit.deviance - full.deviance);
    return { statistic, df, logP: logChiSquareSurvival(statistic, df) };
  }
}

// ---------------------------------------------------------------- survival

/** Likelihood ratio of nested Cox models, Efron's ties; with Z empty the null model is beta = 0. */
class CoxTest extends ResidualTest<Fit> {
  readonly description = 'likelihood-ratio test of Cox regressions (Efron ties)';
  readonly cost: number;
  /** null when there is no event (nothing to test) */
  private readonly likelihood: CoxPartial | null;
  private scratch?: Scratch;

  constructor(input: IndependenceTestInput) {
    super(input);
    const event = Uint8Array.from(input.target.event ?? [], (e) => (e === 1 ? 1 : 0));
    this.likelihood = event.some((e) => e === 1) && event.length === this.n ? new CoxPartial(input.target.y, event) : null;
    this.cost = this.n / REFERENCE_TEST_SAMPLES;
  }

  protected nominalDf(x: number): number {
    return this.featureColumns[x].length;
  }

  protected fitNull(basis: Float64Array[]): Fit {
    const lik = this.likelihood;
    if (!lik) return EMPTY_FIT;
    // a Cox model has no intercept: the constant basis[0] is left out (the other basis vectors are centered)
    const columns = basis.slice(1);
    const eta = new Float64Array(this.n);
    return newton(lik, columns, evaluate(lik, new Float64Array(columns.length), eta), true);
  }

  protected compare(x: number, _z: readonly number[], { basis, fit }: Conditioning<Fit>, added: Float64Array[]): IndependenceTestResult {
    const lik = this.likelihood;
    const df = added.length;
    if (!lik) return noEvidence(df);
    this.scratch ??= scratchFor(lik, this.n);
    const full = newton(
      lik,
      [...basis.slice(1), ...added],
      { ...fit, beta: widen(fit.beta, 1, basis.length - 1, added.length) },
      false,
      this.scratch,
    );
    const statistic = Math.max(0, fit.deviance - full.deviance);
    return { statistic, df, logP: logChiSquareSurvival(statistic, df) };
  }
}
