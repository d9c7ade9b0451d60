import type { LassoFamily } from './types';

/**
 * The one interface between the coordinate-descent driver (coordinate-descent.ts) and a family (gaussian.ts,
 * binomial.ts, multinomial.ts, cox.ts): the driver owns the design, the coefficients, the strong set and the
 * sweeps; a family owns its outcome, its IRLS weights and deviance, and how one lambda point is solved with the
 * driver's steps (glmnet's elnet, lognet, multinomial lognet and coxnet point solvers).
 */

// glmnet's internal parameters (glmnet.control): smallest fitted probability, and what follows from it
export const PMIN = 1e-9;
export const FMAX = Math.log(1 / PMIN - 1);
export const VMIN = (1 + PMIN) * PMIN * (1 - PMIN);
export const PFM = (1 + PMIN) * PMIN;
export const PFX = (1 - PMIN) * (1 - PMIN);
/** bound on the IRLS steps of one path point */
export const MAX_IRLS = 1000;

/** The driver's steps a family's point solver uses (block k is class k for multinomial, else 0). */
export interface PointSolver {
  /** convergence threshold of the sweeps (glmnet's thr, scaled by the family) */
  readonly tol: number;
  /** intercepts (K) and standardized-scale coefficients (K x p row-major) */
  readonly a0: Float64Array;
  readonly B: Float64Array;
  /** every column that was ever non-zero, in order of entry */
  readonly activeList: readonly number[];
  /** IRLS weights of block k at the current linear predictor; returns their sum */
  weights(k: number): number;
  /** start of a weighted least-squares step of block k: old coefficients and weighted column variances */
  prepare(k: number): void;
  /** counts one pass; false when the path's pass budget is spent */
  pass(): boolean;
  /** one pass of block k over the strong set (`full`) or the active set; returns max xv * change^2 */
  sweep(k: number, full: boolean, lam: number): number;
  /** passes over the active set until they converge */
  activeSweeps(k: number, lam: number): void;
  /** glmnet's weighted least squares of block k: strong-set passes, each followed by active-set passes */
  wls(k: number, lam: number): void;
  /** whether block k moved less than the threshold since `prepare` */
  blockConverged(k: number): boolean;
  /** KKT check outside the strong set at lambda: violators join it; returns how many did */
  kktAdd(lam: number): number;
  /** the linear predictor's row of class k must be rebuilt from the coefficients */
  markStale(k: number): void;
  /** every class's linear predictor minus s + sum_t shifts[t] x column columns[t] (coefficients already moved) */
  shiftClasses(s: number, columns: readonly number[], shifts: readonly number[]): void;
}

/** One family of the path: its outcome, likelihood and point solver. */
export interface LassoFamilyModel {
  readonly family: LassoFamily;
  /** K: classes for multinomial, else 1 */
  readonly classCount: number;
  /** whether an intercept is fitted on the standardized scale (binomial, multinomial) */
  readonly hasIntercept: boolean;
  /** lambdas and coefficients are multiplied by it on output (gaussian: the outcome's 1/N sd; else 1) */
  readonly outputScale: number;
  /** the null model's intercepts */
  nullIntercepts(a0: Float64Array): void;
  /** IRLS weights v and gradient residual rw of block k at eta (K x n row-major), divided by N; returns sum(v) */
  weights(k: number, eta: Float64Array, rw: Float64Array, v: Float64Array): number;
  /** deviance at eta on the reported scale */
  deviance(eta: Float64Array): number;
  /** the sweeps' convergence threshold */
  tolerance(thresh: number, nullDeviance: number, n: number): number;
  /** solves the point lambda from the previous solution; true when the fit saturated (the path ends) */
  solvePoint(cd: PointSolver, lam: number): boolean;
  /** intercepts on the original scale, given a0 and per class the sum of original-scale coefficient x column mean */
  originalIntercepts(a0: Float64Array, shift: Float64Array): Float64Array;
  /** glmnet's early stop after point m (from the 5th on), given the deviance ratios so far */
  stopsEarly(devRatio: number[], m: number): boolean;
}

/**
 * glmnet's IRLS point solver for one block (lognet with two classes, coxnet): weighted least squares at the
 * current quadratic approximation until the coefficients stop moving and no column outside the strong set
 * violates the KKT conditions. With `saturates` (binomial), the path ends when every fitted probability is
 * 0 or 1 (the weights' sum falls to glmnet's vmin). Returns whether it saturated.
 */
export function solveByIrls(cd: PointSolver, lam: number, saturates: boolean): boolean {
  for (let it = 0; it < MAX_IRLS; it++) {
    if (cd.weights(0) <= VMIN && saturates) return true;
    cd.prepare(0);
    cd.wls(0, lam);
    if (cd.weights(0) <= VMIN && saturates) return true;
    if (cd.blockConverged(0) && cd.kktAdd(lam) === 0) return false;
  }
  return false;
}
