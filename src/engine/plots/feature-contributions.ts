import type { ShapleyMethod } from '../explain/types';
import type { OutputScale } from '../models/shapley-form';
import { bootstrapMeans } from './bootstrap';
import { CIS_SCHEMA, definePlot } from './plot-kind';

export interface FeatureContributionEntry {
  name: string;
  /** the mean over the samples of the absolute contribution */
  value: number;
  cis: [number, number];
}

export interface FeatureContributions {
  /** the scale of the contributions: the model output they add up to (src/engine/explain/) */
  scale: OutputScale;
  method: ShapleyMethod;
  /** one per output explained (the positive class, each class, or the one output), features from the largest */
  outputs: { class?: string; features: FeatureContributionEntry[] }[];
}

/**
 * `Feature Contributions`: for each feature of the reference signature, the mean over the samples of the absolute
 * Shapley value of its contribution to the out-of-fold prediction (the signature's refit on the plot fold that held the
 * sample out, analysis/explanations.ts), with a 95% bootstrap interval; from the largest to the smallest.
 */
export const FEATURE_CONTRIBUTIONS = definePlot({
  name: 'Feature Contributions',
  schemaName: 'FeatureContributions',
  schema: {
    type: 'object',
    properties: {
      scale: { type: 'string', description: 'the model output the contributions add up to (log-odds, probability, prediction, ...)' },
      method: { type: 'string', enum: ['closedForm', 'exactTree', 'exactKernel', 'enumeration', 'sampling'] },
      outputs: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            class: { type: 'string', description: 'classification: the class whose output is explained' },
            features: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  name: { type: 'string' },
                  value: { type: 'number', description: 'mean absolute contribution over the out-of-fold predictions' },
                  cis: CIS_SCHEMA,
                },
                required: ['name', 'value', 'cis'],
              },
            },
          },
          required: ['features'],
        },
        description: 'one per output explained: the positive class of a binary outcome, each class of more, or the one output',
      },
    },
    required: ['scale', 'method', 'outputs'],
  },
  appliesTo: () => true,
  fromFinalSelection: true,
  // the reference signature refitted on each plot fold, explaining the fold's samples
  refits: (_size, folds) => folds,
  async compute(ctx): Promise<FeatureContributions | undefined> {
    const e = await ctx.explanation;
    if (!e || e.features.length === 0) return undefined;
    const { heads: H } = e;
    const M = e.features.length;
    const HM = H * M;
    // the absolute values once, not on each of the bootstraps; their mean over the samples
    const magnitude = Float64Array.from(e.values.subarray(0, ctx.n * HM), Math.abs);
    const stats = await bootstrapMeans(magnitude, HM, ctx.metric, ctx.bootstraps, ctx.rng(0xfc0));
    return {
      scale: e.scale,
      method: e.method,
      outputs: Array.from({ length: H }, (_, h) => ({
        ...(e.classes ? { class: e.classes[h] } : {}),
        features: e.features
          .map((name, m) => ({ name, value: stats.value[h * M + m], cis: stats.cis[h * M + m] }))
          .sort((a, b) => b.value - a.value),
      })),
    };
  },
});
