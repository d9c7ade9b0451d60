import type { Task } from './metrics';
import type { Design, Target } from './models/common';
import { EQUIVALENCE_ALPHA } from './equivalents';
import type { FeatureSelector, Selection, SelectionInput } from './selection-types';

/**
 * LASSO paths by coordinate descent, with glmnet's definitions (Friedman, Hastie, Tibshirani,
 * J. Stat. Softw. 33(1), 2010; Simon et al. 2011 for Cox) so that `references/lasso-glmnet.json`
 * (glmnet 4.1-6) can be matched:
 * - objective: (1/2N) RSS (gaussian) or -(1/N) log-likelihood (binomial, multinomial "ungrouped"
 *   with every coefficient penalised, Cox partial likelihood with Breslow ties) + lambda ||b||_1;
 * - columns standardised with the 1/N standard deviation, intercept not penalised, coefficients
 *   returned on the original scale; the gaussian outcome is scaled by its 1/N sd as glmnet does,
 *   and lambdas are reported on the outcome's scale;
 * - lambdas log-spaced from lambda_max down to lambda_max x lambdaMinRatio, and the path stops
 *   early by glmnet's rules (so its length matches glmnet's: 88 for gaussian diabetes, 50 for
 *   Cox lung).
 * Speed on wide data comes from the sequential strong rule (Tibshirani et al., JRSS-B 74, 2012):
 * only strong-set columns are iterated, and the KKT conditions are checked on the rest after
 * convergence (violators join and the point is solved again).
 */

export type LassoFamily = 'gaussian' | 'binomial' | 'multinomial' | 'cox';

export interface LassoPath {
  family: LassoFamily;
  /** number of classes for multinomial, else 1 */
  classCount: number;
  /** design columns */
  p: number;
  lambdas: number[];
  /** per lambda: one intercept (K for multinomial; 0 for Cox, which has none) */
  intercepts: Float64Array[];
  /** per lambda: coefficients on the original scale, p values (K x p row-major for multinomial) */
  coefficients: Float64Array[];
  /** per lambda: deviance (RSS for gaussian, -2 log-likelihood relative to the saturated model otherwise) */
  deviance: number[];
  /** per lambda: number of non-zero coefficients (all classes counted for multinomial) */
  df: number[];
  nullDeviance: number;
  /** per column: the 1/N standard deviation (0 for a constant column), to read coefficients on the standardized scale */
  scales: Float64Array;
}

export interface LassoOptions {
  nlambda?: number;
  /** default 1e-4 when N > p, else 0.01 */
  lambdaMinRatio?: number;
  standardize?: boolean;
  /** convergence threshold on max_j xv_j * (change of b_j)^2, relative to the null deviance per sample */
  thresh?: number;
  /** stop the path early by glmnet's rules (default true) */
  earlyStop?: boolean;
  /**
   * glmnet's dfmax: the path stops after the first lambda with more than this many non-zero columns
   * (any class). A selector capped at a signature size never needs the dense end of the path.
   */
  dfmax?: number;
}

// glmnet's internal parameters (glmnet.control): smallest fitted probability, and what follows from it
const PMIN = 1e-9;
const FMAX = Math.log(1 / PMIN - 1);
const VMIN = (1 + PMIN) * PMIN * (1 - PMIN);
const PFM = (1 + PMIN) * PMIN;
const PFX = (1 - PMIN) * (1 - PMIN);
// bounds on the work per path point (glmnet's maxit is 1e5 passes)
const MAX_PASSES = 100000;
const MAX_IRLS = 1000;

/** The shift of one column's K class coefficients that minimises their L1 norm: the median (mean of the two middle ones for even K). */
function medianShift(a: Float64Array): number {
  const K = a.length;
  if (K === 2) return (a[0] + a[1]) / 2;
  const s = Array.from(a).sort((x, y) => x - y);
  if (s[0] === s[K - 1]) return a[0];
  return K % 2 === 1 ? s[(K - 1) / 2] : (s[K / 2] + s[K / 2 - 1]) / 2;
}

function softThreshold(u: number, l: number): number {
  return u > l ? u - l : u < -l ? u + l : 0;
}

