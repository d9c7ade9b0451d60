import { CALIBRATION_BINS, calibrationErrors, equalCountBins } from '../calibration';
import { bootstrapIntervals, POOLED_BOOTSTRAP_STREAM } from './bootstrap';
import { CIS_SCHEMA, definePlot } from './plot-kind';
import { oneVsRest, shownClasses } from './roc-curve';

export { calibrationErrors };

export interface CalibrationBin {
  /** the lowest and the highest probability in the bin */
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
  /** expected calibration error: the mean over samples of |observed - meanPredicted| of their bin (the bins shown) */
  ece: number;
}

/**
 * `Calibration` (classification): the out-of-fold probabilities of the positive class (of each class, one-vs-rest, for
 * more than two) in 10 bins of equal count (calibration.ts, equalCountBins: a bin of two samples would show noise as
 * miscalibration): per bin the range of its probabilities, their mean, the observed frequency of the class with a 95%
 * bootstrap interval, and the count; with the Brier score and the expected calibration error over the same bins.
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
              lower: { type: 'number', description: 'the lowest probability in the bin' },
              upper: { type: 'number', description: 'the highest probability in the bin' },
              count: { type: 'integer', description: 'samples in the bin' },
              meanPredicted: { type: 'number' },
              observed: { type: 'number', description: 'fraction of the samples of the bin that are of the class' },
              cis: CIS_SCHEMA,
            },
            required: ['lower', 'upper', 'count', 'meanPredicted', 'observed', 'cis'],
          },
          description: 'bins of equal count (10, fewer when probabilities tie), from the lowest probabilities',
        },
        brier: { type: 'number', description: 'Brier score' },
        ece: { type: 'number', description: 'expected calibration error over the bins' },
      },
      required: ['class', 'bins', 'brier', 'ece'],
    },
    description: 'one entry per class shown: the positive class of a binary outcome, each class (one-vs-rest) of more',
  },
  appliesTo: (m) => m.task === 'classification',
  async compute(ctx): Promise<CalibrationEntry[]> {
    const rng = ctx.rng(POOLED_BOOTSTRAP_STREAM);
    const entries: CalibrationEntry[] = [];
    for (const c of shownClasses(ctx)) {
      const { score, positive } = oneVsRest(ctx, c);
      const bin = equalCountBins(score);
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
      const lower = new Float64Array(CALIBRATION_BINS).fill(Infinity);
      const upper = new Float64Array(CALIBRATION_BINS).fill(-Infinity);
      for (let i = 0; i < ctx.n; i++) {
        count[bin[i]]++;
        sumP[bin[i]] += score[i];
        lower[bin[i]] = Math.min(lower[bin[i]], score[i]);
        upper[bin[i]] = Math.max(upper[bin[i]], score[i]);
      }
      const bins: CalibrationBin[] = [];
      for (let b = 0; b < CALIBRATION_BINS; b++) {
        if (count[b] === 0) continue;
        bins.push({
          lower: lower[b],
          upper: upper[b],
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
