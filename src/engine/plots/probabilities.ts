import { percentile } from '../bbc';
import { definePlot, JsonSchema } from './plot-kind';

/** At most this many samples of each true class are listed one by one (a seeded random choice beyond). */
export const MAX_LISTED_SAMPLES = 1000;

export interface ProbabilitySummary {
  class: string;
  mean: number;
  min: number;
  q1: number;
  median: number;
  q3: number;
  max: number;
  /** the probability of each listed sample (all of them up to 1,000; the same samples for every class) */
  values: number[];
}

export interface ProbabilitiesOfTrueClass {
  trueClass: string;
  count: number;
  probabilities: ProbabilitySummary[];
}

const SUMMARY: JsonSchema = {
  type: 'object',
  properties: {
    class: { type: 'string', description: 'the class whose probability this is' },
    mean: { type: 'number' },
    min: { type: 'number' },
    q1: { type: 'number' },
    median: { type: 'number' },
    q3: { type: 'number' },
    max: { type: 'number' },
    values: {
      type: 'array',
      items: { type: 'number' },
      description: `per sample (at most ${MAX_LISTED_SAMPLES}, chosen at random beyond)`,
    },
  },
  required: ['class', 'mean', 'min', 'q1', 'median', 'q3', 'max', 'values'],
};

/**
 * `Probabilities` (classification): for the samples of each true class, the distribution of the out-of-fold probability
 * of every class (quartiles, mean and the values themselves), as box or violin plots show it.
 */
export const PROBABILITIES = definePlot({
  name: 'Probabilities',
  schemaName: 'Probabilities',
  schema: {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        trueClass: { type: 'string' },
        count: { type: 'integer', description: 'samples of the true class' },
        probabilities: { type: 'array', items: SUMMARY, description: 'one per class, in the order of the classes' },
      },
      required: ['trueClass', 'count', 'probabilities'],
    },
    description: 'out-of-fold probabilities of each class among the samples of each true class',
  },
  appliesTo: (m) => m.task === 'classification',
  async compute(ctx): Promise<ProbabilitiesOfTrueClass[]> {
    const K = ctx.classes.length;
    const rng = ctx.rng(0x9b0);
    return ctx.classes.map((trueClass, t) => {
      const rows = Array.from({ length: ctx.n }, (_, i) => i).filter((i) => ctx.metric.outcome.y[i] === t);
      let listed = rows;
      if (rows.length > MAX_LISTED_SAMPLES) {
        const shuffled = [...rows];
        for (let j = 0; j < MAX_LISTED_SAMPLES; j++) {
          const k = j + rng.int(shuffled.length - j);
          [shuffled[j], shuffled[k]] = [shuffled[k], shuffled[j]];
        }
        listed = shuffled.slice(0, MAX_LISTED_SAMPLES).sort((a, b) => a - b);
      }
      return {
        trueClass,
        count: rows.length,
        probabilities: ctx.classes.map((name, c) => {
          const p = rows.map((i) => ctx.predictions[i * K + c]).sort((a, b) => a - b);
          return {
            class: name,
            mean: p.reduce((s, v) => s + v, 0) / p.length,
            min: p[0],
            q1: percentile(p, 0.25),
            median: percentile(p, 0.5),
            q3: percentile(p, 0.75),
            max: p[p.length - 1],
            values: listed.map((i) => ctx.predictions[i * K + c]),
          };
        }),
      };
    });
  },
});
