import { bootstrapWeights, MetricContext, percentile, RepeatedEvaluator } from './bbc';
import { Rng } from './rng';
import type { FeatureImportanceEntry, FeatureStabilityEntry, ProgressiveFeatureImportanceEntry } from './types';

/** Metric of every set on the full data and on B bootstraps (the same resampled rows for every set). */
function bootstrapValues(sets: RepeatedEvaluator[], ctx: MetricContext, B: number, rng: Rng): { point: number[]; boot: Float64Array[] } {
  const ones = new Float64Array(ctx.outcome.y.length).fill(1);
  const point = sets.map((s) => s.evaluate(ones));
  const boot: Float64Array[] = [];
  for (let b = 0; b < B; b++) {
    const w = bootstrapWeights(ctx, rng);
    boot.push(Float64Array.from(sets, (s) => s.evaluate(w)));
  }
  return { point, boot };
}

/**
 * The 95% percentile interval of the bootstrap draws, widened when needed to contain the point value: with a
 * skewed bootstrap distribution the plain percentile interval can miss the value it is reported with.
 */
function interval(draws: number[], value: number): [number, number] {
  const ok = draws.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const lo = percentile(ok, 0.025);
  const hi = percentile(ok, 0.975);
  if (!Number.isFinite(value)) return [lo, hi];
  return [Number.isFinite(lo) ? Math.min(lo, value) : value, Number.isFinite(hi) ? Math.max(hi, value) : value];
}

/** `Feature Importance`: relative drop (full - without) / |full| of the out-of-fold metric when each feature is removed. */
export function featureImportance(
  names: string[],
  full: RepeatedEvaluator,
  without: RepeatedEvaluator[],
  ctx: MetricContext,
  B: number,
  rng: Rng,
): FeatureImportanceEntry[] {
  const { point, boot } = bootstrapValues([full, ...without], ctx, B, rng);
  const drop = (v: ArrayLike<number>, j: number): number => (v[0] - v[j + 1]) / Math.abs(v[0]);
  return names.map((name, j) => ({
    name,
    value: drop(point, j),
    cis: interval(
      boot.map((v) => drop(v, j)),
      drop(point, j),
    ),
  }));
}

/** `Progressive Feature Importance`: metric of the first k features as a percentage of the full signature's. */
export function progressiveImportance(
  orderedNames: string[],
  full: RepeatedEvaluator,
  prefixes: RepeatedEvaluator[],
  ctx: MetricContext,
  B: number,
  rng: Rng,
): ProgressiveFeatureImportanceEntry[] {
  const { point, boot } = bootstrapValues([full, ...prefixes], ctx, B, rng);
  const pct = (v: ArrayLike<number>, k: number): number => (100 * v[k + 1]) / v[0];
  return prefixes.map((_, k) => ({
    name: orderedNames.slice(0, k + 1),
    value: pct(point, k),
    cis: interval(
      boot.map((v) => pct(v, k)),
      pct(point, k),
    ),
  }));
}

/**
 * `Feature Stability`: for every feature of the shown signatures, the fraction of the cross-validation folds (every
 * repeat) whose reference signature of the same selector setting holds the feature or one of its equivalents (its
 * class in the final selection). Listed from the most to the least stable, then in the order the signatures name them.
 */
export function featureStability(
  names: (feature: number) => string,
  shown: readonly (readonly number[])[],
  classes: readonly (readonly number[])[] | undefined,
  folds: readonly (readonly number[])[],
): FeatureStabilityEntry[] {
  const seen = new Set<number>();
  const entries: FeatureStabilityEntry[] = [];
  for (const sig of shown)
    for (const f of sig) {
      if (seen.has(f)) continue;
      seen.add(f);
      const members = classes?.find((q) => q.includes(f)) ?? [f];
      const hits = folds.filter((fold) => fold.some((g) => members.includes(g))).length;
      entries.push({ name: names(f), value: folds.length > 0 ? hits / folds.length : 0 });
    }
  return entries
    .map((e, i) => ({ e, i }))
    .sort((a, b) => b.e.value - a.e.value || a.i - b.i)
    .map(({ e }) => e);
}
