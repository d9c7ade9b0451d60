import { dotAt } from '../linalg';
import type { Design } from '../models/common';
import type { LassoFamilyModel, PointSolver } from './family';
import { GradientBounds } from './gradient-bounds';
import type { LassoOptions, LassoPath } from './types';

/**
 * The coordinate-descent driver of every LASSO family, with glmnet's definitions (Friedman, Hastie, Tibshirani,
 * J. Stat. Softw. 33(1), 2010; Simon et al. 2011 for Cox):
 * - columns centred and standardised with the 1/N standard deviation, stored column-major (coordinate descent
 *   reads whole columns); coefficients returned on the original scale;
 * - lambdas log-spaced from lambda_max down to lambda_max x lambdaMinRatio;
 * - the sequential strong rule (Tibshirani et al., JRSS-B 74, 2012): only strong-set columns are iterated, and
 *   the KKT conditions are checked on the rest after convergence (violators join and the point is solved again);
 * - glmnet's weighted least squares: full passes over the strong set, each followed by passes over the active set;
 * - glmnet's early stopping, by the family's rule.
 * The family (family.ts) supplies the IRLS weights, the deviance and how a point is solved.
 */

// bound on the passes of the whole path (glmnet's maxit is 1e5 passes)
const MAX_PASSES = 100000;

/** The LASSO path of a family on X (row-major n x p): glmnet's lambda sequence, solved point by point. */
export function coordinateDescentPath(X: Design, model: LassoFamilyModel, options: LassoOptions = {}): LassoPath {
  const n = X.rows;
  const p = X.cols;
  const nlambda = options.nlambda ?? 100;
  const ratio = options.lambdaMinRatio ?? (n > p ? 1e-4 : 0.01);
  const earlyStop = options.earlyStop ?? true;
  const dfmax = options.dfmax ?? Infinity;
  const cd = new CoordinateDescent(standardizeDesign(X, options.standardize ?? true), model);
  const nullDeviance = cd.deviance();
  const lambdaMax = cd.lambdaMax();
  cd.tol = model.tolerance(options.thresh ?? 1e-7, nullDeviance, n);
  const path: LassoPath = {
    family: model.family,
    classCount: model.classCount,
    p,
    lambdas: [],
    intercepts: [],
    coefficients: [],
    deviance: [],
    df: [],
    nullDeviance,
    scales: cd.design.sd,
  };
  const devRatio: number[] = [];
  const alf = nlambda > 1 ? Math.pow(ratio, 1 / (nlambda - 1)) : 1;
  let prevLam = lambdaMax;
  for (let m = 0; m < nlambda && lambdaMax > 0; m++) {
    const lam = lambdaMax * Math.pow(alf, m);
    let saturated = false;
    if (m > 0) {
      cd.strongRule(lam, prevLam);
      cd.nextCut = 2 * lambdaMax * Math.pow(alf, m + 1) - lam;
      saturated = model.solvePoint(cd, lam);
      // as glmnet, when the passes run out the unconverged point is dropped and the path ends there
      if (cd.passes > MAX_PASSES) break;
    }
    prevLam = lam;
    const { intercepts, coefficients, df } = cd.originalScale();
    const dev = cd.deviance();
    path.lambdas.push(lam * model.outputScale);
    path.intercepts.push(intercepts);
    path.coefficients.push(coefficients);
    path.deviance.push(dev);
    path.df.push(df);
    devRatio.push(nullDeviance > 0 ? 1 - dev / nullDeviance : 0);
    if (saturated || cd.columnsIn(coefficients, options.columnFeature) > dfmax) break;
    // glmnet's early stopping (checked from the 5th lambda on)
    if (earlyStop && m + 1 >= 5 && model.stopsEarly(devRatio, m)) break;
  }
  return path;
}

/** The design as coordinate descent reads it. */
export interface StandardDesign {
  n: number;
  p: number;
  /** column-major n x p, centred, and scaled by 1/sd when standardising */
  Z: Float64Array;
  mu: Float64Array;
  /** 1/N standard deviation per column, 0 for a constant one */
  sd: Float64Array;
  /** what column j was divided by (sd, or 1 without standardisation) */
  scale: Float64Array;
  /** 0 for a column constant up to rounding (glmnet drops constant columns too) */
  usable: Uint8Array;
}