/** Survival rows sorted by time with, per distinct event time, the number of deaths (Breslow ties). */
interface CoxData {
  /** rows sorted by ascending time */
  order: Int32Array;
  /** per sorted position: index of the first sorted position with the same time */
  groupStart: Int32Array;
  event: Float64Array;
  /** sum over distinct event times of d_k log d_k (the saturated log-likelihood is its negative) */
  satTerm: number;
}

function coxData(time: Float64Array, event: Float64Array): CoxData {
  const n = time.length;
  const order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => time[a] - time[b] || a - b);
  const groupStart = new Int32Array(n);
  let satTerm = 0;
  let s = 0;
  while (s < n) {
    let e = s;
    let deaths = 0;
    while (e < n && time[order[e]] === time[order[s]]) {
      groupStart[e] = s;
      deaths += event[order[e]] ? 1 : 0;
      e++;
    }
    if (deaths > 0) satTerm += deaths * Math.log(deaths);
    s = e;
  }
  return { order, groupStart, event, satTerm };
}

/**
 * Cox partial log-likelihood (Breslow) at eta; when `rw` / `v` are given, also the gradient
 * residual (delta_i - e_i sum_k d_k / S_k) / N and the diagonal of the Hessian / N, as glmnet's coxnet uses.
 */
function coxEval(cd: CoxData, eta: Float64Array, rw?: Float64Array, v?: Float64Array): number {
  const { order, groupStart, event } = cd;
  const n = order.length;
  let mx = -Infinity;
  for (let i = 0; i < n; i++) if (eta[i] > mx) mx = eta[i];
  if (!Number.isFinite(mx)) mx = 0;
  // risk-set sums S at each sorted position (all rows with time >= its time), from the end
  const S = new Float64Array(n);
  let acc = 0;
  let k = n - 1;
  while (k >= 0) {
    const start = groupStart[k];
    for (let m = k; m >= start; m--) acc += Math.exp(eta[order[m]] - mx);
    for (let m = k; m >= start; m--) S[m] = acc;
    k = start - 1;
  }
  let ll = 0;
  let a1 = 0; // sum over event times <= t of d_k / S_k
  let a2 = 0; // sum of d_k / S_k^2
  let pos = 0;
  while (pos < n) {
    const start = pos;
    let end = pos;
    let deaths = 0;
    while (end < n && groupStart[end] === start) {
      if (event[order[end]]) {
        deaths++;
        ll += eta[order[end]];
      }
      end++;
    }
    if (deaths > 0) {
      ll -= deaths * (Math.log(S[start]) + mx);
      a1 += deaths / S[start];
      a2 += deaths / (S[start] * S[start]);
    }
    if (rw && v) {
      for (let m = start; m < end; m++) {
        const i = order[m];
        const e = Math.exp(eta[i] - mx);
        rw[i] = ((event[i] ? 1 : 0) - e * a1) / n;
        v[i] = (e * a1 - e * e * a2) / n;
      }
    }
    pos = end;
  }
  return ll;
}

/**
 * The LASSO path of `family` on the design X (row-major n x p). Target: class index 0..K-1 (binomial: 1 is
 * the positive class), value (gaussian), time plus 0/1 event (cox).
 */
