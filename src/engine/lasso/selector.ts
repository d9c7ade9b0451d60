import type { Task } from '../metrics';
import type { Design, Target } from '../models/common';
import { EQUIVALENCE_ALPHA } from '../equivalents';
import type { FeatureSelector, Selection, SelectionInput } from '../selection-types';
import { lassoPath } from './path';
import type { LassoFamily, LassoOptions, LassoPath } from './types';

/* The LASSO feature selector: one path per design and target, the lambda by a BIC-type criterion, capped at maxSize. */

/**
 * Index of the path point minimising deviance + c x df x log(n) (the first one on ties: the larger lambda).
 * For gaussian the deviance is taken on the log-likelihood scale, n log(RSS / n) (the error variance
 * profiled out): glmnet's gaussian "deviance" is the RSS itself, in the outcome's units, which would make
 * the criterion depend on those units.
 */
export function chooseLambda(path: LassoPath, c: number, n: number): number {
  let best = 0;
  let bestScore = Infinity;
  const logN = Math.log(Math.max(n, 1));
  for (let m = 0; m < path.lambdas.length; m++) {
    const dev = path.family === 'gaussian' ? n * Math.log(Math.max(path.deviance[m], 1e-300) / n) : path.deviance[m];
    const score = dev + c * path.df[m] * logN;
    if (score < bestScore) {
      bestScore = score;
      best = m;
    }
  }
  return best;
}

/** The family LASSO fits for a task: logistic (multinomial beyond two classes), linear or Cox. */
export function lassoFamily(task: Task, classCount = 2): LassoFamily {
  if (task === 'regression') return 'gaussian';
  if (task === 'survival') return 'cox';
  return classCount > 2 ? 'multinomial' : 'binomial';
}

/**
 * The path for a selection input, or null when the data cannot support one (a single class, a constant
 * outcome, no events, too few rows, non-finite values): the selector then selects nothing.
 * Classes absent from these rows (a small fold) are dropped, so two present classes give a binomial fit.
 */
function pathForInput(input: SelectionInput): LassoPath | null {
  const { X, target, task } = input;
  // the selected set never exceeds maxSize features, so the path stops after the first lambda with more (glmnet's
  // dfmax = maxSize, counting features): a point beyond can only be chosen to be walked back from (selectFromPath),
  // and along a BIC-type criterion the dense end of the path, most of its work, never wins (a 10-class 1,620 x 64
  // path: 89 -> about 30 lambdas, 6 times faster, the same signatures on every fold of the benchmark shapes)
  const options: LassoOptions = { dfmax: Math.max(input.maxSize, 1), columnFeature: input.columnFeature };
  const n = X.rows;
  if (n < 3 || X.cols === 0) return null;
  for (let i = 0; i < X.data.length; i++) if (!Number.isFinite(X.data[i])) return null;
  for (let i = 0; i < n; i++) if (!Number.isFinite(target.y[i])) return null;
  if (task === 'regression') {
    let same = true;
    for (let i = 1; i < n && same; i++) same = target.y[i] === target.y[0];
    return same ? null : lassoPath(X, target, 'gaussian', options);
  }
  if (task === 'survival') {
    const event = target.event;
    if (!event || !event.some((e) => e === 1)) return null;
    return lassoPath(X, target, 'cox', options);
  }
  const counts = new Map<number, number>();
  for (let i = 0; i < n; i++) counts.set(target.y[i], (counts.get(target.y[i]) ?? 0) + 1);
  const present = [...counts.keys()].sort((a, b) => a - b);
  if (present.length < 2) return null;
  const index = new Map(present.map((c, k) => [c, k]));
  const y = Float64Array.from(target.y, (c) => index.get(c) as number);
  return present.length === 2
    ? lassoPath(X, { y, classCount: 2 }, 'binomial', options)
    : lassoPath(X, { y, classCount: present.length }, 'multinomial', options);
}

// one path per (design, target): the path does not depend on c, so selectors with different c share it
const pathCache = new WeakMap<Design, { target: Target; task: Task; maxSize: number; path: LassoPath | null }>();

/**
 * LASSO feature selection: the features with a non-zero coefficient (any of their design columns, any
 * class) at the lambda minimising deviance + c x df x log(N); when that set exceeds `maxSize`, the
 * nearest larger lambda of the path whose set fits. Features are listed in the order they entered the
 * path (ties: larger absolute standardized coefficient at the chosen lambda). LASSO gives one signature.
 */
export class LassoSelector implements FeatureSelector {
  readonly key: string;

  constructor(readonly c: number) {
    this.key = `lasso-c${c}`;
  }

  describe(task: Task): string {
    const model =
      task === 'classification'
        ? 'logistic regression (multinomial for more than two classes)'
        : task === 'regression'
          ? 'linear regression'
          : 'Cox regression (Breslow ties)';
    return `LASSO: L1-penalized ${model}, lambda by a BIC-type criterion (c = ${this.c}); copies among its members dropped and equivalents found with SES's tests (alpha = ${EQUIVALENCE_ALPHA})`;
  }

  fit(input: SelectionInput): Selection {
    return LassoSelector.fitMany(input, [this.c])[0];
  }

  /** The path of this input (computed once per design and target, then reused). Null when degenerate. */
  static path(input: SelectionInput): LassoPath | null {
    const cached = pathCache.get(input.X);
    if (cached && cached.target === input.target && cached.task === input.task && cached.maxSize === input.maxSize) return cached.path;
    let path: LassoPath | null;
    try {
      path = pathForInput(input);
    } catch {
      // a numerical failure on odd data selects nothing rather than failing the analysis
      path = null;
    }
    pathCache.set(input.X, { target: input.target, task: input.task, maxSize: input.maxSize, path });
    return path;
  }

  /** The selection for each c in `cs`, from one path. */
  static fitMany(input: SelectionInput, cs: number[]): Selection[] {
    const path = LassoSelector.path(input);
    return cs.map((c) => ({ signatures: [path ? selectFromPath(path, input, c) : []], signatureCount: 1 }));
  }
}

/** The features selected on `path` with factor c, in order of entry (see LassoSelector). */
export function selectFromPath(path: LassoPath, input: SelectionInput, c: number): number[] {
  const { columnFeature, featureCount } = input;
  const K = path.classCount;
  const p = path.p;
  const featuresAt = (m: number): Set<number> => {
    const out = new Set<number>();
    const coef = path.coefficients[m];
    for (let k = 0; k < K; k++) for (let j = 0; j < p; j++) if (coef[k * p + j] !== 0) out.add(columnFeature[j]);
    return out;
  };
  if (path.lambdas.length === 0 || input.maxSize <= 0) return [];
  let m = chooseLambda(path, c, input.X.rows);
  let chosen = featuresAt(m);
  while (chosen.size > input.maxSize && m > 0) chosen = featuresAt(--m);
  if (chosen.size > input.maxSize) return [];
  const entry = new Int32Array(featureCount).fill(path.lambdas.length);
  for (let t = 0; t <= m; t++) for (const f of featuresAt(t)) if (entry[f] > t) entry[f] = t;
  const size = new Float64Array(featureCount);
  const coef = path.coefficients[m];
  for (let k = 0; k < K; k++) {
    for (let j = 0; j < p; j++) {
      const s = Math.abs(coef[k * p + j]) * path.scales[j];
      const f = columnFeature[j];
      if (s > size[f]) size[f] = s;
    }
  }
  return [...chosen].sort((a, b) => entry[a] - entry[b] || size[b] - size[a] || a - b);
}
