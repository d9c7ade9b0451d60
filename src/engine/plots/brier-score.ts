import { bootstrapIntervals } from './bootstrap';
import { CIS_SCHEMA, definePlot } from './plot-kind';
import { brierScores, byTime, censoringDistribution, integrated, weightedKaplanMeier, stepAt } from './survival-metrics';

export interface BrierScore {
  /** the Brier score at each time of the grid */
  points: { time: number; brier: number; cis: [number, number] }[];
  /** the integrated Brier score over the grid's range */
  integrated: number;
  integratedCis: [number, number];
  /** the same of the Kaplan-Meier curve of all samples, the prediction that ignores the features */
  reference: number;
}

/**
 * `Brier Score` (survival): the Brier score over time of the predicted survival probabilities, with inverse probability
 * of censoring weights (survival-metrics.ts), and the integrated Brier score with a 95% bootstrap interval, beside that
 * of the Kaplan-Meier curve of all samples (a model that ignores every feature). The probabilities are those of the
 * out-of-fold explanations' refits (the reference signature refitted on each plot fold: the stored out-of-fold
 * predictions are risk scores, not survival curves); the times are the distinct event times up to their third quartile.
 */
export const BRIER_SCORE = definePlot({
  name: 'Brier Score',
  schemaName: 'BrierScore',
  schema: {
    type: 'object',
    properties: {
      points: {
        type: 'array',
        items: {
          type: 'object',
          properties: { time: { type: 'number' }, brier: { type: 'number' }, cis: CIS_SCHEMA },
          required: ['time', 'brier', 'cis'],
        },
        description: 'the Brier score (IPCW) at event times from the first to the third quartile of the event times',
      },
      integrated: { type: 'number', description: 'the integrated Brier score: the mean of the curve over its range (0 is perfect)' },
      integratedCis: CIS_SCHEMA,
      reference: { type: 'number', description: 'the integrated Brier score of the Kaplan-Meier curve of all samples' },
    },
    required: ['points', 'integrated', 'integratedCis', 'reference'],
  },
  appliesTo: (m) => m.task === 'survival',
  fromFinalSelection: true,
  async compute(ctx): Promise<BrierScore | undefined> {
    const time = ctx.metric.outcome.y;
    const event = ctx.metric.outcome.event;
    const curves = (await ctx.explanation)?.survival;
    if (!event || !curves || curves.times.length < 2) return undefined;
    const { times, values } = curves;
    const order = byTime(time);
    const stats = await bootstrapIntervals(
      (w) => {
        const scores = brierScores(values, time, event, w, times, censoringDistribution(time, event, w, order));
        return [...scores, integrated(times, scores)];
      },
      ctx.metric,
      ctx.bootstraps,
      ctx.rng(0xb51),
    );
    const ones = new Float64Array(ctx.n).fill(1);
    const km = weightedKaplanMeier(time, event, ones, order);
    const kmSurvival = Float64Array.from({ length: ctx.n * times.length }, (_, q) => stepAt(km, times[q % times.length]));
    const reference = integrated(times, brierScores(kmSurvival, time, event, ones, times, censoringDistribution(time, event, ones, order)));
    const T = times.length;
    return {
      points: times.map((t, k) => ({ time: t, brier: stats.value[k], cis: stats.cis[k] })),
      integrated: stats.value[T],
      integratedCis: stats.cis[T],
      reference,
    };
  },
});