export function lassoPath(X: Design, target: Target, family: LassoFamily, options: LassoOptions = {}): LassoPath {
  const n = X.rows;
  const p = X.cols;
  const K = family === 'multinomial' ? Math.max(2, target.classCount ?? 2) : 1;
  const nlambda = options.nlambda ?? 100;
  const ratio = options.lambdaMinRatio ?? (n > p ? 1e-4 : 0.01);
  const standardize = options.standardize ?? true;
  const thresh = options.thresh ?? 1e-7;
  const earlyStop = options.earlyStop ?? true;
  const dfmax = options.dfmax ?? Infinity;
  const hasIntercept = family === 'binomial' || family === 'multinomial';

  // column-major, centred and (optionally) scaled copy: coordinate descent reads whole columns
  const mu = new Float64Array(p);
  const sd = new Float64Array(p);
  const Z = new Float64Array(n * p);
  const src = X.data;
  for (let i = 0; i < n; i++) for (let j = 0; j < p; j++) mu[j] += src[i * p + j];
  for (let j = 0; j < p; j++) mu[j] /= n;
  for (let i = 0; i < n; i++) {
    const row = i * p;
    for (let j = 0; j < p; j++) {
      const d = src[row + j] - mu[j];
      Z[j * n + i] = d;
      sd[j] += d * d;
    }
  }
  const usable = new Uint8Array(p);
  const scale = new Float64Array(p);
  for (let j = 0; j < p; j++) {
    sd[j] = Math.sqrt(sd[j] / n);
    // a column constant up to rounding carries no information (glmnet drops constant columns too)
    usable[j] = sd[j] > 1e-10 * Math.max(1, Math.abs(mu[j])) ? 1 : 0;
    if (!usable[j]) sd[j] = 0;
    scale[j] = standardize ? sd[j] : 1;
    if (usable[j] && standardize) {
      const col = j * n;
      const s = 1 / sd[j];
      for (let i = 0; i < n; i++) Z[col + i] *= s;
    }
  }

  // outcome per family
  let ys = 1;
  let ymean = 0;
  const yStd = new Float64Array(family === 'gaussian' ? n : 0);
  const Y = new Float64Array(hasIntercept ? n * K : 0); // 0/1 indicator per class (binomial: positive class)
  let cox: CoxData | undefined;
  if (family === 'gaussian') {
    for (let i = 0; i < n; i++) ymean += target.y[i];
    ymean /= n;
    let ss = 0;
    for (let i = 0; i < n; i++) ss += (target.y[i] - ymean) ** 2;
    ys = Math.sqrt(ss / n);
    if (!(ys > 0)) ys = 1;
    for (let i = 0; i < n; i++) yStd[i] = (target.y[i] - ymean) / ys;
  } else if (family === 'binomial') {
    for (let i = 0; i < n; i++) Y[i] = target.y[i] === 1 ? 1 : 0;
  } else if (family === 'multinomial') {
    for (let i = 0; i < n; i++) Y[(target.y[i] | 0) * n + i] = 1;
  } else {
    cox = coxData(target.y, target.event ?? new Float64Array(n).fill(1));
  }

  const B = new Float64Array(K * p); // standardized-scale coefficients
  const a0 = new Float64Array(K);
  const eta = new Float64Array(K * n);
  const rw = new Float64Array(n);
  const v = new Float64Array(n);

  // null model: intercepts at the class frequencies
  if (hasIntercept) {
    if (family === 'binomial') {
      let m = 0;
      for (let i = 0; i < n; i++) m += Y[i];
      m = Math.min(1 - PMIN, Math.max(PMIN, m / n));
      a0[0] = Math.log(m / (1 - m));
    } else {
      let mean = 0;
      for (let k = 0; k < K; k++) {
        let m = 0;
        for (let i = 0; i < n; i++) m += Y[k * n + i];
        a0[k] = Math.log(Math.max(PMIN, m / n));
        mean += a0[k];
      }
      for (let k = 0; k < K; k++) a0[k] -= mean / K;
    }
    for (let k = 0; k < K; k++) eta.fill(a0[k], k * n, (k + 1) * n);
  }

  // Coordinate descent keeps only the residual up to date; the linear predictor is rebuilt from the
  // coefficients when it is read (cheaper than updating n values of it at every coordinate change), and only
  // the rows of the classes whose coefficients moved (a multinomial block's step moves one: rebuilding all K
  // after each was most of a 10-class path's time).
  const staleRow = new Uint8Array(K);
  let etaStale = false;
  function markStale(k: number): void {
    staleRow[k] = 1;
    etaStale = true;
  }
  function syncEta(): void {
    if (!etaStale) return;
    etaStale = false;
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

  // Multinomial: exp(eta_ci - shift_i) and their sum per sample, updated only where eta changed since (a block's
  // step changes one class's row), so a block's weights cost n exponentials instead of K n.
  const expEta = family === 'multinomial' ? new Float64Array(K * n) : new Float64Array(0);
  const seenEta = family === 'multinomial' ? new Float64Array(K * n).fill(NaN) : new Float64Array(0);
  const sumExp = family === 'multinomial' ? new Float64Array(n) : new Float64Array(0);
  const shift = family === 'multinomial' ? new Float64Array(n) : new Float64Array(0);
  function softmaxTerms(): void {
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
        // afresh (first call, several rows moved, or a value far from the shift): the max as the shift
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
        continue;
      }
      for (let c = 0; c < K; c++) {
        const e = eta[c * n + i];
        if (e === seenEta[c * n + i]) continue;
        const x = Math.exp(e - shift[i]);
        const after = sumExp[i] + x - expEta[c * n + i];
        if (after < 0.25 * sumExp[i]) {
          // the sum lost most of itself: the difference would lose digits, so sum afresh
          shift[i] = Infinity;
          i--;
          break;
        }
        seenEta[c * n + i] = e;
        sumExp[i] = after;
        expEta[c * n + i] = x;
      }
    }
  }

  // the working quadratic of one block (class) at the current eta: weights v, gradient residual rw, sum of v
  let xmz = 0;
  /**
   * IRLS weights and gradient residual of block k at the current eta, truncated as glmnet does (a fitted
   * probability beyond [pmin, 1 - pmin] is taken as 0 or 1 and gets no weight).
   */
  function irlsWeights(k: number): void {
    syncEta();
    xmz = 0;
    if (family === 'gaussian') {
      for (let i = 0; i < n; i++) {
        rw[i] = (yStd[i] - eta[i]) / n;
        v[i] = 1 / n;
      }
      xmz = 1;
    } else if (family === 'cox') {
      coxEval(cox as CoxData, eta, rw, v);
      for (let i = 0; i < n; i++) xmz += v[i];
    } else if (family === 'binomial') {
      for (let i = 0; i < n; i++) {
        const f = eta[i];
        const q = f < -FMAX ? 0 : f > FMAX ? 1 : 1 / (1 + Math.exp(-f));
        v[i] = (q * (1 - q)) / n;
        rw[i] = (Y[i] - q) / n;
        xmz += v[i];
      }
    } else {
      const off = k * n;
      softmaxTerms();
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
    }
  }

  const grad = new Float64Array(p); // |gradient| per column (max over classes), kept for the strong rule
  const inSet = new Uint8Array(p); // strong set: never shrinks, as glmnet's ixx
  let setList: number[] = []; // kept in column order: full sweeps go in column order, as glmnet's
  const isActive = new Uint8Array(p);
  const activeList: number[] = []; // every column that was ever non-zero, in order of entry (glmnet's partial sweeps)
  const xv = new Float64Array(K * p);
  const bs = new Float64Array(K * p);
  const bs0 = new Float64Array(K);

  /** |gradient| of every usable column outside the strong set (all columns when `all`), max over classes. */
  function gradients(all: boolean): void {
    for (let j = 0; j < p; j++) if (all || !inSet[j]) grad[j] = 0;
    for (let k = 0; k < K; k++) {
      irlsWeights(k);
      // the KKT check dominates on wide data: four partial sums let the loop run about twice as fast
      const z = Z;
      const r = rw;
      const rows = n;
      const tail = rows - (rows % 4);
      for (let j = 0; j < p; j++) {
        if (!usable[j] || (!all && inSet[j])) continue;
        const col = j * rows;
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        for (let i = 0; i < tail; i += 4) {
          s0 += z[col + i] * r[i];
          s1 += z[col + i + 1] * r[i + 1];
          s2 += z[col + i + 2] * r[i + 2];
          s3 += z[col + i + 3] * r[i + 3];
        }
        for (let i = tail; i < rows; i++) s0 += z[col + i] * r[i];
        const g = Math.abs(s0 + s1 + s2 + s3);
        if (g > grad[j]) grad[j] = g;
      }
    }
  }

  function addToSet(cols: number[]): void {
    for (const j of cols) inSet[j] = 1;
    setList = setList.concat(cols).sort((a, b) => a - b);
  }

  /** KKT check outside the strong set at lambda: violators join it; returns how many did. */
  function kktAdd(lam: number): number {
    gradients(false);
    const violators: number[] = [];
    for (let j = 0; j < p; j++) if (usable[j] && !inSet[j] && grad[j] > lam) violators.push(j);
    if (violators.length > 0) addToSet(violators);
    return violators.length;
  }

  /** Start of a weighted least-squares step of block k: old coefficients and the weighted column variances. */
  function prepare(k: number): void {
    bs0[k] = a0[k];
    for (const j of activeList) bs[k * p + j] = B[k * p + j];
    for (const j of setList) {
      const col = j * n;
      let s = 0;
      for (let i = 0; i < n; i++) s += v[i] * Z[col + i] * Z[col + i];
      xv[k * p + j] = s;
    }
  }

  /** One coordinate-descent pass of block k over `cols` (then the intercept); returns max xv * change^2. */
  function sweep(k: number, cols: number[], full: boolean, lam: number): number {
    // locals rather than closure variables: this is the innermost loop of the whole fit
    const z = Z;
    const r = rw;
    const w = v;
    const rows = n;
    const off = k * p;
    let dlx = 0;
    markStale(k);
    for (let t = 0; t < cols.length; t++) {
      const j = cols[t];
      const x = xv[off + j];
      const b = B[off + j];
      const col = j * rows;
      let g = 0;
      for (let i = 0; i < rows; i++) g += z[col + i] * r[i];
      const u = g + x * b;
      const nb = x > 0 ? softThreshold(u, lam) / x : 0;
      if (nb === b) continue;
      if (full && !isActive[j]) {
        isActive[j] = 1;
        activeList.push(j);
      }
      const d = nb - b;
      B[off + j] = nb;
      for (let i = 0; i < rows; i++) r[i] -= d * w[i] * z[col + i];
      dlx = Math.max(dlx, x * d * d);
    }
    if (hasIntercept && xmz > 0) {
      let s = 0;
      for (let i = 0; i < rows; i++) s += r[i];
      const d = s / xmz;
      if (d !== 0) {
        a0[k] += d;
        for (let i = 0; i < rows; i++) r[i] -= d * w[i];
        dlx = Math.max(dlx, xmz * d * d);
      }
    }
    return dlx;
  }

  let passes = 0;
  /** glmnet's weighted least squares: full passes over the strong set, each followed by passes over the active set. */
  function wls(k: number, lam: number): void {
    for (;;) {
      if (++passes > MAX_PASSES || sweep(k, setList, true, lam) < tol) break;
      while (++passes <= MAX_PASSES && sweep(k, activeList, false, lam) >= tol);
    }
  }

  function blockConverged(k: number): boolean {
    const d0 = a0[k] - bs0[k];
    if (hasIntercept && xmz * d0 * d0 > tol) return false;
    for (const j of activeList) {
      const d = B[k * p + j] - bs[k * p + j];
      if (xv[k * p + j] * d * d > tol) return false;
    }
    return true;
  }

  let warm = false;
  let saturated = false; // binomial: every fitted probability is 0 or 1 (glmnet stops the path)

  /** Solves the point lambda starting from the previous solution, as glmnet's point solvers do. */
  function solvePoint(lam: number): void {
    if (family === 'gaussian') {
      irlsWeights(0);
      prepare(0);
      if (warm) while (++passes <= MAX_PASSES && sweep(0, activeList, false, lam) >= tol);
      for (;;) {
        if (++passes > MAX_PASSES) break;
        if (sweep(0, setList, true, lam) < tol) {
          if (kktAdd(lam) === 0) break;
          // violators joined the strong set: their variances, then solve again
          irlsWeights(0);
          prepare(0);
        }
        while (++passes <= MAX_PASSES && sweep(0, activeList, false, lam) >= tol);
        warm = true;
      }
      return;
    }
    if (family === 'binomial' || family === 'cox') {
      for (let it = 0; it < MAX_IRLS; it++) {
        irlsWeights(0);
        if (family === 'binomial' && xmz <= VMIN) {
          saturated = true;
          return;
        }
        prepare(0);
        wls(0, lam);
        irlsWeights(0);
        if (family === 'binomial' && xmz <= VMIN) {
          saturated = true;
          return;
        }
        if (blockConverged(0) && kktAdd(lam) === 0) return;
      }
      return;
    }
    // multinomial ("ungrouped"): one class at a time, glmnet's order
    for (let it = 0; it < MAX_IRLS; it++) {
      let notConverged = false;
      let anyClass = false;
      for (let k = 0; k < K; k++) {
        irlsWeights(k);
        if (xmz <= VMIN) continue;
        anyClass = true;
        prepare(k);
        wls(k, lam);
        if (!notConverged) notConverged = !blockConverged(k);
      }
      // identifiability: intercepts centred, and each column's K coefficients shifted by their median
      // (the shift that minimises the L1 penalty; glmnet's elc)
      let s = 0;
      for (let k = 0; k < K; k++) s += a0[k];
      s /= K;
      for (let k = 0; k < K; k++) a0[k] -= s;
      const vals = new Float64Array(K);
      for (const j of activeList) {
        for (let k = 0; k < K; k++) vals[k] = B[k * p + j];
        const sh = medianShift(vals);
        if (sh !== 0) for (let k = 0; k < K; k++) B[k * p + j] -= sh;
      }
      for (let k = 0; k < K; k++) markStale(k);
      if (!anyClass) {
        saturated = true;
        return;
      }
      if (!notConverged && kktAdd(lam) === 0) return;
    }
  }

  /** Deviance on the reported scale (RSS on y's scale; 2 (saturated - model) log-likelihood otherwise). */
  function deviance(): number {
    syncEta();
    if (family === 'gaussian') {
      let s = 0;
      for (let i = 0; i < n; i++) s += (yStd[i] - eta[i]) ** 2;
      return s * ys * ys;
    }
    if (family === 'cox') return 2 * (-(cox as CoxData).satTerm - coxEval(cox as CoxData, eta));
    let ll = 0;
    if (family === 'binomial') {
      for (let i = 0; i < n; i++) {
        const e = eta[i];
        // log(1 + exp(e)) without overflow
        const soft = e > 0 ? e + Math.log1p(Math.exp(-e)) : Math.log1p(Math.exp(e));
        ll += Y[i] * e - soft;
      }
    } else {
      for (let i = 0; i < n; i++) {
        let mx = -Infinity;
        for (let k = 0; k < K; k++) mx = Math.max(mx, eta[k * n + i]);
        let s = 0;
        for (let k = 0; k < K; k++) s += Math.exp(eta[k * n + i] - mx);
        const lse = mx + Math.log(s);
        for (let k = 0; k < K; k++) if (Y[k * n + i]) ll += eta[k * n + i] - lse;
      }
    }
    return -2 * ll;
  }

  const nullDeviance = deviance();
  gradients(true);
  let lambdaMax = 0;
  for (let j = 0; j < p; j++) if (grad[j] > lambdaMax) lambdaMax = grad[j];
  // glmnet's threshold: thresh x the null deviance per unit weight (of the standardized outcome for gaussian)
  const tol = family === 'gaussian' ? thresh : (thresh * nullDeviance) / (2 * n);

  const lambdas: number[] = [];
  const intercepts: Float64Array[] = [];
  const coefficients: Float64Array[] = [];
  const devs: number[] = [];
  const dfs: number[] = [];
  const devRatio: number[] = [];
  const alf = nlambda > 1 ? Math.pow(ratio, 1 / (nlambda - 1)) : 1;
  let prevLam = lambdaMax;

  for (let m = 0; m < nlambda && lambdaMax > 0; m++) {
    const lam = lambdaMax * Math.pow(alf, m);
    if (m > 0) {
      // sequential strong rule: columns whose gradient at the previous solution exceeds 2 lam - prevLam
      const cut = 2 * lam - prevLam;
      const strong: number[] = [];
      for (let j = 0; j < p; j++) if (usable[j] && !inSet[j] && grad[j] > cut) strong.push(j);
      if (strong.length > 0) addToSet(strong);
      solvePoint(lam);
      // as glmnet, when the passes run out the unconverged point is dropped and the path ends there
      if (passes > MAX_PASSES) break;
    }
    prevLam = lam;

    // on the original scale
    const coef = new Float64Array(K * p);
    const icpt = new Float64Array(K);
    let df = 0;
    for (let k = 0; k < K; k++) {
      let shift = 0;
      for (const j of setList) {
        const b = B[k * p + j];
        if (b === 0) continue;
        df++;
        const c = (family === 'gaussian' ? b * ys : b) / (scale[j] || 1);
        coef[k * p + j] = c;
        shift += c * mu[j];
      }
      icpt[k] = family === 'gaussian' ? ymean - shift : family === 'cox' ? 0 : a0[k] - shift;
    }
    if (family === 'multinomial') {
      // glmnet reports the intercepts centred on the original scale (its getcoef.multinomial)
      let s = 0;
      for (let k = 0; k < K; k++) s += icpt[k];
      for (let k = 0; k < K; k++) icpt[k] -= s / K;
    }
    const dev = deviance();
    lambdas.push(family === 'gaussian' ? lam * ys : lam);
    intercepts.push(icpt);
    coefficients.push(coef);
    devs.push(dev);
    dfs.push(df);
    const ratioNow = nullDeviance > 0 ? 1 - dev / nullDeviance : 0;
    devRatio.push(ratioNow);

    if (saturated) break;
    let columnsIn = 0;
    for (let j = 0; j < p; j++) {
      for (let k = 0; k < K; k++) {
        if (coef[k * p + j] !== 0) {
          columnsIn++;
          break;
        }
      }
    }
    if (columnsIn > dfmax) break;
    // glmnet's early stopping (checked from the 5th lambda on)
    if (earlyStop && m + 1 >= 5) {
      if (family === 'gaussian') {
        const prev = devRatio[m - 1];
        if (ratioNow === 0 || (ratioNow - prev) / ratioNow < 1e-5 || ratioNow > 0.999) break;
      } else if (family === 'cox') {
        if ((ratioNow - devRatio[m - 4]) / ratioNow < 1e-3 || ratioNow > 0.99) break;
      } else {
        if (ratioNow - devRatio[m - 1] < 1e-5 || ratioNow > 0.999) break;
      }
    }
  }

  return {
    family,
    classCount: K,
    p,
    lambdas,
    intercepts,
    coefficients,
    deviance: devs,
    df: dfs,
    nullDeviance,
    scales: sd,
  };
}

