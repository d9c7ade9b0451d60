/** Survival: the likelihood ratio of nested Cox models with Efron's ties, and the Cox partial likelihood. */
import { type IndependenceTestResult, REFERENCE_TEST_SAMPLES } from '../independence';
import { EMPTY_FIT, evaluate, Fit, Likelihood, likelihoodRatio, nullFitFrom, scratchFor, Scratch, settled } from './likelihood';
import { Conditioning, IndependenceTestInput, noEvidence, NullStart, ResidualTest } from './residual-test';

/** Cox partial likelihood with Efron's approximation for tied event times. */
class CoxPartial implements Likelihood {
  readonly width = 1;
  readonly stateLength: number;
  /** samples by decreasing time; group g spans order[groupStart[g] .. groupStart[g + 1]) (equal times) */
  private readonly order: Int32Array;
  private readonly groupStart: Int32Array;

  /** state: the risks exp(eta - max eta), which cannot overflow and leave the partial likelihood's ratios unchanged */
  constructor(
    time: Float64Array,
    private readonly event: Uint8Array,
  ) {
    const n = time.length;
    this.stateLength = n;
    this.order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => time[b] - time[a] || a - b);
    const starts: number[] = [];
    for (let k = 0; k < n; k++) if (k === 0 || time[this.order[k]] !== time[this.order[k - 1]]) starts.push(k);
    starts.push(n);
    this.groupStart = Int32Array.from(starts);
  }

  deviance(eta: Float64Array, risk: Float64Array): number {
    let shift = -Infinity;
    for (let i = 0; i < eta.length; i++) shift = Math.max(shift, eta[i]);
    if (!Number.isFinite(shift)) shift = 0;
    for (let i = 0; i < eta.length; i++) risk[i] = Math.exp(eta[i] - shift);
    const { order, groupStart, event } = this;
    let loglik = 0;
    let S0 = 0;
    for (let g = 0; g + 1 < groupStart.length; g++) {
      let D0 = 0;
      let deaths = 0;
      for (let k = groupStart[g]; k < groupStart[g + 1]; k++) {
        const i = order[k];
        S0 += risk[i];
        if (event[i]) {
          D0 += risk[i];
          deaths++;
          loglik += eta[i];
        }
      }
      // the risk set sums are of exp(eta - shift)
      for (let l = 0; l < deaths; l++) loglik -= Math.log(S0 - (l / deaths) * D0) + shift;
    }
    return -2 * loglik;
  }

  derivatives(columns: readonly Float64Array[], risk: Float64Array, score: Float64Array, information: Float64Array | null): void {
    const { order, groupStart, event } = this;
    const second = information !== null;
    const p = columns.length;
    const S1 = new Float64Array(p);
    const S2 = new Float64Array(p * p);
    const D1 = new Float64Array(p);
    const D2 = new Float64Array(p * p);
    const x = new Float64Array(p);
    score.fill(0);
    information?.fill(0);
    let S0 = 0;
    for (let g = 0; g + 1 < groupStart.length; g++) {
      let D0 = 0;
      let deaths = 0;
      D1.fill(0);
      D2.fill(0);
      for (let k = groupStart[g]; k < groupStart[g + 1]; k++) {
        const i = order[k];
        const r = risk[i];
        for (let a = 0; a < p; a++) x[a] = columns[a][i];
        S0 += r;
        for (let a = 0; a < p; a++) {
          const ra = r * x[a];
          S1[a] += ra;
          if (second) for (let b = 0; b <= a; b++) S2[a * p + b] += ra * x[b];
        }
        if (event[i]) {
          deaths++;
          D0 += r;
          for (let a = 0; a < p; a++) {
            const ra = r * x[a];
            score[a] += x[a];
            D1[a] += ra;
            if (second) for (let b = 0; b <= a; b++) D2[a * p + b] += ra * x[b];
          }
        }
      }
      for (let l = 0; l < deaths; l++) {
        const f = l / deaths;
        const s0 = S0 - f * D0;
        for (let a = 0; a < p; a++) {
          const ma = (S1[a] - f * D1[a]) / s0;
          score[a] -= ma;
          if (information)
            for (let b = 0; b <= a; b++)
              information[a * p + b] += (S2[a * p + b] - f * D2[a * p + b]) / s0 - ma * ((S1[b] - f * D1[b]) / s0);
        }
      }
    }
  }
}

// ---------------------------------------------------------------- classification

/** Likelihood ratio of nested Cox models, Efron's ties; with Z empty the null model is beta = 0. */
export class CoxTest extends ResidualTest<Fit> {
  readonly description = 'likelihood-ratio test of Cox regressions (Efron ties)';
  readonly cost: number;
  /** null when there is no event (nothing to test) */
  private readonly likelihood: CoxPartial | null;
  private scratch?: Scratch;

  constructor(input: IndependenceTestInput) {
    super(input);
    const event = Uint8Array.from(input.target.event ?? [], (e) => (e === 1 ? 1 : 0));
    this.likelihood = event.some((e) => e === 1) && event.length === this.n ? new CoxPartial(input.target.y, event) : null;
    this.cost = this.n / REFERENCE_TEST_SAMPLES;
  }

  protected nominalDf(x: number): number {
    return this.featureColumns[x].length;
  }

  protected fitNull(basis: Float64Array[], from?: NullStart<Fit>): Fit {
    const lik = this.likelihood;
    if (!lik) return EMPTY_FIT;
    // a Cox model has no intercept: the constant basis[0] is left out (the other basis vectors are centered)
    const columns = basis.slice(1);
    // every test against this fit has at least 1 degree of freedom: its fit ends where none can find anything
    const options = { exact: true, enough: (deviance: number) => settled(deviance, 1) };
    return nullFitFrom(lik, columns, () => evaluate(lik, new Float64Array(columns.length), new Float64Array(this.n)), from, options);
  }

  protected compare(
    x: number,
    _z: readonly number[],
    { basis, fit }: Conditioning<Fit>,
    added: Float64Array[],
    below: number,
  ): IndependenceTestResult {
    const lik = this.likelihood;
    const df = added.length;
    if (!lik) return noEvidence(df);
    this.scratch ??= scratchFor(lik, this.n);
    return likelihoodRatio(lik, [...basis.slice(1), ...added], fit, df, below, this.scratch);
  }
}
