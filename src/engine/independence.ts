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
  /**
   * The work of one test relative to a logistic-regression test on REFERENCE_TEST_SAMPLES samples (1 or less: no more
   * than that); SES divides its default test budget by it (ses.ts, defaultTestBudget). Absent: 1.
   */
  readonly cost?: number;
}

/** The sample count at which a likelihood-ratio test of logistic regressions has cost 1 (see `cost`). */
export const REFERENCE_TEST_SAMPLES = 5000;

/**
 * A test whose results are remembered by (X, the set Z): the SES settings of one analysis, fitted on the same rows,
 * ask many of the same tests (a result depends on X and the set Z only, not on alpha or maxK).
 */
export class RememberingTest implements ConditionalIndependenceTest {
  private readonly results = new Map<string, IndependenceTestResult>();

  constructor(private readonly inner: ConditionalIndependenceTest) {}

  get description(): string {
    return this.inner.description;
  }

  get cost(): number | undefined {
    return this.inner.cost;
  }

  test(x: number, z: readonly number[]): IndependenceTestResult {
    const key = `${x}|${[...z].sort((a, b) => a - b).join(',')}`;
    let r = this.results.get(key);
    if (!r) {
      r = this.inner.test(x, z);
      this.results.set(key, r);
    }
    return r;
  }
}
