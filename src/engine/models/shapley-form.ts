import type { Design } from './common';
import type { TreeArrays } from './tree-rule';

/**
 * What a model tells about the way it computes its output, so that the Shapley values of its predictions can be
 * computed exactly where its structure allows it (src/engine/explain/): every model class answers `shapleyForm()`.
 * The values explain the model's own output on the design columns (after preprocessing, before the probability floor
 * and any calibration map of a classifier: calibration.ts).
 */

/**
 * The scale of the output that a base value and the contributions add up to:
 * - `prediction`: the predicted value (regression);
 * - `log-odds`: of the positive class (binary logistic regression);
 * - `softmax score`: each class's linear score, log p(class) up to a constant shared by the classes (multinomial);
 * - `probability`: a class's probability before the floor and calibration (trees and forests: the leaves' class shares);
 * - `decision value`: a support vector machine's decision value (binary: its score is the logistic of it, before
 *   calibration; one-vs-rest: the score is the softmax of the classes');
 * - `one-vs-one decision sum`: a one-vs-one machine's sum of a class's pairwise decision values, signed towards the class
 *   (its class score is its votes plus this sum squashed into (-1/3, 1/3));
 * - `log relative hazard`: a Cox model's linear predictor on centred features;
 * - `risk`: a random survival forest's ensemble mortality (its cumulative hazard summed over the event times).
 */
export type OutputScale =
  | 'prediction'
  | 'log-odds'
  | 'softmax score'
  | 'probability'
  | 'decision value'
  | 'one-vs-one decision sum'
  | 'log relative hazard'
  | 'risk';

/** One output of a linear form: intercept + sum weights[j] x design column j. */
export interface LinearHead {
  intercept: number;
  weights: ArrayLike<number>;
}

/**
 * RBF kernel machines over shared support vectors: head h is offset + factor (sum_k coefs[h][k] exp(-gamma |sv_k - x|^2)
 * - rho[h]).
 */
export interface KernelExpansions {
  /** the support vectors, row-major (coefs[h].length x design columns), each once */
  sv: Float64Array;
  coefs: Float64Array[];
  rho: number[];
}

/**
 * How a model's explained outputs (its heads: one per class explained, or one) are computed:
 * - `linear`: each head is linear in the design columns (closed form);
 * - `trees`: each head is the mean over `trees` of a column (`columns[h]`) of the leaf values (exact tree algorithm);
 * - `rbf`: each head is an RBF kernel expansion, a sum of products over the design columns (exact product algorithm);
 * - `function`: anything else, evaluated on rows (coalitions enumerated, or sampled beyond a size).
 */
export type ShapleyForm =
  | { kind: 'linear'; scale: OutputScale; heads: LinearHead[] }
  | { kind: 'trees'; scale: OutputScale; trees: TreeArrays[]; columns: number[] }
  | { kind: 'rbf'; scale: OutputScale; gamma: number; machines: KernelExpansions; offset: number; factor: number }
  | { kind: 'function'; scale: OutputScale; heads: number; evaluate: (X: Design) => Float64Array };

/** The heads a classifier with `classCount` outputs explains: the positive class (the second) of two, else every class. */
export function explainedClasses(classCount: number): number[] {
  return classCount === 2 ? [1] : Array.from({ length: classCount }, (_, c) => c);
}