/**
 * Index of the path point minimising deviance + c x df x log(n) (the first one on ties: the larger lambda).
 * For gaussian the deviance is taken on the log-likelihood scale, n log(RSS / n) (the error variance
 * profiled out): glmnet's gaussian "deviance" is the RSS itself, in the outcome's units, which would make
 * the criterion depend on those units.
 */
export function chooseLambda(path: LassoPath, c: number, n: number): number {
  let best = 0;
  let bestScore = Infinity;
  const logN = Math.log(Math.max(n, 1));
  for (let m = 0; m < path.lambdas.length; m++) {
    const dev = path.family === 'gaussian' ? n * Math.log(Math.max(path.deviance[m], 1e-300) / n) : path.deviance[m];
    const score = dev + c * path.df[m] * logN;
    if (score < bestScore) {
      bestScore = score;
      best = m;
    }
  }
  return best;
}

/** The family LASSO fits for a task: logistic (multinomial beyond two classes), linear or Cox. */
export function lassoFamily(task: Task, classCount = 2): LassoFamily {
  if (task === 'regression') return 'gaussian';
  if (task === 'survival') return 'cox';
  return classCount > 2 ? 'multinomial' : 'binomial';
}

/**
 * The path for a selection input, or null when the data cannot support one (a single class, a constant
 * outcome, no events, too few rows, non-finite values): the selector then selects nothing.
 * Classes absent from these rows (a small fold) are dropped, so two present classes give a binomial fit.
 */
