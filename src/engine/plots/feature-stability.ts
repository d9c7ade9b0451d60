import { definePlot } from './plot-kind';

export interface FeatureStabilityEntry {
  name: string;
  /** fraction of the cross-validation folds (0 to 1) */
  value: number;
}

/**
 * For every feature of the shown signatures, the fraction of the cross-validation folds (every repeat) whose reference
 * signature of the same selector setting holds the feature or one of its equivalents (its class in the final
 * selection). Listed from the most to the least stable, then in the order the signatures name them.
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

/** `Feature Stability`: how often the cross-validation folds chose each feature of the shown signatures (featureStability). */
export const FEATURE_STABILITY = definePlot({
  name: 'Feature Stability',
  schemaName: 'FeatureStability',
  schema: {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'a feature of a shown signature' },
        value: { type: 'number', minimum: 0, maximum: 1 },
      },
      required: ['name', 'value'],
      description: 'fraction of the cross-validation folds whose signature held the feature or one of its equivalents',
    },
  },
  appliesTo: () => true,
  fromFinalSelection: true,
  async compute(ctx): Promise<FeatureStabilityEntry[]> {
    const selection = await ctx.selection;
    return featureStability((f) => ctx.featureName(f), selection.signatures, selection.classes, ctx.foldSignatures);
  },
});
