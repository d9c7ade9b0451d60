import { definePlot, JsonSchema, PlotContext } from './plot-kind';

/** At most this many values of a numerical feature (quantiles of its observed values beyond). */
export const PD_GRID_MAX = 20;
/** The average runs over at most this many samples (a seeded random choice beyond). */
export const PD_SAMPLES_MAX = 1000;
/** Individual (ICE) curves listed per feature. */
export const ICE_CURVES = 30;

export interface PartialDependenceOutput {
  /** classification: the class whose probability this is */
  class?: string;
  /** the mean output over the samples with the feature set to each value of the grid */
  average: number[];
  /** individual conditional expectation curves: the output of some samples as the feature moves */
  curves: { row: number; values: number[] }[];
}

export interface PartialDependenceEntry {
  feature: string;
  kind: 'numerical' | 'categorical';
  /** numerical: values from the lowest to the highest observed; categorical: 0, 1, ... (the positions of `labels`) */
  grid: number[];
  /** categorical: each observed category */
  labels?: string[];
  outputs: PartialDependenceOutput[];
}

export interface PartialDependence {
  /** what the outputs are: class probabilities, the prediction, or the probability of surviving past `survivalTime` */
  output: 'probability' | 'prediction' | 'survival probability';
  /** survival: the time (the median of the observed times) */
  survivalTime?: number;
  features: PartialDependenceEntry[];
}

/** The grid of a numerical feature: its distinct observed values, or PD_GRID_MAX evenly ranked quantiles of them. */
export function numericalGrid(values: Float64Array): number[] {
  const sorted = Float64Array.from(values.filter((v) => !Number.isNaN(v))).sort();
  const distinct = [...new Set(sorted)];
  if (distinct.length <= PD_GRID_MAX) return distinct;
  const grid = Array.from({ length: PD_GRID_MAX }, (_, k) => {
    const pos = ((sorted.length - 1) * k) / (PD_GRID_MAX - 1);
    const lo = Math.floor(pos);
    return sorted[lo] + (sorted[Math.ceil(pos)] - sorted[lo]) * (pos - lo);
  });
  return [...new Set(grid)];
}

/** Up to `max` of the n samples, a seeded random choice, ascending. */
function sampleRows(n: number, max: number, ctx: PlotContext, stream: number): Int32Array {
  const rows = Int32Array.from({ length: n }, (_, i) => i);
  if (n <= max) return rows;
  const rng = ctx.rng(stream);
  for (let k = 0; k < max; k++) {
    const j = k + rng.int(n - k);
    [rows[k], rows[j]] = [rows[j], rows[k]];
  }
  return rows.slice(0, max).sort();
}

const OUTPUT: JsonSchema = {
  type: 'object',
  properties: {
    class: { type: 'string', description: 'classification: the class whose probability this is' },
    average: { type: 'array', items: { type: 'number' }, description: 'per grid value: the mean output over the samples' },
    curves: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          row: { type: 'integer', description: 'the sample (its position among the analysed samples)' },
          values: { type: 'array', items: { type: 'number' } },
        },
        required: ['row', 'values'],
      },
      description: `individual conditional expectation: at most ${ICE_CURVES} samples' outputs over the grid`,
    },
  },
  required: ['average', 'curves'],
};

/**
 * `Partial Dependence` (one entry per feature of the reference signature): the final model's output, averaged over the
 * samples (at most 1,000), as the feature is set to each value of a grid over its observed range (each category of a
 * categorical feature), with the individual curves of 30 samples (ICE). Outputs: the probability of the positive class
 * (of each class when more), calibrated as the model's predictions; the prediction; for survival, the probability of
 * surviving past the median of the observed times. A linear model's average is a straight line with its slope.
 */
export const PARTIAL_DEPENDENCE = definePlot({
  name: 'Partial Dependence',
  schemaName: 'PartialDependence',
  schema: {
    type: 'object',
    properties: {
      output: { type: 'string', enum: ['probability', 'prediction', 'survival probability'] },
      survivalTime: { type: 'number', description: 'survival: the time of the survival probability (the median of the observed times)' },
      features: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            feature: { type: 'string' },
            kind: { type: 'string', enum: ['numerical', 'categorical'] },
            grid: {
              type: 'array',
              items: { type: 'number' },
              description: `numerical: up to ${PD_GRID_MAX} values over the observed range; categorical: 0, 1, ... (positions in labels)`,
            },
            labels: { type: 'array', items: { type: 'string' }, description: 'categorical: each observed category' },
            outputs: { type: 'array', items: OUTPUT, description: 'one per output: the positive class, each class, or the one output' },
          },
          required: ['feature', 'kind', 'grid', 'outputs'],
        },
      },
    },
    required: ['output', 'features'],
  },
  appliesTo: () => true,
  fromFinalSelection: true,
  async compute(ctx): Promise<PartialDependence | undefined> {
    const model = ctx.finalModel;
    if (!model || model.features.length === 0) return undefined;
    const K = ctx.task === 'classification' ? ctx.classes.length : 1;
    const shown = ctx.task === 'classification' ? (K === 2 ? [1] : ctx.classes.map((_, c) => c)) : [0];
    const rows = sampleRows(ctx.n, PD_SAMPLES_MAX, ctx, 0x9d0);
    // the ICE samples: the first ICE_CURVES of a shuffle of the averaged ones
    const ice = sampleRows(rows.length, ICE_CURVES, ctx, 0x9d1);
    const grids = model.features.map((f) => {
      const column = model.column(f.feature);
      const codes =
        f.kind === 'categorical'
          ? [...new Set(Array.from(rows, (r) => column[r]).filter((v) => !Number.isNaN(v)))].sort((a, b) => a - b)
          : [];
      return {
        feature: f.feature,
        codes,
        values: f.kind === 'categorical' ? codes : numericalGrid(Float64Array.from(rows, (r) => column[r])),
      };
    });
    const predicted = await model.predictGrids(rows, grids);
    const features = model.features.map((f, j) => {
      const { codes, values } = grids[j];
      const outs = predicted[j];
      return {
        feature: f.name,
        kind: f.kind,
        grid: f.kind === 'categorical' ? codes.map((_, k) => k) : values,
        ...(f.kind === 'categorical' ? { labels: codes.map((c) => f.levels[c]) } : {}),
        outputs: shown.map((c) => ({
          ...(ctx.task === 'classification' ? { class: ctx.classes[c] } : {}),
          average: outs.map((o) => {
            let s = 0;
            for (let k = 0; k < rows.length; k++) s += o[k * K + c];
            return s / rows.length;
          }),
          curves: Array.from(ice, (k) => ({ row: rows[k], values: outs.map((o) => o[k * K + c]) })),
        })),
      };
    });
    return {
      output: ctx.task === 'classification' ? 'probability' : ctx.task === 'regression' ? 'prediction' : 'survival probability',
      ...(model.survivalTime !== undefined ? { survivalTime: model.survivalTime } : {}),
      features,
    };
  },
});
