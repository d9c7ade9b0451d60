import { bootstrapIntervals } from './bootstrap';
import { CIS_SCHEMA, definePlot } from './plot-kind';
import { MAX_LISTED_SAMPLES } from './probabilities';

export interface PredictedVsActual {
  /** one pair per sample (at most 1,000: a seeded random choice beyond) */
  points: { actual: number; predicted: number }[];
  /** the least-squares line actual = intercept + slope x predicted (0 and 1 when the predictions are calibrated) */
  intercept: number;
  interceptCis: [number, number];
  slope: number;
  slopeCis: [number, number];
  /** 1 - sum (actual - predicted)^2 / sum (actual - mean)^2: the fit around the identity line */
  rSquared: number;
  rSquaredCis: [number, number];
  /** mean of predicted - actual */
  meanError: number;
}

/** Weighted least-squares line of y on x, and the R squared of x as a prediction of y. */
function lineAndFit(x: Float64Array, y: Float64Array, w: Float64Array): [number, number, number] {
  let sw = 0;
  let sx = 0;
  let sy = 0;
  for (let i = 0; i < x.length; i++) {
    sw += w[i];
    sx += w[i] * x[i];
    sy += w[i] * y[i];
  }
  const mx = sx / sw;
  const my = sy / sw;
  let sxy = 0;
  let sxx = 0;
  let sse = 0;
  let sst = 0;
  for (let i = 0; i < x.length; i++) {
    sxy += w[i] * (x[i] - mx) * (y[i] - my);
    sxx += w[i] * (x[i] - mx) ** 2;
    sse += w[i] * (y[i] - x[i]) ** 2;
    sst += w[i] * (y[i] - my) ** 2;
  }
  const slope = sxx > 0 ? sxy / sxx : NaN;
  return [my - slope * mx, slope, sst > 0 ? 1 - sse / sst : NaN];
}

/**
 * `Predicted vs Actual` (regression): the out-of-fold prediction beside the actual value of each sample, with the
 * least-squares line of actual on predicted and the R squared around the identity line, with 95% bootstrap intervals.
 */
export const PREDICTED_VS_ACTUAL = definePlot({
  name: 'Predicted vs Actual',
  schemaName: 'PredictedVsActual',
  schema: {
    type: 'object',
    properties: {
      points: {
        type: 'array',
        items: {
          type: 'object',
          properties: { actual: { type: 'number' }, predicted: { type: 'number' } },
          required: ['actual', 'predicted'],
        },
        description: `one per sample (at most ${MAX_LISTED_SAMPLES}, chosen at random beyond)`,
      },
      intercept: { type: 'number', description: 'of the least-squares line actual = intercept + slope x predicted' },
      interceptCis: CIS_SCHEMA,
      slope: { type: 'number' },
      slopeCis: CIS_SCHEMA,
      rSquared: { type: 'number', description: '1 - SSE / SST of the predictions around the identity line' },
      rSquaredCis: CIS_SCHEMA,
      meanError: { type: 'number', description: 'mean of predicted - actual' },
    },
    required: ['points', 'intercept', 'interceptCis', 'slope', 'slopeCis', 'rSquared', 'rSquaredCis', 'meanError'],
  },
  appliesTo: (m) => m.task === 'regression',
  async compute(ctx): Promise<PredictedVsActual> {
    const y = ctx.metric.outcome.y;
    const x = ctx.predictions;
    const stats = await bootstrapIntervals((w) => lineAndFit(x, y, w), ctx.metric, ctx.bootstraps, ctx.rng(0x9a0));
    let rows = Array.from({ length: ctx.n }, (_, i) => i);
    if (rows.length > MAX_LISTED_SAMPLES) {
      const rng = ctx.rng(0x9a1);
      for (let j = 0; j < MAX_LISTED_SAMPLES; j++) {
        const k = j + rng.int(rows.length - j);
        [rows[j], rows[k]] = [rows[k], rows[j]];
      }
      rows = rows.slice(0, MAX_LISTED_SAMPLES).sort((a, b) => a - b);
    }
    return {
      points: rows.map((i) => ({ actual: y[i], predicted: x[i] })),
      intercept: stats.value[0],
      interceptCis: stats.cis[0],
      slope: stats.value[1],
      slopeCis: stats.cis[1],
      rSquared: stats.value[2],
      rSquaredCis: stats.cis[2],
      meanError: x.reduce((s, v, i) => s + v - y[i], 0) / ctx.n,
    };
  },
});
