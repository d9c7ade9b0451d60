import { CholeskyDecomposition, Matrix } from 'ml-matrix';
import { columnMeans, Design, Model, Target, toArray } from './common';
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