/** The column-major, centred and (optionally) scaled copy of X (row-major n x p). */
export function standardizeDesign(X: Design, standardize: boolean): StandardDesign {
  const n = X.rows;
  const p = X.cols;
  const mu = new Float64Array(p);
  const sd = new Float64Array(p);
  const Z = new Float64Array(n * p);
  const src = X.data;
  for (let i = 0; i < n; i++) for (let j = 0; j < p; j++) mu[j] += src[i * p + j];
  for (let j = 0; j < p; j++) mu[j] /= n;
  // transposed in blocks of B x B, which stay in the cache (a plain loop writes each value to another cache line)
  const B = 64;
  for (let i0 = 0; i0 < n; i0 += B)
    for (let j0 = 0; j0 < p; j0 += B)
      for (let i = i0; i < Math.min(n, i0 + B); i++) for (let j = j0; j < Math.min(p, j0 + B); j++) Z[j * n + i] = src[i * p + j] - mu[j];
  for (let j = 0; j < p; j++) {
    let ss = 0;
    for (let i = 0; i < n; i++) ss += Z[j * n + i] * Z[j * n + i];
    sd[j] = ss;
  }
  const usable = new Uint8Array(p);
  const scale = new Float64Array(p);
  for (let j = 0; j < p; j++) {
    sd[j] = Math.sqrt(sd[j] / n);
    usable[j] = sd[j] > 1e-10 * Math.max(1, Math.abs(mu[j])) ? 1 : 0;
    if (!usable[j]) sd[j] = 0;
    scale[j] = standardize ? sd[j] : 1;
    if (usable[j] && standardize) {
      const col = j * n;
      const s = 1 / sd[j];
      for (let i = 0; i < n; i++) Z[col + i] *= s;
    }
  }
  return { n, p, Z, mu, sd, scale, usable };
}

/** The state of one path's coordinate descent: coefficients, linear predictor, strong and active sets. */
export class CoordinateDescent implements PointSolver {
  readonly n: number;
  readonly p: number;
  readonly K: number;
  readonly hasIntercept: boolean;
  /** standardized-scale coefficients, K x p row-major, and the K intercepts */
  readonly B: Float64Array;
  readonly a0: Float64Array;
  /** linear predictor, K x n row-major (rows may be stale: see syncEta) */
  readonly eta: Float64Array;
  /** the working quadratic of the current block: gradient residual rw, weights v and their sum xmz */
  readonly rw: Float64Array;
  readonly v: Float64Array;
  xmz = 0;
  /** |gradient| per column (max over classes), kept for the strong rule */
  readonly grad: Float64Array;
  /** strong set: never shrinks, as glmnet's ixx; setList is kept in column order, as glmnet's full sweeps go */
  readonly inSet: Uint8Array;
  setList: number[] = [];
  /** every column that was ever non-zero, in order of entry (glmnet's partial sweeps) */
  readonly isActive: Uint8Array;
  readonly activeList: number[] = [];
  /** weighted column variances of each block, and the coefficients at the start of its WLS step */
  readonly xv: Float64Array;
  readonly bs: Float64Array;
  readonly bs0: Float64Array;
  passes = 0;
  tol = 0;
  /** the strong rule's cut at the next lambda (2 next - current), set by the path before each point */
  nextCut = 0;
  private readonly bounds: GradientBounds;
  private readonly staleRow: Uint8Array;
  private common?: Float64Array;
  private etaStale = false;

  constructor(
    readonly design: StandardDesign,
    readonly model: LassoFamilyModel,
  ) {
    const { n, p } = design;
    const K = model.classCount;
    this.n = n;
    this.p = p;
    this.K = K;
    this.hasIntercept = model.hasIntercept;
    this.B = new Float64Array(K * p);
    this.a0 = new Float64Array(K);
    this.eta = new Float64Array(K * n);
    this.rw = new Float64Array(n);
    this.v = new Float64Array(n);
    this.grad = new Float64Array(p);
    this.inSet = new Uint8Array(p);
    this.isActive = new Uint8Array(p);
    this.xv = new Float64Array(K * p);
    this.bs = new Float64Array(K * p);
    this.bs0 = new Float64Array(K);
    this.staleRow = new Uint8Array(K);
    this.bounds = new GradientBounds(design.Z, n, p, K);
    // the null model: intercepts at the class frequencies (binomial, multinomial), else 0
    if (this.hasIntercept) {
      model.nullIntercepts(this.a0);
      for (let k = 0; k < K; k++) this.eta.fill(this.a0[k], k * n, (k + 1) * n);
    }
  }

  /**
   * Coordinate descent keeps only the residual up to date; the linear predictor is rebuilt from the coefficients
   * when it is read (cheaper than updating n values of it at every coordinate change), and only the rows of the
   * classes whose coefficients moved (a multinomial block's step moves one: rebuilding all K after each was most
   * of a 10-class path's time).
   */
  markStale(k: number): void {
    this.staleRow[k] = 1;
    this.etaStale = true;
  }

