import type { Task } from './metrics';
import type { Design, Target } from './models/common';

/**
 * The contract between the protocol and the feature selectors (SES, LASSO, none): what a selector sees and what it
 * finds. The selectors and their tests import these types from here, and selection.ts, which creates the selectors,
 * imports them: so no file imports back the one that imports it.
 */

/** What a feature selector sees: the preprocessed training design and which input feature each column comes from. */
export interface SelectionInput {
  X: Design;
  /** design column -> feature (step) index */
  columnFeature: Int32Array;
  featureCount: number;
  /** per feature: 1 when it is categorical (its columns are L - 1 dummies), else 0 */
  categorical: Uint8Array;
  target: Target;
  task: Task;
  /** never more features than this in a signature */
  maxSize: number;
  /** how many signatures to return at most (the reference first); the count of all is `signatureCount` */
  signatureLimit: number;
  /**
   * Give selectors without an equivalence analysis of their own (LASSO) that of equivalents.ts (the final selection
   * on all samples does; the cross-validation folds only drop the copies among LASSO's members, as it does first).
   */
  equivalents?: boolean;
}

/** What a selector found: feature (step) indices, the reference signature first, then equivalent ones. */
export interface Selection {
  signatures: number[][];
  /** how many equivalent signatures exist in all (can be far more than `signatures` holds) */
  signatureCount: number;
  /** per member of the reference signature, in its order: the member, then the features equivalent to it */
  classes?: number[][];
}

/**
 * A feature-selection algorithm, fitted on training rows only. `signatures` hold feature (step) indices,
 * the reference signature first, then equivalent ones (SES); each has at most `maxSize` features.
 */
export interface FeatureSelector {
  readonly key: string;
  /** Text for the result's `featureSelection` field. */
  describe(task: Task): string;
  fit(input: SelectionInput): Selection;
}