function pathForInput(input: SelectionInput): LassoPath | null {
  const { X, target, task } = input;
  // the selected set never exceeds maxSize features, so the path can stop well before it gets dense
  // (glmnet's own default pmax is 2 dfmax + 20); see selectFromPath for how the cap is applied
  const options: LassoOptions = { dfmax: 2 * Math.max(input.maxSize, 1) + 20 };
  const n = X.rows;
  if (n < 3 || X.cols === 0) return null;
  for (let i = 0; i < X.data.length; i++) if (!Number.isFinite(X.data[i])) return null;
  for (let i = 0; i < n; i++) if (!Number.isFinite(target.y[i])) return null;
  if (task === 'regression') {
    let same = true;
    for (let i = 1; i < n && same; i++) same = target.y[i] === target.y[0];
    return same ? null : lassoPath(X, target, 'gaussian', options);
  }
  if (task === 'survival') {
    const event = target.event;
    if (!event || !event.some((e) => e === 1)) return null;
    return lassoPath(X, target, 'cox', options);
  }
  const counts = new Map<number, number>();
  for (let i = 0; i < n; i++) counts.set(target.y[i], (counts.get(target.y[i]) ?? 0) + 1);
  const present = [...counts.keys()].sort((a, b) => a - b);
  if (present.length < 2) return null;
  const index = new Map(present.map((c, k) => [c, k]));
  const y = Float64Array.from(target.y, (c) => index.get(c) as number);
  return present.length === 2
    ? lassoPath(X, { y, classCount: 2 }, 'binomial', options)
    : lassoPath(X, { y, classCount: present.length }, 'multinomial', options);
}

