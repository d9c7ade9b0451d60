import type { GraphBuilder } from '../onnx/graph';
import type { Rng } from '../rng';

/** A dense row-major design matrix: `data[i * cols + j]` is sample i, column j. */
export interface Design {
  data: Float64Array;
  rows: number;
  cols: number;
}

/** What a model is fitted to: class index (classification), value (regression) or time plus 0/1 event (survival). */
export interface Target {
  y: Float64Array;
  event?: Float64Array;
  classCount?: number;
}

/**
 * Every model: `fit` then `predict` gives, per row, `outputWidth` numbers:
 * class probabilities (or scores) for classification, the value for regression, the risk for survival.
 */
export interface Model {
  readonly outputWidth: number;
  fit(X: Design, target: Target, rng: Rng): this;
  predict(X: Design): Float64Array;
  toJSON(): Record<string, unknown>;
  /*
   * What a model can show besides its predictions, asked by the pipeline (which tests no model's class): a model
   * that has it says so by having the method.
   */
  /**
   * predict(X) when X's rows are `blocks` blocks of equal length whose rows differ from the first block's only in the
   * design columns marked in `varying` (Partial Dependence's grids): the same numbers (a forest's on an ascending grid
   * to rounding: tree-blocks.ts), with the work the rows share done once (trees walk each row once, splitting the
   * blocks only at nodes on a varying column).
   */
  predictBlocks?(X: Design, blocks: number, varying: Uint8Array): Float64Array;
  /** A linear model's terms on the design columns: what the result's model view shows (pipeline.ts, linearModelView). */
  linearTerms?(): LinearTerms;
  /** A decision tree's leaves: the pipeline writes the rules of a small one (treeRules). */
  leafCount?(): number;
  /** A decision tree as readable rules: `condition` words a split, `leaf` a leaf's values. */
  rules?(condition: (column: number, threshold: number) => string, leaf: (values: number[]) => string): string;
  /**
   * A survival model's curves: each row's predicted survival at `times` (default: the quartiles of the training
   * times) from its risk score or its design row; undefined when it was saved before it kept what that takes.
   */
  survivalCurves?(X: Design, risk: Float64Array, times?: readonly number[]): SurvivalCurves | undefined;
  /**
   * The model as part of an ONNX graph (src/engine/onnx/): its outputs, in doubles, from `X`, the name of the graph's
   * rows x columns design matrix, exactly as `predict` computes them. A kind without it is not exported.
   */
  onnx?(g: GraphBuilder, X: string): OnnxOutputs;
}

/**
 * The linear predictor of a linear model on the design columns: intercept + sum slope x column, one head per class
 * score of a multinomial logistic regression (binary: the log-odds of the second class), one otherwise;
 * `hazardRatios` for Cox models, whose exp(coefficient) the model view shows.
 */
export interface LinearTerms {
  heads: { intercept: number; slopes: ArrayLike<number> }[];
  hazardRatios?: boolean;
}

/** One sample's predicted survival at the asked times, and its median survival time where the curve reaches 0.5. */
export interface SurvivalCurve {
  survival: number[];
  median?: number;
}

/** A survival model's curves: the times asked (or its default ones) and a curve per row. */
export type SurvivalCurves = { times: readonly number[]; rows: SurvivalCurve[] };

export function toArray(a: ArrayLike<number>): number[] {
  return Array.from(a);
}

export function columnMeans(X: Design): Float64Array {
  const m = new Float64Array(X.cols);
  for (let i = 0; i < X.rows; i++) for (let j = 0; j < X.cols; j++) m[j] += X.data[i * X.cols + j];
  for (let j = 0; j < X.cols; j++) m[j] /= Math.max(1, X.rows);
  return m;
}

export function design(data: ArrayLike<number>[]): Design {
  const rows = data.length;
  const cols = rows > 0 ? data[0].length : 0;
  const out = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[i * cols + j] = data[i][j];
  return { data: out, rows, cols };
}

/** The arrays of a linear dual coordinate descent (linear-dual.ts) over n samples of d features. */
export interface DualArrays {
  /** d + 1 weights, the bias last */
  w: Float64Array;
  /** the dual variables (the SVR's beta) */
  alpha: Float64Array;
  /** the diagonal 1 + |x_i|^2 */
  QD: Float64Array;
  /** the labels +-1 (the SVR's targets) */
  y: Float64Array;
  /** the order of the next pass, the active samples first */
  index: Int32Array;
}

/**
 * Where a dual coordinate descent keeps its arrays and runs its passes, each over the active samples
 * index[0, active) in that order: in WebAssembly (LinearDualKernels in simd-kernels.ts) or here (JsDualPasses), to
 * the same bits.
 */
export interface DualPasses {
  /** The arrays for a new fit: w and alpha zero, index 0 .. n - 1, QD and y for the caller to fill; valid until the next start. */
  start(): DualArrays;
  /** One pass of the SVM (linearDualCD): returns the active count after it; out = (largest, smallest projected gradient). */
  svc(active: number, C: number, pgMaxOld: number, pgMinOld: number, out: Float64Array): number;
  /** One pass of the SVR (linearSvrDualCD): returns the active count after it; out = (largest violation, their sum). */
  svr(active: number, C: number, epsilon: number, gmaxOld: number, out: Float64Array): number;
}

/** What a model's part of an ONNX graph gives: the names of its values, each rows x width doubles. */
export interface OnnxOutputs {
  /** classification: the model's class probabilities, before the floor and calibration */
  probabilities?: string;
  /** regression: the predicted value */
  value?: string;
  /** survival: the risk score (higher = earlier event) */
  risk?: string;
  /** survival: the survival probabilities at `survivalTimes` */
  survival?: string;
  survivalTimes?: readonly number[];
  /** survival (Cox): the relative risk exp(risk) */
  relativeRisk?: string;
  /** survival (Cox): the median survival time, NaN where the curve never reaches 0.5 */
  median?: string;
}
