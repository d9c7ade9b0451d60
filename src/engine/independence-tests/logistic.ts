/**
 * Classification: the likelihood ratio of nested logistic regressions (2 classes) or multinomial logistic regressions
 * (more), with their likelihoods for Newton's method.
 */
import { type IndependenceTestResult, REFERENCE_TEST_SAMPLES } from '../independence';
import { dotAt } from '../linalg';
import { weightedPairSums } from '../models/simd-information';
import {
  EMPTY_FIT,
  evaluate,
  Fit,
  Likelihood,
  likelihoodRatio,
  nullFitFrom,
  scratchFor,
  Scratch,
  settled,
  weightedCross,
  widen,
} from './likelihood';
import { Conditioning, dot, IndependenceTestInput, noEvidence, NullStart, ResidualTest } from './residual-test';

/** Samples whose factors 1 + exp(-|eta|) (each at most 2) are multiplied before one logarithm: 2^512 < 1e155. */
const PRODUCT_BLOCK = 512;

class Binomial implements Likelihood {
  readonly width = 1;
  /**
   * Its information on a few columns costs a few passes over the samples, less than a deviance's exponentials: fresh
   * informations (Newton's quadratic convergence) save more deviances than they cost (SES on 200 x 20,000: about 10%
   * fewer deviances, 5% less time than with CHORD_RATIO).
   */
  readonly chordRatio = 1e-4;
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
    // -log P(y_i) = log(1 + e) + (|eta| when y_i is on the other side of 0), with e = exp(-|eta|), and
    // mu = 1 / (1 + e^-eta): one exponential per sample, and one logarithm per PRODUCT_BLOCK samples for the product
    // of the (1 + e) (each in [1, 2], so the product cannot overflow)
    let d = 0;
    let product = 1;
    const n = eta.length;
    for (let i = 0; i < n; i++) {
      const v = eta[i];
      const e = Math.exp(-Math.abs(v));
      const onePlus = 1 + e;
      product *= onePlus;
      if (this.y[i] ? v < 0 : v > 0) d += Math.abs(v);
      mu[i] = v > 0 ? 1 / onePlus : e / onePlus;
      if ((i & (PRODUCT_BLOCK - 1)) === PRODUCT_BLOCK - 1) {
        d += Math.log(product);
        product = 1;
      }
    }
    return 2 * (d + Math.log(product));
  }

  derivatives(columns: readonly Float64Array[], mu: Float64Array, score: Float64Array, information: Float64Array | null, known = 0): void {
    const P = columns.length;
    const n = mu.length;
    for (let i = 0; i < n; i++) {
      this.residual[i] = this.y[i] - mu[i];
      this.weight[i] = mu[i] * (1 - mu[i]);
    }
    for (let j = 0; j < P; j++) score[j] = dot(columns[j], this.residual, n);
    if (information) weightedCross(columns, this.weight, information, P, 0, 0, true, known);
  }
}

/** Multinomial logit with class 0 as the baseline: part k - 1 of the linear predictor is class k's log odds against class 0. */
class Multinomial implements Likelihood {
  readonly width: number;
  readonly stateLength: number;
  private readonly residual: Float64Array;
  /** x_ij x_im for each pair of columns m <= j, pair after pair (grown as needed; JavaScript's sums only) */
  private products = new Float64Array(0);
  /** the information's weights p_ik (delta_kl - p_il), block (k, l <= k) after block, and its sums (grown as needed) */
  private weights = new Float64Array(0);
  private sums = new Float64Array(0);