// one path per (design, target): the path does not depend on c, so selectors with different c share it
const pathCache = new WeakMap<Design, { target: Target; task: Task; maxSize: number; path: LassoPath | null }>();

/**
 * LASSO feature selection: the features with a non-zero coefficient (any of their design columns, any
 * class) at the lambda minimising deviance + c x df x log(N); when that set exceeds `maxSize`, the
 * nearest larger lambda of the path whose set fits. Features are listed in the order they entered the
 * path (ties: larger absolute standardized coefficient at the chosen lambda). LASSO gives one signature.
 */
export class LassoSelector implements FeatureSelector {
  readonly key: string;

  constructor(readonly c: number) {
    this.key = `lasso-c${c}`;
  }

  describe(task: Task): string {
    const model =
      task === 'classification'
        ? 'logistic regression (multinomial for more than two classes)'
        : task === 'regression'
          ? 'linear regression'
          : 'Cox regression (Breslow ties)';
    return `LASSO: L1-penalized ${model}, lambda by a BIC-type criterion (c = ${this.c}); redundant members dropped and equivalents found with SES's tests (alpha = ${EQUIVALENCE_ALPHA})`;
  }

  fit(input: SelectionInput): Selection {
    return LassoSelector.fitMany(input, [this.c])[0];
  }

