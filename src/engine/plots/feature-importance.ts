import type { RepeatedEvaluator } from '../bbc';
import { bootstrapValues, interval } from './bootstrap';
import { CIS_SCHEMA, definePlot, PlotContext } from './plot-kind';

export interface FeatureImportanceEntry {
  name: string;
  value: number;
  cis: [number, number];
}

export interface ImportanceRefits {
  /** names of the reference signature's features, in its order */
  names: string[];
  full: RepeatedEvaluator;
  /** the relative drop of each feature, in the signature's order */
  importance: FeatureImportanceEntry[];
  /** signature positions from the most to the least important */
  order: number[];
}

/** The refits of the signature without each of its features, and the importance they give: shared with the progressive plot. */
export function importanceRefits(ctx: PlotContext): Promise<ImportanceRefits> {
  return ctx.memo('importance', async () => {
    const sig = ctx.signature;
    const names = sig.map((f) => ctx.featureName(f));
    const [full, ...without] = await ctx.refit([sig, ...sig.map((f) => sig.filter((g) => g !== f))], 0);
    const { point, boot } = await bootstrapValues([full, ...without], ctx.metric, ctx.bootstraps, ctx.rng(0x1f1), ctx.matrix);
    const drop = (v: ArrayLike<number>, j: number): number => (v[0] - v[j + 1]) / Math.abs(v[0]);
    const importance = names.map((name, j) => ({
      name,
      value: drop(point, j),
      cis: interval(
        boot.map((v) => drop(v, j)),
        drop(point, j),
      ),
    }));
    const order = sig.map((_, j) => j).sort((a, b) => importance[b].value - importance[a].value || a - b);
    return { names, full, importance, order };
  });
}

/**
 * `Feature Importance`: for each feature of the reference signature, the relative drop (full - without) / |full| of the
 * out-of-fold metric when the feature is removed and the configuration refitted, listed from the most to the least
 * important.
 */
export const FEATURE_IMPORTANCE = definePlot({
  name: 'Feature Importance',
  schemaName: 'FeatureImportance',
  schema: {
    type: 'array',
    items: {
      type: 'object',
      properties: { name: { type: 'string', description: 'the feature removed' }, value: { type: 'number' }, cis: CIS_SCHEMA },
      required: ['name', 'value', 'cis'],
    },
  },
  appliesTo: () => true,
  fromFinalSelection: true,
  refits: (size, folds) => (size + 1) * folds,
  async compute(ctx): Promise<FeatureImportanceEntry[]> {
    const { importance, order } = await importanceRefits(ctx);
    return order.map((j) => importance[j]);
  },
});