  /** state: the fitted probabilities of classes 1 .. K - 1, sample-major */
  constructor(
    private readonly y: Int32Array,
    classCount: number,
  ) {
    this.width = classCount - 1;
    this.stateLength = y.length * this.width;
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

  derivatives(
    columns: readonly Float64Array[],
    prob: Float64Array,
    score: Float64Array,
    information: Float64Array | null,
    known = 0,
  ): void {
    const w = this.width;
    const p = columns.length;
    const P = w * p;
    const n = this.y.length;
    for (let k = 0; k < w; k++) {
      for (let i = 0; i < n; i++) this.residual[i] = (this.y[i] === k + 1 ? 1 : 0) - prob[i * w + k];
      for (let j = 0; j < p; j++) score[k * p + j] = dot(columns[j], this.residual, n);
    }
    if (!information) return;
    // information block (k, l) for l <= k: sum_i p_ik (delta_kl - p_il) x_ij x_im, symmetric in (j, m) within the block;
    // the weights of every block, then the sums of every block and pair of columns (m <= j; j >= known, the others are
    // known) in WebAssembly SIMD, or here when they are too large for it (the same sums to the bit)
    const blocks = (w * (w + 1)) / 2;
    const pairs = (p * (p + 1)) / 2 - (known * (known + 1)) / 2;
    if (this.sums.length < blocks * pairs) this.sums = new Float64Array(blocks * pairs);
    const sums = this.sums;
    if (weightedPairSums(columns, known, { prob, width: w }, blocks, n, sums) < 0) this.pairSums(columns, known, prob, sums);
    for (let k = 0, b = 0; k < w; k++)
      for (let l = 0; l <= k; l++, b++)
        for (let j = known, q = b * pairs; j < p; j++)
          for (let m = 0; m <= j; m++, q++) {
            const s = sums[q];
            information[(k * p + j) * P + l * p + m] = s;
            if (k !== l) information[(k * p + m) * P + l * p + j] = s;
          }
  }

  /**
   * weightedPairSums in JavaScript: the weights of the blocks, the products x_ij x_im of each pair of columns once, each
   * block's sums over them.
   */
  private pairSums(columns: readonly Float64Array[], known: number, prob: Float64Array, sums: Float64Array): void {
    const p = columns.length;
    const n = this.y.length;
    const w = this.width;
    const blocks = (w * (w + 1)) / 2;
    if (this.weights.length < blocks * n) this.weights = new Float64Array(blocks * n);
    const weights = this.weights;
    for (let k = 0, b = 0; k < w; k++)
      for (let l = 0; l <= k; l++, b++) {
        const o = b * n;
        for (let i = 0; i < n; i++) weights[o + i] = prob[i * w + k] * ((k === l ? 1 : 0) - prob[i * w + l]);
      }
    const pairs = (p * (p + 1)) / 2 - (known * (known + 1)) / 2;
    if (this.products.length < pairs * n) this.products = new Float64Array(pairs * n);
    const products = this.products;
    for (let j = known, at = 0; j < p; j++)
      for (let m = 0; m <= j; m++, at += n) {
        const a = columns[j];
        const c = columns[m];
        for (let i = 0; i < n; i++) products[at + i] = a[i] * c[i];
      }
    for (let b = 0; b < blocks; b++) for (let q = 0; q < pairs; q++) sums[b * pairs + q] = dotAt(weights, b * n, products, q * n, n);
  }
}

/** A null fit with its information, which the first Newton step of every test against it reuses. */
function withInformation(lik: Likelihood, basis: Float64Array[], fit: Fit & { stopped?: boolean }): Fit {
  // a settled fit (its `enough`) has no test to start: each gives p = 1 without a fit (likelihoodRatio)
  if (fit.stopped) return fit;
  const P = lik.width * basis.length;
  const information = new Float64Array(P * P);
  lik.derivatives(basis, fit.state, new Float64Array(P), information);
  return { ...fit, information };
}

/** Likelihood ratio of nested logistic regressions (2 classes) or multinomial logistic regressions (more), no penalty. */
export class LogisticTest extends ResidualTest<Fit> {
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

  protected fitNull(basis: Float64Array[], from?: NullStart<Fit>): Fit {
    const lik = this.likelihood;
    if (!lik) return EMPTY_FIT;
    // every test against this fit has at least `width` degrees of freedom: its fit ends where none can find anything;
    // multinomial fits go on along their whole steps (NewtonOptions.expand)
    const options = { exact: true, expand: lik.width > 1, enough: (deviance: number) => settled(deviance, lik.width) };
    // intercept only, in closed form: each class's log odds against class 0 (basis[0] is the constant 1 / sqrt(n))
    const w = lik.width;
    const intercept = (): Fit => {
      const beta = new Float64Array(w);
      const eta = new Float64Array(this.n * w);
      for (let k = 0; k < w; k++) {
        const logOdds = Math.log(this.counts[k + 1] / this.counts[0]);
        beta[k] = logOdds * Math.sqrt(this.n);
        for (let i = 0; i < this.n; i++) eta[i * w + k] = logOdds;
      }
      return evaluate(lik, beta, eta);
    };
    if (basis.length === 1) return withInformation(lik, basis, intercept());
    const origin = (): Fit => {
      const fit = intercept();
      return { ...fit, beta: widen(fit.beta, w, 1, basis.length - 1) };
    };
    return withInformation(lik, basis, nullFitFrom(lik, basis, origin, from, options));
  }

  protected compare(
    x: number,
    _z: readonly number[],
    { basis, fit }: Conditioning<Fit>,
    added: Float64Array[],
    below: number,
  ): IndependenceTestResult {
    const lik = this.likelihood;
    const df = this.width * added.length;
    if (!lik) return noEvidence(df);
    this.scratch ??= scratchFor(lik, this.n);
    return likelihoodRatio(lik, [...basis, ...added], fit, df, below, this.scratch);
  }
}

// ---------------------------------------------------------------- survival
