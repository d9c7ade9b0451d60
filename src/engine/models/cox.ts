import { CholeskyDecomposition, Matrix, solve } from 'ml-matrix';
import { columnMeans, Design, LinearTerms, Model, OnnxOutputs, SurvivalCurves, Target, toArray } from './common';
import type { GraphBuilder } from '../onnx/graph';
import { coxGraph } from '../onnx/model-graphs';
import type { ShapleyForm } from './shapley-form';
import { timeQuartiles } from './survival-tree';

interface CoxState {
  loglik: number;
  gradient: Float64Array;
  /** observed information (negative Hessian), d x d row-major */
  information: Float64Array;
}

/**
 * Cox proportional hazards with a ridge penalty, Efron's method for tied event times, fitted by
 * Newton-Raphson with step halving. Maximizes loglik(beta) - (lambda * n / 2) ||beta||^2.
 * The risk score is the linear predictor on centered covariates (higher = earlier event).
 */
export class CoxRegression implements Model {
  readonly outputWidth = 1;
  coefficients: Float64Array = new Float64Array(0);
  centers: Float64Array = new Float64Array(0);
  /** log partial likelihood at beta = 0 and at the fit (unpenalized), and standard errors */
  loglikNull = NaN;
  loglik = NaN;
  standardErrors: Float64Array = new Float64Array(0);
  /**
   * Breslow's estimate of the baseline cumulative hazard (for risk score 0) at the distinct event times of the
   * training samples: H0(t) = sum over event times s <= t of deaths(s) / sum over samples at risk at s of exp(risk).
   * Empty for models saved before it was kept.
   */
  baselineTimes: Float64Array = new Float64Array(0);
  baselineHazard: Float64Array = new Float64Array(0);
  /** the quartiles of the training times (R's quantile type 7): the default times of survival predictions */
  timeQuartiles: number[] = [];

  constructor(readonly lambda: number) {}

