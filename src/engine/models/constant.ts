import type { Task } from '../metrics';
import type { Design, Model, Target } from './common';
import { explainedClasses, ShapleyForm } from './shapley-form';

/**
 * The model of an empty signature (no feature is associated with the outcome): the training class
 * proportions, the training mean, or the same risk (0) for every sample. It reads no column.
 */
export class ConstantModel implements Model {
  readonly outputWidth: number;
  values: Float64Array;

  constructor(
    readonly task: Task,
    classCount = 0,
  ) {
    this.outputWidth = task === 'classification' ? classCount : 1;
    this.values = new Float64Array(this.outputWidth);
  }

  fit(_X: Design, target: Target): this {
    const n = target.y.length;
    this.values.fill(0);
    if (n === 0) return this;
    if (this.task === 'classification') for (const c of target.y) this.values[c] += 1 / n;
    else if (this.task === 'regression') for (const v of target.y) this.values[0] += v / n;
    return this;
  }

  predict(X: Design): Float64Array {
    const W = this.outputWidth;
    const out = new Float64Array(X.rows * W);
    for (let i = 0; i < X.rows; i++) out.set(this.values, i * W);
    return out;
  }

  /** The same output for every row: nothing to attribute (the class shares are probabilities). */
  shapleyForm(): ShapleyForm {
    const columns = this.task === 'classification' ? explainedClasses(this.outputWidth) : [0];
    const scale = this.task === 'classification' ? 'probability' : this.task === 'regression' ? 'prediction' : 'log relative hazard';
    return { kind: 'linear', scale, heads: columns.map((c) => ({ intercept: this.values[c], weights: [] })) };
  }

  toJSON(): Record<string, unknown> {
    return { type: 'constant', task: this.task, values: Array.from(this.values) };
  }

  static fromJSON(json: Record<string, unknown>): ConstantModel {
    const values = json.values as number[];
    const task = json.task as Task;
    const m = new ConstantModel(task, task === 'classification' ? values.length : 0);
    m.values = Float64Array.from(values);
    return m;
  }
}
