import { bootstrapIntervals } from './bootstrap';
import { CIS_SCHEMA, definePlot } from './plot-kind';
import { byTime, censoringDistribution, eventTimeQuartiles, timeDependentAuc } from './survival-metrics';

export interface TimeDependentAucPoint {
  /** a quartile of the event times */
  quantile: number;
  time: number;
  auc: number;
  cis: [number, number];
}

/**
 * `Time-dependent AUC` (survival): at the quartiles of the event times, the cumulative/dynamic AUC of the out-of-fold
 * risk scores (survival-metrics.ts: samples with an event by the time against those event free after it, with inverse
 * probability of censoring weights), with 95% bootstrap intervals (the censoring distribution estimated again on each
 * bootstrap).
 */
export const TIME_DEPENDENT_AUC = definePlot({
  name: 'Time-dependent AUC',
  schemaName: 'TimeDependentAuc',
  schema: {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        quantile: { type: 'number', description: 'the quartile of the event times (0.25, 0.5, 0.75)' },
        time: { type: 'number' },
        auc: {
          type: 'number',
          description:
            'chance that a sample with an event by the time has a higher out-of-fold risk score than one event free after it (IPCW)',
        },
        cis: CIS_SCHEMA,
      },
      required: ['quantile', 'time', 'auc', 'cis'],
    },
    description: 'cumulative/dynamic AUC at the quartiles of the event times',
  },
  appliesTo: (m) => m.task === 'survival',
  async compute(ctx): Promise<TimeDependentAucPoint[] | undefined> {
    const time = ctx.metric.outcome.y;
    const event = ctx.metric.outcome.event;
    if (!event) return undefined;
    const times = eventTimeQuartiles(time, event);
    if (times.length === 0) return undefined;
    const risk = ctx.predictions;
    const order = byTime(time);
    const byRisk = Int32Array.from({ length: ctx.n }, (_, i) => i).sort((a, b) => risk[a] - risk[b] || a - b);
    const stats = await bootstrapIntervals(
      (w) => timeDependentAuc(risk, time, event, w, times, byRisk, censoringDistribution(time, event, w, order)),
      ctx.metric,
      ctx.bootstraps,
      ctx.rng(0x7da),
    );
    return times.map((t, k) => ({ quantile: [0.25, 0.5, 0.75][k], time: t, auc: stats.value[k], cis: stats.cis[k] }));
  },
});
