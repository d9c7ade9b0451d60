import { Design, LinearTerms, Model, OnnxOutputs, Target } from './common';
import type { GraphBuilder } from '../onnx/graph';
import { logisticGraph } from '../onnx/model-graphs';
import type { ShapleyForm } from './shapley-form';
import { dotAt } from '../linalg';
import { lbfgsMaximize } from './lbfgs';
import { newton, SoftmaxObjective } from './softmax-fit';

/** Above this many coefficients (heads x (1 + features)) a fit uses L-BFGS: Newton's Hessian costs n x P^2 per step. */
const NEWTON_MAX_COEFFICIENTS = 160;
/**
 * From this penalty on, a fit uses L-BFGS at any size: the steps it needs grow as lambda shrinks (the conditioning),
 * Newton's do not; on breast_cancer (31 coefficients) L-BFGS takes 32 gradients at lambda = 0.01 (0.8 times
 * Newton's time) and 147 at 1e-4 (1.6 times).
 */
const LBFGS_MIN_LAMBDA = 3e-3;
/**
 * L-BFGS stops when no gradient entry exceeds 5e-5 lambda, kept within [1e-8, 5e-7]: the coefficients are then
 * within about gtol / (2 lambda) of the optimum, that is 2.5e-5 from lambda = 1e-2 down to 2e-4. On breast_cancer
 * and digits at lambda 1e-4 to 1 this is as close as scikit-learn's lbfgs gets (its relative objective decrease
 * of 2.2e-9) or closer, in about as many gradients.
 */
export function lbfgsTolerance(lambda: number): number {
  return Math.min(5e-7, Math.max(1e-8, 5e-5 * lambda));
}

/**
 * Ridge logistic regression, binary (one sigmoid head) or multinomial (one softmax head per class). Maximizes
 * (1/n) sum log p(y_i | x_i) - (lambda/2) ||slopes||^2 (intercepts unpenalized; a 1e-6 ridge keeps the
 * multinomial intercepts identifiable). Fitted by Newton-Raphson with step halving (softmax-fit.ts), or, when lambda
 * > 0 and either the coefficients exceed NEWTON_MAX_COEFFICIENTS (many classes x many features) or lambda is at
 * least LBFGS_MIN_LAMBDA, by L-BFGS to a small gradient (lbfgsTolerance), which reaches the same optimum (the objective is
 * strictly concave) without the P x P Hessian. All arithmetic runs over Float64Arrays allocated once per fit.
 */
export class LogisticRegression implements Model {
  outputWidth = 2;
  classCount = 2;
  /** heads x (1 + d): intercept then slopes */
  weights: Float64Array = new Float64Array(0);
  cols = 0;

  constructor(readonly lambda: number) {}

  private get heads(): number {
    return this.classCount === 2 ? 1 : this.classCount;
  }

  /** Class probabilities (n x K) for the weights `w`. */
  private probabilities(X: Design, w: Float64Array, out: Float64Array): void {
    const { rows: n, cols: d, data } = X;
    const H = this.heads;
    const K = this.classCount;
    const D = d + 1;
    for (let i = 0; i < n; i++) {
      const xi = i * d;
      if (H === 1) {
        const s = w[0] + dotAt(w, 1, data, xi, d);
        const p = 1 / (1 + Math.exp(-s));
        out[i * 2] = 1 - p;
        out[i * 2 + 1] = p;
        continue;
      }
      const o = i * K;
      let m = -Infinity;
      for (let h = 0; h < H; h++) {
        const wh = h * D;
        const s = w[wh] + dotAt(w, wh + 1, data, xi, d);
        out[o + h] = s;
        if (s > m) m = s;
      }
      let z = 0;
      for (let h = 0; h < K; h++) {
        const e = Math.exp(out[o + h] - m);
        out[o + h] = e;
        z += e;
      }
      for (let h = 0; h < K; h++) out[o + h] /= z;
    }
  }

  fit(X: Design, target: Target): this {
    const K = target.classCount ?? 2;
    this.classCount = K;
    this.outputWidth = K;
    this.cols = X.cols;
    const f = new SoftmaxObjective(X, target.y, K, this.lambda);
    this.weights =
      this.lambda > 0 && (f.P > NEWTON_MAX_COEFFICIENTS || this.lambda >= LBFGS_MIN_LAMBDA)
        ? lbfgsMaximize(
            (w, g) => {
              const o = f.value(w);
              f.gradient(w, g);
              return o;
            },
            f.start(),
            lbfgsTolerance(this.lambda),
          )
        : newton(f);
    return this;
  }

  predict(X: Design): Float64Array {
    const out = new Float64Array(X.rows * this.classCount);
    this.probabilities(X, this.weights, out);
    return out;
  }

  /** Intercepts (one per head). */
  intercepts(): number[] {
    const d = this.cols;
    return Array.from({ length: this.heads }, (_, h) => this.weights[h * (d + 1)]);
  }

  /** Slopes, one array per head (a single head for binary: log-odds of the second class). */
  slopes(): number[][] {
    const d = this.cols;
    return Array.from({ length: this.heads }, (_, h) => Array.from(this.weights.subarray(h * (d + 1) + 1, (h + 1) * (d + 1))));
  }

  /** Binary: the log-odds of the positive class; more classes: each class's softmax score. Linear in the design columns. */
  shapleyForm(): ShapleyForm {
    const b0 = this.intercepts();
    return {
      kind: 'linear',
      scale: this.heads === 1 ? 'log-odds' : 'softmax score',
      heads: this.slopes().map((weights, h) => ({ intercept: b0[h], weights })),
    };
  }

  /** One head per class score (binary: the log-odds of the second class). */
  linearTerms(): LinearTerms {
    const b0 = this.intercepts();
    return { heads: this.slopes().map((slopes, h) => ({ intercept: b0[h], slopes })) };
  }

  /** Its ONNX part: the class probabilities (a sigmoid head for two classes, a softmax over one head per class). */
  onnx(g: GraphBuilder, X: string): OnnxOutputs {
    return { probabilities: logisticGraph(g, X, this.slopes(), this.intercepts()) };
  }

  toJSON(): Record<string, unknown> {
    return {
      type: 'logistic',
      lambda: this.lambda,
      classCount: this.classCount,
      cols: this.cols,
      weights: Array.from(this.weights),
    };
  }

  static fromJSON(json: Record<string, unknown>): LogisticRegression {
    const m = new LogisticRegression(json.lambda as number);
    m.classCount = json.classCount as number;
    m.outputWidth = m.classCount;
    m.cols = json.cols as number;
    m.weights = Float64Array.from(json.weights as number[]);
    return m;
  }
}
