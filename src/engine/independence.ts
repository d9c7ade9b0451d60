/**
 * Conditional-independence tests, the building block of SES (engine.md, "Feature selection in detail").
 * A test works on features, not design columns: a categorical feature is one unit whose L - 1 dummy columns
 * enter and leave together (L - 1 degrees of freedom).
 */

/** One test of X against the outcome T given the features Z. */
export interface IndependenceTestResult {
  /** the test statistic (larger = stronger dependence); 0 when X adds nothing given Z */
  statistic: number;
  /** degrees of freedom of the test */
  df: number;
  /** natural log of the p-value (tiny p-values underflow as plain numbers); 0 (p = 1) when X is a linear function of Z */
  logP: number;
}

export interface ConditionalIndependenceTest {
  /** Names the test for the result's `featureSelection` text, e.g. "likelihood-ratio test of logistic regressions". */
  readonly description: string;
  /** p(X, T | Z): `x` and `z` are feature indices (0 .. featureCount - 1); `z` never contains `x`. */
  test(x: number, z: readonly number[]): IndependenceTestResult;
}
