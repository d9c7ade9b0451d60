import { bootstrapValues, interval } from './bootstrap';
import { importanceRefits } from './feature-importance';
import { CIS_SCHEMA, definePlot } from './plot-kind';

export interface ProgressiveFeatureImportanceEntry {
  name: string[];
  value: number;
  cis: [number, number];
}

/**
 * `Progressive Feature Importance`: the features added one at a time in the order of their importance; the out-of-fold
 * metric of the first k features as a percentage of the full signature's.
 */
export const PROGRESSIVE_FEATURE_IMPORTANCE = definePlot({
  name: 'Progressive Feature Importance',
  schemaName: 'ProgressiveFeatureImportance',
  schema: {
    type: 'array',
    items: {
      type: 'object',
      properties: { name: { type: 'array', items: { type: 'string' } }, value: { type: 'number' }, cis: CIS_SCHEMA },
      required: ['name', 'value', 'cis'],
      description: 'features added one at a time',
    },
  },
  appliesTo: () => true,
  fromFinalSelection: true,
  refits: (size, folds) => Math.max(0, size - 1) * folds,
  async compute(ctx): Promise<ProgressiveFeatureImportanceEntry[]> {
    const { names, full, order } = await importanceRefits(ctx);
    const sig = ctx.signature;
    const prefixSets = order.slice(0, -1).map((_, k) => order.slice(0, k + 1).map((j) => sig[j]));
    const prefixes = [...(prefixSets.length > 0 ? await ctx.refit(prefixSets, 1000) : []), full];
    const orderedNames = order.map((j) => names[j]);
    const { point, boot } = await bootstrapValues([full, ...prefixes], ctx.metric, ctx.bootstraps, ctx.rng(0x1f2), ctx.matrix);
    const pct = (v: ArrayLike<number>, k: number): number => (100 * v[k + 1]) / v[0];
    return prefixes.map((_, k) => ({
      name: orderedNames.slice(0, k + 1),
      value: pct(point, k),
      cis: interval(
        boot.map((v) => pct(v, k)),
        pct(point, k),
      ),
    }));
  },
});
