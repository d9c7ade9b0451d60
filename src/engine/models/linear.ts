import { CholeskyDecomposition, Matrix } from 'ml-matrix';
import type { Task } from '../metrics';
import { columnMeans, Design, LinearTerms, Model, OnnxOutputs, Target, toArray } from './common';
import type { GraphBuilder } from '../onnx/graph';
import { linearGraph } from '../onnx/model-graphs';
import { CoxRegression } from './cox';
import { defineModelKind } from './kind';
import { LogisticRegression } from './logistic';
import type { ShapleyForm } from './shapley-form';

/**
 * Ridge linear regression: minimizes (1/2n)||y - b0 - X b||^2 + (lambda/2)||b||^2 (intercept unpenalized),
 * solved in closed form on centered data.
 */
export class RidgeRegression implements Model {
  readonly outputWidth = 1;
  intercept = 0;
  coefficients: Float64Array = new Float64Array(0);

  constructor(readonly lambda: number) {}

  fit(X: Design, target: Target): this {
    const { rows: n, cols: d, data } = X;
    const y = target.y;
    const mx = columnMeans(X);
    let my = 0;
    for (let i = 0; i < n; i++) my += y[i];
    my /= n;
    const A = new Matrix(d, d);
    const b = new Matrix(d, 1);
    const row = new Float64Array(d);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < d; j++) row[j] = data[i * d + j] - mx[j];
      const yi = y[i] - my;
      for (let j = 0; j < d; j++) {
        b.set(j, 0, b.get(j, 0) + row[j] * yi);
        for (let k = 0; k <= j; k++) A.set(j, k, A.get(j, k) + row[j] * row[k]);
      }
    }
    for (let j = 0; j < d; j++) {
      for (let k = 0; k < j; k++) A.set(k, j, A.get(j, k));
      A.set(j, j, A.get(j, j) + this.lambda * n + 1e-10);
    }
    const beta = d > 0 ? new CholeskyDecomposition(A).solve(b) : new Matrix(0, 1);
    this.coefficients = Float64Array.from(beta.getColumn(0));
    let dot = 0;
    for (let j = 0; j < d; j++) dot += mx[j] * this.coefficients[j];
    this.intercept = my - dot;
    return this;
  }

  predict(X: Design): Float64Array {
    const out = new Float64Array(X.rows);
    const d = X.cols;
    for (let i = 0; i < X.rows; i++) {
      let s = this.intercept;
      for (let j = 0; j < d; j++) s += X.data[i * d + j] * this.coefficients[j];
      out[i] = s;
    }
    return out;
  }

  /** The prediction, linear in the design columns. */
  shapleyForm(): ShapleyForm {
    return { kind: 'linear', scale: 'prediction', heads: [{ intercept: this.intercept, weights: this.coefficients }] };
  }

  linearTerms(): LinearTerms {
    return { heads: [{ intercept: this.intercept, slopes: this.coefficients }] };
  }

  /** Its ONNX part: the value, intercept + X coefficients. */
  onnx(g: GraphBuilder, X: string): OnnxOutputs {
    return { value: linearGraph(g, X, [this.coefficients], [this.intercept]) };
  }

  toJSON(): Record<string, unknown> {
    return { type: 'ridge', lambda: this.lambda, intercept: this.intercept, coefficients: toArray(this.coefficients) };
  }

  static fromJSON(json: Record<string, unknown>): RidgeRegression {
    const m = new RidgeRegression(json.lambda as number);
    m.intercept = json.intercept as number;
    m.coefficients = Float64Array.from(json.coefficients as number[]);
    return m;
  }
}

/** Ridge lambdas each thoroughness tries: 3, 8 (1e-4 to 3) and 20 (1e-5 to 30). */
const LAMBDAS = {
  preliminary: [0.01, 0.1, 1],
  typical: [1e-4, 1e-3, 0.01, 0.03, 0.1, 0.3, 1, 3],
  extensive: [1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 2e-3, 3e-3, 6e-3, 0.01, 0.02, 0.03, 0.06, 0.1, 0.2, 0.3, 0.6, 1, 3, 10, 30],
};

export type LinearSpec = { kind: 'linear'; lambda: number };

/** Linear models with a ridge penalty: logistic (classification), ridge (regression), Cox (survival). */
export const LINEAR = defineModelKind({
  kind: 'linear',
  classes: { logistic: LogisticRegression, ridge: RidgeRegression, cox: CoxRegression },
  interpretable: true,
  tasks: ['classification', 'regression', 'survival'],
  grid: (level): LinearSpec[] => LAMBDAS[level].map((lambda) => ({ kind: 'linear', lambda })),
  families: { linear: 0 },
  family: () => 'linear',
  flexibility: (s: LinearSpec) => -Math.log(s.lambda),
  create(s: LinearSpec, task: Task) {
    if (task === 'classification') return new LogisticRegression(s.lambda);
    if (task === 'regression') return new RidgeRegression(s.lambda);
    return new CoxRegression(s.lambda);
  },
  describe(s: LinearSpec, task: Task, classCount: number) {
    if (task === 'classification')
      return `${classCount > 2 ? 'Multinomial' : 'Binary'} logistic regression with ridge penalty (lambda = ${s.lambda})`;
    if (task === 'regression') return `Ridge linear regression (lambda = ${s.lambda})`;
    return `Cox proportional hazards regression with ridge penalty (lambda = ${s.lambda}, Efron ties)`;
  },
});
