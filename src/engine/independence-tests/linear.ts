/** Regression: Fisher's z of the partial correlation (MXM testIndFisher), or the F-test of nested linear models. */
import { logFSurvival, logStudentTTwoSided } from '../distributions';
import type { IndependenceTestResult } from '../independence';
import { Conditioning, dot, finite, IndependenceTestInput, noEvidence, orthogonalize, ResidualTest } from './residual-test';

/** Fisher's z of the partial correlation r, p-value from Student's t with df degrees of freedom (MXM testIndFisher). */
function fisherZ(r: number, df: number): IndependenceTestResult {
  // |r| = 1 (T a linear function of X and Z) would give an infinite statistic
  const clamped = Math.max(-1 + 1e-15, Math.min(1 - 1e-15, r));
  const statistic = Math.sqrt(df) * Math.abs(Math.atanh(clamped));
  return { statistic, df, logP: logStudentTTwoSided(statistic, df) };
}

interface LinearNull {
  /** residual of T on Z */
  residual: Float64Array;
  rss: number;
}

/** Fisher's z (MXM testIndFisher) with numerical features only, else the F-test of nested linear models. */
export class LinearTest extends ResidualTest<LinearNull> {
  readonly description: string;
  private readonly y: Float64Array;
  /** below this residual sum of squares, T is (numerically) a linear function of Z: rounding leaves about 1e-32 of sum y^2 */
  private readonly noResidual: number;

  constructor(input: IndependenceTestInput) {
    super(input);
    this.y = input.target.y;
    this.noResidual = 1e-24 * dot(this.y, this.y, this.y.length);
    this.description = input.categorical.some((c) => c === 1)
      ? "Fisher's z test of partial correlations (F-test of nested linear models when a categorical feature is involved)"
      : "Fisher's z test of partial correlations";
  }

  private fisher(x: number, z: readonly number[]): boolean {
    return this.categorical[x] !== 1 && z.every((f) => this.categorical[f] !== 1);
  }

  protected nominalDf(x: number, z: readonly number[]): number {
    return this.fisher(x, z) ? Math.max(0, this.n - z.length - 3) : this.featureColumns[x].length;
  }

  protected fitNull(basis: Float64Array[]): LinearNull {
    const residual = Float64Array.from(this.y);
    const rss = orthogonalize(residual, basis, this.n);
    return { residual, rss: rss > this.noResidual ? rss : 0 };
  }

  override test(x: number, z: readonly number[]): IndependenceTestResult {
    return (this.fisher(x, z) && this.featureColumns[x].length === 1 && this.fisherFromProjections(x, z)) || super.test(x, z);
  }

  /**
   * The common case without allocation: X's residual on Z is never formed, only its squared norm
   * |x|^2 - |Q'x|^2 and its product with T's residual (= x' residual, as that is orthogonal to Q). Null when most
   * of x lies in span(Z), where that difference cancels: the explicit residual decides then.
   */
  private fisherFromProjections(x: number, z: readonly number[]): IndependenceTestResult | null {
    const { basis, fit } = this.conditioning(z);
    const n = this.n;
    const c = this.featureColumns[x][0];
    const col = this.columns[c];
    let projected = 0;
    for (const q of basis) projected += dot(q, col, n) ** 2;
    const left = this.squares[c] - projected;
    if (!(left > 1e-4 * this.squares[c])) return null;
    const df = n - z.length - 3;
    if (df < 1 || !(fit.rss > 0)) return noEvidence(Math.max(df, 0));
    return finite(fisherZ(dot(col, fit.residual, n) / Math.sqrt(left * fit.rss), df));
  }

  protected compare(
    x: number,
    z: readonly number[],
    { basis, fit }: Conditioning<LinearNull>,
    added: Float64Array[],
  ): IndependenceTestResult {
    const n = this.n;
    if (this.fisher(x, z)) {
      const df = n - z.length - 3;
      if (df < 1 || !(fit.rss > 0)) return noEvidence(Math.max(df, 0));
      // `added[0]` is X's residual on Z, normalized; T's residual is orthogonal to Z, so this is the partial correlation
      return fisherZ(dot(added[0], fit.residual, n) / Math.sqrt(fit.rss), df);
    }
    const m = added.length;
    const df2 = n - basis.length - m;
    if (df2 < 1 || !(fit.rss > 0)) return noEvidence(m);
    let explained = 0;
    for (const w of added) explained += dot(w, fit.residual, n) ** 2;
    // a perfect fit of the larger model would give F = infinity
    const rss1 = Math.max(fit.rss - explained, fit.rss * 1e-15);
    const statistic = explained / m / (rss1 / df2);
    return { statistic, df: m, logP: logFSurvival(statistic, m, df2) };
  }
}

// ---------------------------------------------------------------- likelihood-ratio tests by Newton's method
