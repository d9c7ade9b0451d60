import { FMAX, PMIN, solveByIrls, type LassoFamilyModel, type PointSolver } from './family';

/**
 * Logistic regression, -(1/N) log-likelihood + lambda ||b||_1 with an unpenalised intercept (glmnet's lognet
 * with two classes). The outcome is 1 for the positive class, 0 otherwise.
 */
export class BinomialFamily implements LassoFamilyModel {
  readonly family = 'binomial';
  readonly classCount = 1;
  readonly hasIntercept = true;
  readonly outputScale = 1;
  /** 0/1 indicator of the positive class */
  private readonly Y: Float64Array;

  /** `y`: class index, 1 for the positive class */
  constructor(y: Float64Array) {
    this.Y = Float64Array.from(y, (c) => (c === 1 ? 1 : 0));
  }

  /** The log-odds of the positive class's frequency (kept within glmnet's pmin). */
  nullIntercepts(a0: Float64Array): void {
    const Y = this.Y;
    const n = Y.length;
    let m = 0;
    for (let i = 0; i < n; i++) m += Y[i];
    m = Math.min(1 - PMIN, Math.max(PMIN, m / n));
    a0[0] = Math.log(m / (1 - m));
  }

  /** IRLS weights q (1 - q) / N at the fitted probability q, which glmnet takes as 0 or 1 beyond |eta| > fmax. */
  weights(_k: number, eta: Float64Array, rw: Float64Array, v: Float64Array): number {
    const Y = this.Y;
    const n = Y.length;
    let xmz = 0;
    for (let i = 0; i < n; i++) {
      const f = eta[i];
      const q = f < -FMAX ? 0 : f > FMAX ? 1 : 1 / (1 + Math.exp(-f));
      v[i] = (q * (1 - q)) / n;
      rw[i] = (Y[i] - q) / n;
      xmz += v[i];
    }
    return xmz;
  }

  /** -2 log-likelihood (the saturated model's is 0). */
  deviance(eta: Float64Array): number {
    const Y = this.Y;
    let ll = 0;
    for (let i = 0; i < Y.length; i++) {
      const e = eta[i];
      // log(1 + exp(e)) without overflow
      const soft = e > 0 ? e + Math.log1p(Math.exp(-e)) : Math.log1p(Math.exp(e));
      ll += Y[i] * e - soft;
    }
    return -2 * ll;
  }

  /** glmnet's thr times the null deviance per sample. */
  tolerance(thresh: number, nullDeviance: number, n: number): number {
    return (thresh * nullDeviance) / (2 * n);
  }

  /** IRLS; the path ends when every fitted probability is 0 or 1, as glmnet's. */
  solvePoint(cd: PointSolver, lam: number): boolean {
    return solveByIrls(cd, lam, true);
  }

  originalIntercepts(a0: Float64Array, shift: Float64Array): Float64Array {
    return Float64Array.of(a0[0] - shift[0]);
  }

  /** glmnet: the deviance ratio grew by less than 1e-5 or passed 0.999. */
  stopsEarly(devRatio: number[], m: number): boolean {
    const now = devRatio[m];
    return now - devRatio[m - 1] < 1e-5 || now > 0.999;
  }
}
