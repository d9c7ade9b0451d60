/**
 * Conditional-independence tests, the building block of SES (docs/engine.md, "Feature selection in detail").
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
  /**
   * True when the test stopped as soon as it proved log p < `below` (see `test`): then `statistic` is a lower bound
   * of the exact statistic and `logP` an upper bound of the exact log p, itself below `below`.
   */
  bound?: boolean;
}

export interface ConditionalIndependenceTest {
  /** Names the test for the result's `featureSelection` text, e.g. "likelihood-ratio test of logistic regressions". */
  readonly description: string;
  /**
   * p(X, T | Z): `x` and `z` are feature indices (0 .. featureCount - 1); `z` never contains `x`.
   * `below` (a log p; default -Infinity) says the caller needs the exact result only when log p >= below: a test
   * fitted by iterations may stop once its statistic so far proves log p < below, and return that bound (`bound`).
   * SES compares a selected feature's p with alpha only, and a candidate's with its weakest association so far.
   */
  test(x: number, z: readonly number[], below?: number): IndependenceTestResult;
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
 * ask many of the same tests (a result depends on X and the set Z only, not on alpha or maxK). A remembered bound
 * (`bound`) answers a later call only when it proves what that call asks (its log p below the call's `below`).
 */
export class RememberingTest implements ConditionalIndependenceTest {
  /** by the set Z (sorted, joined), then by X */
  private readonly results = new Map<string, Map<number, IndependenceTestResult>>();

  constructor(private readonly inner: ConditionalIndependenceTest) {}

  get description(): string {
    return this.inner.description;
  }

  get cost(): number | undefined {
    return this.inner.cost;
  }

  test(x: number, z: readonly number[], below = -Infinity): IndependenceTestResult {
    const key = z.length === 1 ? String(z[0]) : [...z].sort((a, b) => a - b).join(',');
    let byX = this.results.get(key);
    if (!byX) this.results.set(key, (byX = new Map<number, IndependenceTestResult>()));
    let r = byX.get(x);
    if (!r || (r.bound && !(r.logP < below))) {
      r = this.inner.test(x, z, below);
      byX.set(x, r);
    }
    return r;
  }
}