  /**
   * Subtracts the same function of the sample from every class's linear predictor: `s` plus `shifts[t]` times
   * column `columns[t]` (the multinomial's identifiability step, which moves every class's coefficients alike and
   * so leaves the fitted probabilities as they are). The caller has moved the coefficients; rows that are stale
   * are rebuilt from them anyway, the others are shifted in place rather than rebuilt.
   */
  shiftClasses(s: number, columns: readonly number[], shifts: readonly number[]): void {
    const { n, K, eta, staleRow } = this;
    const Z = this.design.Z;
    const common = (this.common ??= new Float64Array(n));
    common.fill(s);
    for (let t = 0; t < columns.length; t++) {
      const col = columns[t] * n;
      const sh = shifts[t];
      for (let i = 0; i < n; i++) common[i] += sh * Z[col + i];
    }
    for (let k = 0; k < K; k++) {
      if (staleRow[k]) continue;
      const off = k * n;
      for (let i = 0; i < n; i++) eta[off + i] -= common[i];
    }
  }

  syncEta(): void {
    if (!this.etaStale) return;
    this.etaStale = false;
    const { n, p, K, eta, a0, B, staleRow, activeList } = this;
    const Z = this.design.Z;
    for (let k = 0; k < K; k++) {
      if (!staleRow[k]) continue;
      staleRow[k] = 0;
      const off = k * n;
      eta.fill(a0[k], off, off + n);
      for (const j of activeList) {
        const b = B[k * p + j];
        if (b === 0) continue;
        const col = j * n;
        for (let i = 0; i < n; i++) eta[off + i] += b * Z[col + i];
      }
    }
  }

  weights(k: number): number {
    this.syncEta();
    this.xmz = this.model.weights(k, this.eta, this.rw, this.v);
    return this.xmz;
  }

  deviance(): number {
    this.syncEta();
    return this.model.deviance(this.eta);
  }

  /** The smallest lambda at which every coefficient is 0: the largest |gradient| at the null model. */
  lambdaMax(): number {
    this.gradients(true);
    let lambdaMax = 0;
    for (let j = 0; j < this.p; j++) if (this.grad[j] > lambdaMax) lambdaMax = this.grad[j];
    return lambdaMax;
  }

  /**
   * |gradient| of every usable column outside the strong set (all columns when `all`), max over classes. Outside
   * `all`, a column's gradient may be an upper bound at most `nextCut` (gradient-bounds.ts): the KKT check and the
   * next strong rule decide the same with it.
   */
  gradients(all: boolean): void {
    const { p, K, grad, inSet, bounds } = this;
    const usable = this.design.usable;
    for (let j = 0; j < p; j++) if (all || !inSet[j]) grad[j] = 0;
    for (let k = 0; k < K; k++) {
      this.weights(k);
      const r = this.rw;
      const distance = bounds.begin(k, r, !all);
      for (let j = 0; j < p; j++) {
        if (!usable[j] || (!all && inSet[j])) continue;
        const g = bounds.gradient(k, j, r, distance, this.nextCut);
        if (g > grad[j]) grad[j] = g;
      }
    }
    bounds.end();
  }

  private addToSet(cols: number[]): void {
    for (const j of cols) this.inSet[j] = 1;
    this.setList = this.setList.concat(cols).sort((a, b) => a - b);
  }

  /** Sequential strong rule: columns whose gradient at the previous solution exceeds 2 lam - prevLam join. */
  strongRule(lam: number, prevLam: number): void {
    const cut = 2 * lam - prevLam;
    const strong: number[] = [];
    for (let j = 0; j < this.p; j++) if (this.design.usable[j] && !this.inSet[j] && this.grad[j] > cut) strong.push(j);
    if (strong.length > 0) this.addToSet(strong);
  }

  kktAdd(lam: number): number {
    this.gradients(false);
    const violators: number[] = [];
    for (let j = 0; j < this.p; j++) if (this.design.usable[j] && !this.inSet[j] && this.grad[j] > lam) violators.push(j);
    if (violators.length > 0) this.addToSet(violators);
    return violators.length;
  }

  prepare(k: number): void {
    const { n, p, B, bs, xv, v } = this;
    const Z = this.design.Z;
    this.bs0[k] = this.a0[k];
    for (const j of this.activeList) bs[k * p + j] = B[k * p + j];
    for (const j of this.setList) {
      const col = j * n;
      let s = 0;
      for (let i = 0; i < n; i++) s += v[i] * Z[col + i] * Z[col + i];
      xv[k * p + j] = s;
    }
  }

