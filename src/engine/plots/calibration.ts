import { bootstrapIntervals } from './bootstrap';
import { CIS_SCHEMA, definePlot } from './plot-kind';
import { oneVsRest, shownClasses } from './roc-curve';

export const CALIBRATION_BINS = 10;

export interface CalibrationBin {
  /** the bin holds probabilities in [lower, upper) (the last one includes 1) */
  lower: number;
  upper: number;
  count: number;
  meanPredicted: number;
  /** the fraction of the bin's samples of the class */
  observed: number;
  cis: [number, number];
}

export interface CalibrationEntry {
  class: string;
  bins: CalibrationBin[];
  /** mean squared difference between the probability and the 0/1 outcome */
  brier: number;
  /** expected calibration error: the mean over samples of |observed - meanPredicted| of their bin */
  ece: number;
}

/** The bin (0..9) of a probability among 10 of equal width. */
export function binOf(p: number): number {
  return Math.min(CALIBRATION_BINS - 1, Math.max(0, Math.floor(p * CALIBRATION_BINS)));
}

/** Brier score and expected calibration error (10 equal-width bins) of probabilities of a 0/1 outcome. */
export function calibrationErrors(p: ArrayLike<number>, positive: ArrayLike<number>): { brier: number; ece: number } {
  const count = new Float64Array(CALIBRATION_BINS);
  const sumP = new Float64Array(CALIBRATION_BINS);
  const sumY = new Float64Array(CALIBRATION_BINS);
  let brier = 0;
  for (let i = 0; i < p.length; i++) {
    const b = binOf(p[i]);
    count[b]++;
    sumP[b] += p[i];
    sumY[b] += positive[i];
    brier += (p[i] - positive[i]) ** 2;
  }
  let ece = 0;
  for (let b = 0; b < CALIBRATION_BINS; b++) ece += Math.abs(sumY[b] - sumP[b]);
  return { brier: brier / p.length, ece: ece / p.length };
}

/**
 * `Calibration` (classification): the out-of-fold probabilities of the positive class (of each class, one-vs-rest, for
 * more than two) in 10 bins of equal width: per non-empty bin the mean probability, the observed frequency of the class
 * with a 95% bootstrap interval, and the count; with the Brier score and the expected calibration error.
 */
export const CALIBRATION = definePlot({
  name: 'Calibration',
  schemaName: 'Calibration',
  schema: {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        class: { type: 'string' },
        bins: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              lower: { type: 'number' },
              upper: { type: 'number' },
              count: { type: 'integer' },
              meanPredicted: { type: 'number' },
              observed: { type: 'number', description: 'fraction of the samples of the bin that are of the class' },
              cis: CIS_SCHEMA,
            },
            required: ['lower', 'upper', 'count', 'meanPredicted', 'observed', 'cis'],
          },
          description: 'the non-empty bins among 10 of width 0.1',
        },
        brier: { type: 'number', description: 'Brier score' },
        ece: { type: 'number', description: 'expected calibration error over the 10 bins' },
      },
      required: ['class', 'bins', 'brier', 'ece'],
    },
    description: 'one entry per class shown: the positive class of a binary outcome, each class (one-vs-rest) of more',
  },
  appliesTo: (m) => m.task === 'classification',
  async compute(ctx): Promise<CalibrationEntry[]> {
    const rng = ctx.rng(0xca1);
    const entries: CalibrationEntry[] = [];
    for (const c of shownClasses(ctx)) {
      const { score, positive } = oneVsRest(ctx, c);
      const bin = Int32Array.from(score, binOf);
      const count = new Float64Array(CALIBRATION_BINS);
      const sumP = new Float64Array(CALIBRATION_BINS);
      const sumY = new Float64Array(CALIBRATION_BINS);
      const observed = (w: Float64Array): Float64Array => {
        count.fill(0);
        sumY.fill(0);
        for (let i = 0; i < ctx.n; i++) {
          count[bin[i]] += w[i];
          sumY[bin[i]] += w[i] * positive[i];
        }
        return Float64Array.from(count, (k, b) => (k > 0 ? sumY[b] / k : NaN));
      };
      const stats = await bootstrapIntervals(observed, ctx.metric, ctx.bootstraps, rng);
      count.fill(0);
      for (let i = 0; i < ctx.n; i++) {
        count[bin[i]]++;
        sumP[bin[i]] += score[i];
      }
      const bins: CalibrationBin[] = [];
      for (let b = 0; b < CALIBRATION_BINS; b++) {
        if (count[b] === 0) continue;
        bins.push({
          lower: b / CALIBRATION_BINS,
          upper: (b + 1) / CALIBRATION_BINS,
          count: count[b],
          meanPredicted: sumP[b] / count[b],
          observed: stats.value[b],
          cis: stats.cis[b],
        });
      }
      entries.push({ class: ctx.classes[c], bins, ...calibrationErrors(score, positive) });
    }
    return entries;
  },
});