  private static evaluate(
    X: Float64Array,
    n: number,
    d: number,
    time: Float64Array,
    event: Float64Array,
    order: Int32Array,
    beta: Float64Array,
  ): CoxState {
    const eta = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < d; j++) s += X[i * d + j] * beta[j];
      eta[i] = s;
    }
    const r = eta.map(Math.exp);
    let S0 = 0;
    const S1 = new Float64Array(d);
    const S2 = new Float64Array(d * d);
    const E1 = new Float64Array(d);
    const E2 = new Float64Array(d * d);
    const grad = new Float64Array(d);
    const info = new Float64Array(d * d);
    const s1 = new Float64Array(d);
    let loglik = 0;
    let k = n - 1;
    while (k >= 0) {
      const t = time[order[k]];
      let first = k;
      while (first > 0 && time[order[first - 1]] === t) first--;
      let E0 = 0;
      let deaths = 0;
      E1.fill(0);
      E2.fill(0);
      for (let m = first; m <= k; m++) {
        const i = order[m];
        const ri = r[i];
        S0 += ri;
        for (let a = 0; a < d; a++) {
          const xa = X[i * d + a];
          S1[a] += ri * xa;
          for (let b = 0; b <= a; b++) S2[a * d + b] += ri * xa * X[i * d + b];
        }
        if (event[i]) {
          deaths++;
          E0 += ri;
          loglik += eta[i];
          for (let a = 0; a < d; a++) {
            const xa = X[i * d + a];
            grad[a] += xa;
            E1[a] += ri * xa;
            for (let b = 0; b <= a; b++) E2[a * d + b] += ri * xa * X[i * d + b];
          }
        }
      }
      for (let l = 0; l < deaths; l++) {
        const f = l / deaths;
        const s0 = S0 - f * E0;
        loglik -= Math.log(s0);
        for (let a = 0; a < d; a++) {
          s1[a] = (S1[a] - f * E1[a]) / s0;
          grad[a] -= s1[a];
        }
        for (let a = 0; a < d; a++)
          for (let b = 0; b <= a; b++) info[a * d + b] += (S2[a * d + b] - f * E2[a * d + b]) / s0 - s1[a] * s1[b];
      }
      k = first - 1;
    }
    for (let a = 0; a < d; a++) for (let b = 0; b < a; b++) info[b * d + a] = info[a * d + b];
    return { loglik, gradient: grad, information: info };
  }

  fit(X: Design, target: Target): this {
    const { rows: n, cols: d } = X;
    const time = target.y;
    const event = target.event ?? new Float64Array(n).fill(1);
    this.centers = columnMeans(X);
    const Xc = new Float64Array(n * d);
    for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) Xc[i * d + j] = X.data[i * d + j] - this.centers[j];
    const order = new Int32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => time[a] - time[b] || a - b);
    const pen = this.lambda * n;
    const penalized = (s: CoxState, beta: Float64Array): number => {
      let q = 0;
      for (let j = 0; j < d; j++) q += beta[j] * beta[j];
      return s.loglik - (pen / 2) * q;
    };
    let beta = new Float64Array(d);
    let state = CoxRegression.evaluate(Xc, n, d, time, event, order, beta);
    this.loglikNull = state.loglik;
    let obj = penalized(state, beta);
    for (let iter = 0; iter < 50 && d > 0; iter++) {
      const A = new Matrix(d, d);
      const g = new Matrix(d, 1);
      for (let a = 0; a < d; a++) {
        g.set(a, 0, state.gradient[a] - pen * beta[a]);
        for (let b = 0; b < d; b++) A.set(a, b, state.information[a * d + b] + (a === b ? pen + 1e-12 : 0));
      }
      const chol = new CholeskyDecomposition(A);
      const step = chol.isPositiveDefinite() ? chol.solve(g) : solve(A, g, true);
      let t = 1;
      let accepted = false;
      for (let half = 0; half < 30; half++) {
        const cand = new Float64Array(d);
        for (let j = 0; j < d; j++) cand[j] = beta[j] + t * step.get(j, 0);
        const s = CoxRegression.evaluate(Xc, n, d, time, event, order, cand);
        const o = penalized(s, cand);
        if (Number.isFinite(o) && o >= obj - 1e-12) {
          const done = Math.abs(o - obj) < 1e-11 * (1 + Math.abs(obj));
          beta = cand;
          state = s;
          obj = o;
          accepted = !done;
          break;
        }
        t /= 2;
      }
      if (!accepted) break;
    }
    this.coefficients = beta;
    this.loglik = state.loglik;
    this.breslow(Xc, n, d, time, event, order);
    this.standardErrors = new Float64Array(d);
    if (d > 0) {
      const A = new Matrix(d, d);
      for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) A.set(a, b, state.information[a * d + b] + (a === b ? pen : 0));
      try {
        const inv = solve(A, Matrix.eye(d), true);
        for (let j = 0; j < d; j++) this.standardErrors[j] = Math.sqrt(Math.max(0, inv.get(j, j)));
      } catch {
        this.standardErrors.fill(NaN);
      }
    }
    return this;
  }

  private breslow(Xc: Float64Array, n: number, d: number, time: Float64Array, event: Float64Array, order: Int32Array): void {
    const r = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < d; j++) s += Xc[i * d + j] * this.coefficients[j];
      r[i] = Math.exp(s);
    }
    // from the latest time back: the risk set of time t is every sample with a time at or after t
    const times: number[] = [];
    const steps: number[] = [];
    let atRisk = 0;
    for (let k = n - 1; k >= 0;) {
      const t = time[order[k]];
      let deaths = 0;
      for (; k >= 0 && time[order[k]] === t; k--) {
        atRisk += r[order[k]];
        if (event[order[k]]) deaths++;
      }
      if (deaths > 0) {
        times.push(t);
        steps.push(deaths / atRisk);
      }
    }
    times.reverse();
    steps.reverse();
    let H = 0;
    this.baselineTimes = Float64Array.from(times);
    this.baselineHazard = Float64Array.from(steps, (v) => (H += v));
    this.timeQuartiles = timeQuartiles(time);
  }

  /** Whether the model kept its baseline hazard (models saved before did not). */
  hasBaseline(): boolean {
    return this.baselineTimes.length > 0;
  }

  /** Baseline cumulative hazard at time t (a step function, 0 before the first event time). */
  baselineAt(t: number): number {
    let lo = 0;
    let hi = this.baselineTimes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.baselineTimes[mid] <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? 0 : this.baselineHazard[lo - 1];
  }

  /**
   * The predicted survival of a sample with risk score `risk`: S(t) = exp(-H0(t) exp(risk)) at each of `times`, and
   * its median survival time (the first event time where S falls to 0.5 or below; undefined when it never does).
   */
  survival(risk: number, times: readonly number[]): { survival: number[]; median?: number } {
    const e = Math.exp(risk);
    const survival = times.map((t) => Math.exp(-this.baselineAt(t) * e));
    // S <= 0.5  <=>  H0 >= ln 2 / exp(risk)
    const target = Math.LN2 / e;
    let lo = 0;
    let hi = this.baselineHazard.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.baselineHazard[mid] < target * (1 - 1e-12)) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.baselineTimes.length ? { survival, median: this.baselineTimes[lo] } : { survival };
  }

  predict(X: Design): Float64Array {
    const d = X.cols;
    const out = new Float64Array(X.rows);
    for (let i = 0; i < X.rows; i++) {
      let s = 0;
      for (let j = 0; j < d; j++) s += (X.data[i * d + j] - this.centers[j]) * this.coefficients[j];
      out[i] = s;
    }
    return out;
  }

  /** The log relative hazard (the risk score): sum (x_j - centers_j) b_j, linear in the design columns. */
  shapleyForm(): ShapleyForm {
    const intercept = -this.coefficients.reduce((s, b, j) => s + b * this.centers[j], 0);
    return { kind: 'linear', scale: 'log relative hazard', heads: [{ intercept, weights: this.coefficients }] };
  }

  /** risk = sum (design[j] - centers[j]) b[j]: the intercept is -sum b[j] centers[j]; the view shows the hazard ratios. */
  linearTerms(): LinearTerms {
    const b = this.coefficients;
    return { heads: [{ intercept: -b.reduce((s, v, j) => s + v * this.centers[j], 0), slopes: b }], hazardRatios: true };
  }

  /** From the Breslow baseline hazard and each row's risk (undefined for a model saved before it kept the baseline). */
  survivalCurves(_X: Design, risk: Float64Array, times?: readonly number[]): SurvivalCurves | undefined {
    if (!this.hasBaseline()) return undefined;
    const at = times ?? this.timeQuartiles;
    return { times: at, rows: Array.from(risk, (r) => this.survival(r, at)) };
  }

  /** Its ONNX part: the risk, the relative risk, and from the Breslow baseline the survival at the training times' quartiles and the median survival time. */
  onnx(g: GraphBuilder, X: string): OnnxOutputs {
    return coxGraph(g, X, this);
  }

  toJSON(): Record<string, unknown> {
    return {
      type: 'cox',
      lambda: this.lambda,
      coefficients: toArray(this.coefficients),
      centers: toArray(this.centers),
      baselineTimes: toArray(this.baselineTimes),
      baselineHazard: toArray(this.baselineHazard),
      timeQuartiles: this.timeQuartiles,
    };
  }

  static fromJSON(json: Record<string, unknown>): CoxRegression {
    const m = new CoxRegression(json.lambda as number);
    m.coefficients = Float64Array.from(json.coefficients as number[]);
    m.centers = Float64Array.from(json.centers as number[]);
    m.baselineTimes = Float64Array.from((json.baselineTimes as number[] | undefined) ?? []);
    m.baselineHazard = Float64Array.from((json.baselineHazard as number[] | undefined) ?? []);
    m.timeQuartiles = (json.timeQuartiles as number[] | undefined) ?? [];
    return m;
  }
}
