import { MAX_IRLS, PFM, PFX, PMIN, VMIN, type LassoFamilyModel, type PointSolver } from './family';

/**
 * Multinomial logistic regression, glmnet's "ungrouped" multinomial lognet: -(1/N) log-likelihood with every
 * class's coefficient penalised, + lambda ||B||_1, and K unpenalised intercepts. Solved one class (block) at a
 * time, each a weighted least squares at its own quadratic approximation, then made identifiable.
 */
export class MultinomialFamily implements LassoFamilyModel {
  readonly family = 'multinomial';
  readonly hasIntercept = true;
  readonly outputScale = 1;
  private readonly n: number;
  /** 0/1 indicator per class, K x n row-major */
  private readonly Y: Float64Array;
  private readonly softmax: SoftmaxCache;

  /** `y`: class index 0..K-1 */
  constructor(
    y: Float64Array,
    readonly classCount: number,
  ) {
    const n = y.length;
    this.n = n;
    this.Y = new Float64Array(n * classCount);
    for (let i = 0; i < n; i++) this.Y[(y[i] | 0) * n + i] = 1;
    this.softmax = new SoftmaxCache(n, classCount);
  }

  /** The logs of the class frequencies (at least glmnet's pmin), centred. */
  nullIntercepts(a0: Float64Array): void {
    const { n, Y, classCount: K } = this;
    let mean = 0;
    for (let k = 0; k < K; k++) {
      let m = 0;
      for (let i = 0; i < n; i++) m += Y[k * n + i];
      a0[k] = Math.log(Math.max(PMIN, m / n));
      mean += a0[k];
    }
    for (let k = 0; k < K; k++) a0[k] -= mean / K;
  }

  /**
   * IRLS weights of class k at its fitted probability q, truncated as glmnet does: a q beyond [pmin, 1 - pmin]
   * is taken as 0 or 1 and gets no weight.
   */
  weights(k: number, eta: Float64Array, rw: Float64Array, v: Float64Array): number {
    const { n, Y } = this;
    const off = k * n;
    this.softmax.update(eta);
    const expEta = this.softmax.expEta;
    const sumExp = this.softmax.sumExp;
    let xmz = 0;
    for (let i = 0; i < n; i++) {
      let q = expEta[off + i] / sumExp[i];
      if (q < PFM) {
        q = 0;
        v[i] = 0;
      } else if (q > PFX) {
        q = 1;
        v[i] = 0;
      } else {
        v[i] = (q * (1 - q)) / n;
        xmz += v[i];
      }
      rw[i] = (Y[off + i] - q) / n;
    }
    return xmz;
  }

  /** -2 log-likelihood (the saturated model's is 0), with a log-sum-exp per sample. */
  deviance(eta: Float64Array): number {
    const { n, Y, classCount: K } = this;
    let ll = 0;
    for (let i = 0; i < n; i++) {
      let mx = -Infinity;
      for (let k = 0; k < K; k++) mx = Math.max(mx, eta[k * n + i]);
      let s = 0;
      for (let k = 0; k < K; k++) s += Math.exp(eta[k * n + i] - mx);
      const lse = mx + Math.log(s);
      for (let k = 0; k < K; k++) if (Y[k * n + i]) ll += eta[k * n + i] - lse;
    }
    return -2 * ll;
  }

  /** glmnet's thr times the null deviance per sample. */
  tolerance(thresh: number, nullDeviance: number, n: number): number {
    return (thresh * nullDeviance) / (2 * n);
  }

  /**
   * glmnet's order: each class in turn (skipped when its probabilities are all 0 or 1), then the identifiability
   * step, until every class converged with no KKT violator. The path ends when no class has weight left.
   */
  solvePoint(cd: PointSolver, lam: number): boolean {
    const K = this.classCount;
    for (let it = 0; it < MAX_IRLS; it++) {
      let notConverged = false;
      let anyClass = false;
      for (let k = 0; k < K; k++) {
        if (cd.weights(k) <= VMIN) continue;
        anyClass = true;
        cd.prepare(k);
        cd.wls(k, lam);
        if (!notConverged) notConverged = !cd.blockConverged(k);
      }
      this.identify(cd);
      if (!anyClass) return true;
      if (!notConverged && cd.kktAdd(lam) === 0) return false;
    }
    return false;
  }