  sweep(k: number, full: boolean, lam: number): number {
    // locals rather than fields: this is the innermost loop of the whole fit
    const cols = full ? this.setList : this.activeList;
    const z = this.design.Z;
    const r = this.rw;
    const w = this.v;
    const rows = this.n;
    const B = this.B;
    const xv = this.xv;
    const isActive = this.isActive;
    const off = k * this.p;
    let dlx = 0;
    this.markStale(k);
    for (let t = 0; t < cols.length; t++) {
      const j = cols[t];
      const x = xv[off + j];
      const b = B[off + j];
      const col = j * rows;
      const u = dotAt(z, col, r, 0, rows) + x * b;
      const nb = x > 0 ? softThreshold(u, lam) / x : 0;
      if (nb === b) continue;
      if (full && !isActive[j]) {
        isActive[j] = 1;
        this.activeList.push(j);
      }
      const d = nb - b;
      B[off + j] = nb;
      let i = 0;
      for (; i + 3 < rows; i += 4) {
        r[i] -= d * w[i] * z[col + i];
        r[i + 1] -= d * w[i + 1] * z[col + i + 1];
        r[i + 2] -= d * w[i + 2] * z[col + i + 2];
        r[i + 3] -= d * w[i + 3] * z[col + i + 3];
      }
      for (; i < rows; i++) r[i] -= d * w[i] * z[col + i];
      dlx = Math.max(dlx, x * d * d);
    }
    if (this.hasIntercept && this.xmz > 0) dlx = this.interceptStep(k, dlx);
    return dlx;
  }

  /** The intercept's coordinate step of block k (unpenalised); returns the updated max xv * change^2. */
  private interceptStep(k: number, dlx: number): number {
    const r = this.rw;
    const w = this.v;
    const rows = this.n;
    let s = 0;
    for (let i = 0; i < rows; i++) s += r[i];
    const d = s / this.xmz;
    if (d !== 0) {
      this.a0[k] += d;
      for (let i = 0; i < rows; i++) r[i] -= d * w[i];
      dlx = Math.max(dlx, this.xmz * d * d);
    }
    return dlx;
  }

  pass(): boolean {
    return ++this.passes <= MAX_PASSES;
  }

  activeSweeps(k: number, lam: number): void {
    while (this.pass() && this.sweep(k, false, lam) >= this.tol);
  }

  wls(k: number, lam: number): void {
    for (;;) {
      if (!this.pass() || this.sweep(k, true, lam) < this.tol) break;
      this.activeSweeps(k, lam);
    }
  }

  blockConverged(k: number): boolean {
    const { p, B, bs, xv, tol } = this;
    const d0 = this.a0[k] - this.bs0[k];
    if (this.hasIntercept && this.xmz * d0 * d0 > tol) return false;
    for (const j of this.activeList) {
      const d = B[k * p + j] - bs[k * p + j];
      if (xv[k * p + j] * d * d > tol) return false;
    }
    return true;
  }

  /**
   * The current intercepts and coefficients (K x p) on the original scale, and the coefficients' count: a
   * coefficient is divided by its column's scale, and the column means move into the intercept.
   */
  originalScale(): { intercepts: Float64Array; coefficients: Float64Array; df: number } {
    const { p, K, B } = this;
    const { mu, scale } = this.design;
    const outputScale = this.model.outputScale;
    const coefficients = new Float64Array(K * p);
    const shift = new Float64Array(K);
    let df = 0;
    for (let k = 0; k < K; k++) {
      let s = 0;
      for (const j of this.setList) {
        const b = B[k * p + j];
        if (b === 0) continue;
        df++;
        const c = (b * outputScale) / (scale[j] || 1);
        coefficients[k * p + j] = c;
        s += c * mu[j];
      }
      shift[k] = s;
    }
    return { intercepts: this.model.originalIntercepts(this.a0, shift), coefficients, df };
  }

  /**
   * How many columns have a non-zero coefficient in any class (glmnet's dfmax counts these), or how many features
   * when `columnFeature` maps the columns to them.
   */
  columnsIn(coefficients: Float64Array, columnFeature?: Int32Array): number {
    const { p, K } = this;
    const seen = new Set<number>();
    for (let j = 0; j < p; j++) {
      for (let k = 0; k < K; k++) {
        if (coefficients[k * p + j] !== 0) {
          seen.add(columnFeature ? columnFeature[j] : j);
          break;
        }
      }
    }
    return seen.size;
  }
}

/** The lasso's coordinate update: S(u, l) = sign(u) max(|u| - l, 0). */
function softThreshold(u: number, l: number): number {
  return u > l ? u - l : u < -l ? u + l : 0;
}
