import type { ConditionalIndependenceTest } from './independence';
import { createIndependenceTest } from './independence-tests';
import type { Task } from './metrics';
import type { Design, Target } from './models/common';
import { enumerateSignatures, ses } from './ses';

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
}

/** What a selector found: feature (step) indices, the reference signature first, then equivalent ones. */
export interface Selection {
  signatures: number[][];
  /** how many equivalent signatures exist in all (can be far more than `signatures` holds) */
  signatureCount: number;
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

/** Per design column, a univariate association statistic with the outcome (larger = stronger). */
export function univariateScores(X: Design, target: Target, task: Task): Float64Array {
  const { rows: n, cols: d, data } = X;
  const y = target.y;
  const scores = new Float64Array(d);
  if (task === 'regression') {
    let my = 0;
    for (let i = 0; i < n; i++) my += y[i];
    my /= n;
    for (let j = 0; j < d; j++) {
      let sx = 0;
      for (let i = 0; i < n; i++) sx += data[i * d + j];
      const mx = sx / n;
      let sxy = 0;
      let sxx = 0;
      let syy = 0;
      for (let i = 0; i < n; i++) {
        const a = data[i * d + j] - mx;
        const b = y[i] - my;
        sxy += a * b;
        sxx += a * a;
        syy += b * b;
      }
      scores[j] = sxx > 0 && syy > 0 ? Math.abs(sxy) / Math.sqrt(sxx * syy) : 0;
    }
  } else if (task === 'classification') {
    // one-way ANOVA F statistic
    const K = target.classCount ?? 2;
    const cnt = new Float64Array(K);
    for (let i = 0; i < n; i++) cnt[y[i]]++;
    const sums = new Float64Array(K);
    for (let j = 0; j < d; j++) {
      sums.fill(0);
      let total = 0;
      for (let i = 0; i < n; i++) {
        const v = data[i * d + j];
        sums[y[i]] += v;
        total += v;
      }
      const grand = total / n;
      let between = 0;
      for (let c = 0; c < K; c++) if (cnt[c] > 0) between += cnt[c] * (sums[c] / cnt[c] - grand) ** 2;
      let within = 0;
      for (let i = 0; i < n; i++) within += (data[i * d + j] - sums[y[i]] / cnt[y[i]]) ** 2;
      scores[j] = within > 0 ? between / within : between > 0 ? Infinity : 0;
    }
  } else {
    // Cox score test at beta = 0 (log-rank statistic of a continuous covariate)
    const ev = target.event as Float64Array;
    const order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => y[b] - y[a] || a - b);
    for (let j = 0; j < d; j++) {
      let S0 = 0;
      let S1 = 0;
      let S2 = 0;
      let U = 0;
      let I = 0;
      let k = 0;
      while (k < n) {
        const t = y[order[k]];
        let m = k;
        let deaths = 0;
        let xd = 0;
        while (m < n && y[order[m]] === t) {
          const x = data[order[m] * d + j];
          S0 += 1;
          S1 += x;
          S2 += x * x;
          if (ev[order[m]]) {
            deaths++;
            xd += x;
          }
          m++;
        }
        if (deaths > 0) {
          const mean = S1 / S0;
          U += xd - deaths * mean;
          I += deaths * (S2 / S0 - mean * mean);
        }
        k = m;
      }
      scores[j] = I > 0 ? (U * U) / I : 0;
    }
  }
  return scores;
}

/** The features with the `k` largest univariate scores (a feature scores as its best design column). */
export class UnivariateFilter implements FeatureSelector {
  readonly key: string;

  constructor(readonly k: number) {
    this.key = `filter-${k}`;
  }

  describe(task: Task): string {
    const test =
      task === 'classification' ? 'one-way ANOVA F statistic' : task === 'regression' ? 'absolute Pearson correlation' : 'Cox score (log-rank) test';
    return `Univariate filter: the ${this.k} features most associated with the outcome (${test}), fitted on training samples only`;
  }

  fit(input: SelectionInput): Selection {
    const scores = univariateScores(input.X, input.target, input.task);
    const best = new Float64Array(input.featureCount).fill(-Infinity);
    for (let c = 0; c < scores.length; c++) {
      const f = input.columnFeature[c];
      const s = Number.isNaN(scores[c]) ? 0 : scores[c];
      if (s > best[f]) best[f] = s;
    }
    const order = Array.from({ length: input.featureCount }, (_, f) => f).sort((a, b) => best[b] - best[a] || a - b);
    return { signatures: [order.slice(0, Math.min(this.k, input.maxSize, order.length))], signatureCount: 1 };
  }
}

/** No selection: every feature. */
export class AllFeatures implements FeatureSelector {
  readonly key = 'all';

  describe(): string {
    return 'No feature selection (all features)';
  }

  fit(input: SelectionInput): Selection {
    return { signatures: [Array.from({ length: input.featureCount }, (_, f) => f)], signatureCount: 1 };
  }
}

/**
 * The conditional-independence test SES uses for an outcome kind, named without fitting it (engine.md's table),
 * for the result's `featureSelection` text.
 */
export function independenceTestDescription(task: Task): string {
  if (task === 'regression') {
    return "Fisher's z test of the partial correlation (F-test of nested linear models for categorical features)";
  }
  if (task === 'classification') {
    return 'likelihood-ratio test of logistic regressions (multinomial for more than two classes)';
  }
  return 'likelihood-ratio test of Cox regressions (Efron ties)';
}

/** SES (ses.ts): the reference signature and the equivalent ones from its equivalence classes. */
export class SesSelector implements FeatureSelector {
  readonly key: string;

  /** `createTest` is there for tests; the engine always uses the outcome's test from independence-tests.ts. */
  constructor(
    readonly maxK: number,
    readonly alpha: number,
    private readonly createTest: (input: SelectionInput) => ConditionalIndependenceTest = createIndependenceTest,
  ) {
    this.key = `ses-${maxK}-${alpha}`;
  }

  describe(task: Task): string {
    return `Statistically equivalent signatures (SES): maxK = ${this.maxK}, alpha = ${this.alpha}, ${independenceTestDescription(task)}`;
  }

  fit(input: SelectionInput): Selection {
    const result = ses(this.createTest(input), input.featureCount, { maxK: this.maxK, alpha: this.alpha, maxSize: input.maxSize });
    return { signatures: enumerateSignatures(result, input.signatureLimit), signatureCount: result.signatureCount };
  }
}

export type SelectorSpec = { kind: 'filter'; k: number } | { kind: 'all' };

/** Fits several selectors on the same training data (one task; they may share work). */
export function fitSelectors(specs: SelectorSpec[], input: SelectionInput): Selection[] {
  return specs.map((spec) => createSelector(spec).fit(spec.kind === 'all' ? { ...input, maxSize: Infinity } : input));
}

/** A selector's identity: configurations with equal keys share one selection per fold. */
export function selectorKey(spec: SelectorSpec): string {
  return JSON.stringify(spec);
}

export function createSelector(spec: SelectorSpec): FeatureSelector {
  return spec.kind === 'all' ? new AllFeatures() : new UnivariateFilter(spec.k);
}