  /** The path of this input (computed once per design and target, then reused). Null when degenerate. */
  static path(input: SelectionInput): LassoPath | null {
    const cached = pathCache.get(input.X);
    if (cached && cached.target === input.target && cached.task === input.task && cached.maxSize === input.maxSize) return cached.path;
    let path: LassoPath | null;
    try {
      path = pathForInput(input);
    } catch {
      // a numerical failure on odd data selects nothing rather than failing the analysis
      path = null;
    }
    pathCache.set(input.X, { target: input.target, task: input.task, maxSize: input.maxSize, path });
    return path;
  }

  /** The selection for each c in `cs`, from one path. */
  static fitMany(input: SelectionInput, cs: number[]): Selection[] {
    const path = LassoSelector.path(input);
    return cs.map((c) => ({ signatures: [path ? selectFromPath(path, input, c) : []], signatureCount: 1 }));
  }
}

/** The features selected on `path` with factor c, in order of entry (see LassoSelector). */
export function selectFromPath(path: LassoPath, input: SelectionInput, c: number): number[] {
  const { columnFeature, featureCount } = input;
  const K = path.classCount;
  const p = path.p;
  const featuresAt = (m: number): Set<number> => {
    const out = new Set<number>();
    const coef = path.coefficients[m];
    for (let k = 0; k < K; k++) for (let j = 0; j < p; j++) if (coef[k * p + j] !== 0) out.add(columnFeature[j]);
    return out;
  };
  if (path.lambdas.length === 0 || input.maxSize <= 0) return [];
  let m = chooseLambda(path, c, input.X.rows);
  let chosen = featuresAt(m);
  while (chosen.size > input.maxSize && m > 0) chosen = featuresAt(--m);
  if (chosen.size > input.maxSize) return [];
  const entry = new Int32Array(featureCount).fill(path.lambdas.length);
  for (let t = 0; t <= m; t++) for (const f of featuresAt(t)) if (entry[f] > t) entry[f] = t;
  const size = new Float64Array(featureCount);
  const coef = path.coefficients[m];
  for (let k = 0; k < K; k++) {
    for (let j = 0; j < p; j++) {
      const s = Math.abs(coef[k * p + j]) * path.scales[j];
      const f = columnFeature[j];
      if (s > size[f]) size[f] = s;
    }
  }
  return [...chosen].sort((a, b) => entry[a] - entry[b] || size[b] - size[a] || a - b);
}