  /**
   * Identifiability: intercepts centred, and each column's K coefficients shifted by their median (the shift
   * that minimises the L1 penalty; glmnet's elc).
   */
  private identify(cd: PointSolver): void {
    const K = this.classCount;
    const { a0, B } = cd;
    const p = B.length / K;
    let s = 0;
    for (let k = 0; k < K; k++) s += a0[k];
    s /= K;
    for (let k = 0; k < K; k++) a0[k] -= s;
    const vals = new Float64Array(K);
    const columns: number[] = [];
    const shifts: number[] = [];
    for (const j of cd.activeList) {
      for (let k = 0; k < K; k++) vals[k] = B[k * p + j];
      const sh = medianShift(vals);
      if (sh === 0) continue;
      for (let k = 0; k < K; k++) B[k * p + j] -= sh;
      columns.push(j);
      shifts.push(sh);
    }
    cd.shiftClasses(s, columns, shifts);
  }

  /** glmnet reports the intercepts centred on the original scale (its getcoef.multinomial). */
  originalIntercepts(a0: Float64Array, shift: Float64Array): Float64Array {
    const K = this.classCount;
    const icpt = new Float64Array(K);
    for (let k = 0; k < K; k++) icpt[k] = a0[k] - shift[k];
    let s = 0;
    for (let k = 0; k < K; k++) s += icpt[k];
    for (let k = 0; k < K; k++) icpt[k] -= s / K;
    return icpt;
  }

  /** glmnet: the deviance ratio grew by less than 1e-5 or passed 0.999. */
  stopsEarly(devRatio: number[], m: number): boolean {
    const now = devRatio[m];
    return now - devRatio[m - 1] < 1e-5 || now > 0.999;
  }
}

/** The shift of one column's K class coefficients that minimises their L1 norm: the median (mean of the two middle ones for even K). */
function medianShift(a: Float64Array): number {
  const K = a.length;
  if (K === 2) return (a[0] + a[1]) / 2;
  const s = Array.from(a).sort((x, y) => x - y);
  if (s[0] === s[K - 1]) return a[0];
  return K % 2 === 1 ? s[(K - 1) / 2] : (s[K / 2] + s[K / 2 - 1]) / 2;
}

/**
 * exp(eta_ci - shift_i) and their sum per sample, updated only where eta changed since (a block's step changes
 * one class's row), so a block's weights cost n exponentials instead of K n.
 */
class SoftmaxCache {
  readonly expEta: Float64Array;
  readonly sumExp: Float64Array;
  private readonly seenEta: Float64Array;
  private readonly shift: Float64Array;

  constructor(
    private readonly n: number,
    private readonly K: number,
  ) {
    this.expEta = new Float64Array(K * n);
    this.seenEta = new Float64Array(K * n).fill(NaN);
    this.sumExp = new Float64Array(n);
    this.shift = new Float64Array(n);
  }

  update(eta: Float64Array): void {
    const { n, K, expEta, seenEta, sumExp, shift } = this;
    for (let i = 0; i < n; i++) {
      let changed = 0;
      let far = false;
      for (let c = 0; c < K; c++) {
        const e = eta[c * n + i];
        if (e !== seenEta[c * n + i]) changed++;
        if (!(Math.abs(e - shift[i]) < 30)) far = true;
      }
      if (changed === 0) continue;
      if (far || changed > 1) {
        this.refresh(eta, i);
        continue;
      }
      for (let c = 0; c < K; c++) {
        const e = eta[c * n + i];
        if (e === seenEta[c * n + i]) continue;
        const x = Math.exp(e - shift[i]);
        const after = sumExp[i] + x - expEta[c * n + i];
        if (after < 0.25 * sumExp[i]) {
          // the sum lost most of itself: the difference would lose digits, so sum afresh
          this.refresh(eta, i);
          break;
        }
        seenEta[c * n + i] = e;
        sumExp[i] = after;
        expEta[c * n + i] = x;
      }
    }
  }

  /** Sample i afresh (first call, several rows moved, or a value far from the shift): the max as the shift. */
  private refresh(eta: Float64Array, i: number): void {
    const { n, K, expEta, seenEta, sumExp, shift } = this;
    let mx = -Infinity;
    for (let c = 0; c < K; c++) mx = Math.max(mx, eta[c * n + i]);
    shift[i] = mx;
    let total = 0;
    for (let c = 0; c < K; c++) {
      const e = eta[c * n + i];
      seenEta[c * n + i] = e;
      total += expEta[c * n + i] = Math.exp(e - mx);
    }
    sumExp[i] = total;
  }
}
