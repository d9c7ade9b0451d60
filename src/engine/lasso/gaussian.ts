import type { LassoFamilyModel, PointSolver } from './family';

/**
 * Least squares, (1/2N) RSS + lambda ||b||_1 (glmnet's elnet, "naive" updates). As glmnet, the outcome is
 * centred and scaled by its 1/N standard deviation, so no intercept is fitted, and lambdas and coefficients
 * are reported on the outcome's scale (times that sd); the deviance is the RSS in the outcome's units.
 */
export class GaussianFamily implements LassoFamilyModel {
  readonly family = 'gaussian';
  readonly classCount = 1;
  readonly hasIntercept = false;
  readonly outputScale: number;
  private readonly mean: number;
  /** the standardized outcome */
  private readonly yStd: Float64Array;
  /** whether a point was solved already (the next one starts with active-set passes, as glmnet's) */
  private warm = false;

  constructor(y: Float64Array) {
    const n = y.length;
    let mean = 0;
    for (let i = 0; i < n; i++) mean += y[i];
    mean /= n;
    let ss = 0;
    for (let i = 0; i < n; i++) ss += (y[i] - mean) ** 2;
    let ys = Math.sqrt(ss / n);
    if (!(ys > 0)) ys = 1;
    this.mean = mean;
    this.outputScale = ys;
    this.yStd = new Float64Array(n);
    for (let i = 0; i < n; i++) this.yStd[i] = (y[i] - mean) / ys;
  }

  nullIntercepts(): void {}

  /** The residual and the constant weight 1/N: least squares is its own quadratic approximation. */
  weights(_k: number, eta: Float64Array, rw: Float64Array, v: Float64Array): number {
    const yStd = this.yStd;
    const n = yStd.length;
    for (let i = 0; i < n; i++) {
      rw[i] = (yStd[i] - eta[i]) / n;
      v[i] = 1 / n;
    }
    return 1;
  }

  deviance(eta: Float64Array): number {
    const yStd = this.yStd;
    let s = 0;
    for (let i = 0; i < yStd.length; i++) s += (yStd[i] - eta[i]) ** 2;
    return s * this.outputScale * this.outputScale;
  }

  /** glmnet's thr as it is: the standardized outcome's null deviance per sample is 1. */
  tolerance(thresh: number): number {
    return thresh;
  }

  /**
   * glmnet's elnet point: (after the first point) active-set passes from the previous solution, then full
   * passes over the strong set until one converges with no KKT violator outside it. One weighted least
   * squares, no IRLS: the weights never change, only new strong-set columns need their variances.
   */
  solvePoint(cd: PointSolver, lam: number): boolean {
    cd.weights(0);
    cd.prepare(0);
    if (this.warm) cd.activeSweeps(0, lam);
    for (;;) {
      if (!cd.pass()) break;
      if (cd.sweep(0, true, lam) < cd.tol) {
        if (cd.kktAdd(lam) === 0) break;
        // violators joined the strong set: their variances, then solve again
        cd.weights(0);
        cd.prepare(0);
      }
      cd.activeSweeps(0, lam);
      this.warm = true;
    }
    return false;
  }

  originalIntercepts(_a0: Float64Array, shift: Float64Array): Float64Array {
    return Float64Array.of(this.mean - shift[0]);
  }

  /** glmnet: the deviance ratio stopped growing (relative change below 1e-5) or passed 0.999. */
  stopsEarly(devRatio: number[], m: number): boolean {
    const now = devRatio[m];
    return now === 0 || (now - devRatio[m - 1]) / now < 1e-5 || now > 0.999;
  }
}
