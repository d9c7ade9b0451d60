import { solveByIrls, type LassoFamilyModel, type PointSolver } from './family';

/**
 * Cox regression, -(1/N) partial log-likelihood with Breslow ties + lambda ||b||_1, no intercept (glmnet's
 * coxnet, Simon et al. 2011). The deviance is 2 (saturated - model) log-likelihood.
 */
export class CoxFamily implements LassoFamilyModel {
  readonly family = 'cox';
  readonly classCount = 1;
  readonly hasIntercept = false;
  readonly outputScale = 1;
  private readonly data: CoxData;

  /** `time` and 0/1 `event` per row */
  constructor(time: Float64Array, event: Float64Array) {
    this.data = coxData(time, event);
  }

  nullIntercepts(): void {}

  /** coxnet's gradient residual and diagonal Hessian (see coxEval). */
  weights(_k: number, eta: Float64Array, rw: Float64Array, v: Float64Array): number {
    coxEval(this.data, eta, rw, v);
    let xmz = 0;
    for (let i = 0; i < v.length; i++) xmz += v[i];
    return xmz;
  }

  deviance(eta: Float64Array): number {
    return 2 * (-this.data.satTerm - coxEval(this.data, eta));
  }

  /** glmnet's thr times the null deviance per sample. */
  tolerance(thresh: number, nullDeviance: number, n: number): number {
    return (thresh * nullDeviance) / (2 * n);
  }

  /** IRLS on the diagonal approximation of the Hessian, as coxnet. */
  solvePoint(cd: PointSolver, lam: number): boolean {
    return solveByIrls(cd, lam, false);
  }

  /** Cox has no intercept: its baseline hazard absorbs it. */
  originalIntercepts(): Float64Array {
    return new Float64Array(1);
  }

  /** glmnet: the deviance ratio grew by less than 0.1% (relative) over the last 4 points, or passed 0.99. */
  stopsEarly(devRatio: number[], m: number): boolean {
    const now = devRatio[m];
    return (now - devRatio[m - 4]) / now < 1e-3 || now > 0.99;
  }
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
  const S = riskSetSums(cd, eta, mx);
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

/** Risk-set sums of exp(eta - mx) at each sorted position (all rows with time >= its time), from the end. */
function riskSetSums(cd: CoxData, eta: Float64Array, mx: number): Float64Array {
  const { order, groupStart } = cd;
  const n = order.length;
  const S = new Float64Array(n);
  let acc = 0;
  let k = n - 1;
  while (k >= 0) {
    const start = groupStart[k];
    for (let m = k; m >= start; m--) acc += Math.exp(eta[order[m]] - mx);
    for (let m = k; m >= start; m--) S[m] = acc;
    k = start - 1;
  }
  return S;
}
