import { bootstrapIntervals } from './bootstrap';
import { CIS_SCHEMA, definePlot, JsonSchema } from './plot-kind';
import { oneVsRest } from './roc-curve';

export interface ThresholdRow {
  /** samples with a probability at or above it are called positive */
  threshold: number;
  /** samples called positive */
  calledPositive: number;
  sensitivity: number;
  sensitivityCis: [number, number];
  specificity: number;
  specificityCis: [number, number];
  /** positive and negative predictive values: absent when no sample is called positive (negative) */
  ppv?: number;
  ppvCis?: [number, number];
  npv?: number;
  npvCis?: [number, number];
}

export interface ThresholdTable {
  class: string;
  /** at the thresholds 0.05, 0.10, ..., 0.95 */
  rows: ThresholdRow[];
  /** at the threshold that maximises Youden's J (sensitivity + specificity - 1) over the out-of-fold probabilities */
  youden: ThresholdRow & { j: number };
}

export const THRESHOLD_GRID = Array.from({ length: 19 }, (_, k) => Math.round((k + 1) * 5) / 100);

/** Weighted sensitivity, specificity, PPV and NPV of calling positive the scores >= each threshold (4 per threshold). */
export function operatingPoints(
  score: Float64Array,
  positive: Uint8Array,
  w: ArrayLike<number>,
  thresholds: readonly number[],
): Float64Array {
  const out = new Float64Array(4 * thresholds.length);
  thresholds.forEach((t, k) => {
    let tp = 0;
    let fp = 0;
    let tn = 0;
    let fn = 0;
    for (let i = 0; i < score.length; i++) {
      const wi = w[i];
      if (score[i] >= t) {
        if (positive[i]) tp += wi;
        else fp += wi;
      } else if (positive[i]) fn += wi;
      else tn += wi;
    }
    out[4 * k] = tp + fn > 0 ? tp / (tp + fn) : NaN;
    out[4 * k + 1] = tn + fp > 0 ? tn / (tn + fp) : NaN;
    out[4 * k + 2] = tp + fp > 0 ? tp / (tp + fp) : NaN;
    out[4 * k + 3] = tn + fn > 0 ? tn / (tn + fn) : NaN;
  });
  return out;
}

/** The threshold (a distinct score) of the largest sensitivity + specificity - 1; the highest such score on ties. */
export function youdenThreshold(score: Float64Array, positive: Uint8Array): { threshold: number; j: number } {
  const order = Int32Array.from(score.keys()).sort((a, b) => score[b] - score[a] || a - b);
  let P = 0;
  for (const v of positive) P += v;
  const N = score.length - P;
  let tp = 0;
  let fp = 0;
  let best = { threshold: NaN, j: -Infinity };
  for (let k = 0; k < order.length;) {
    const s = score[order[k]];
    for (; k < order.length && score[order[k]] === s; k++) {
      if (positive[order[k]]) tp++;
      else fp++;
    }
    const j = (P > 0 ? tp / P : 0) + (N > 0 ? 1 - fp / N : 0) - 1;
    if (j > best.j) best = { threshold: s, j };
  }
  return best;
}

const ROW: JsonSchema = {
  type: 'object',
  properties: {
    threshold: { type: 'number', description: 'probability at or above which a sample is called positive' },
    calledPositive: { type: 'integer' },
    sensitivity: { type: 'number' },
    sensitivityCis: CIS_SCHEMA,
    specificity: { type: 'number' },
    specificityCis: CIS_SCHEMA,
    ppv: { type: 'number', description: 'positive predictive value; absent when no sample is called positive' },
    ppvCis: CIS_SCHEMA,
    npv: { type: 'number', description: 'negative predictive value; absent when every sample is called positive' },
    npvCis: CIS_SCHEMA,
  },
  required: ['threshold', 'calledPositive', 'sensitivity', 'sensitivityCis', 'specificity', 'specificityCis'],
};

/**
 * `Threshold Table` (binary classification): sensitivity, specificity, PPV and NPV of calling positive the samples whose
 * out-of-fold probability of the positive class is at or above each threshold of a grid (0.05 to 0.95) and at the one
 * that maximises Youden's J, each with a 95% bootstrap interval (the Youden threshold chosen once, on all samples).
 */
export const THRESHOLD_TABLE = definePlot({
  name: 'Threshold Table',
  schemaName: 'ThresholdTable',
  schema: {
    type: 'object',
    properties: {
      class: { type: 'string', description: 'the class called positive' },
      rows: { type: 'array', items: ROW, description: 'at the thresholds 0.05, 0.10, ..., 0.95' },
      youden: {
        type: 'object',
        properties: { ...ROW.properties, j: { type: 'number', description: "Youden's J: sensitivity + specificity - 1" } },
        required: [...(ROW.required ?? []), 'j'],
        description: "at the out-of-fold probability that maximises Youden's J",
      },
    },
    required: ['class', 'rows', 'youden'],
  },
  appliesTo: (m) => m.task === 'classification' && m.classCount === 2,
  async compute(ctx): Promise<ThresholdTable> {
    const { score, positive } = oneVsRest(ctx, 1);
    const youden = youdenThreshold(score, positive);
    const thresholds = [...THRESHOLD_GRID, youden.threshold];
    const stats = await bootstrapIntervals(
      (w) => operatingPoints(score, positive, w, thresholds),
      ctx.metric,
      ctx.bootstraps,
      ctx.rng(0x7ab),
    );
    const row = (k: number): ThresholdRow => {
      const at = (m: number): { v: number; cis: [number, number] } => ({ v: stats.value[4 * k + m], cis: stats.cis[4 * k + m] });
      const [se, sp, ppv, npv] = [0, 1, 2, 3].map(at);
      return {
        threshold: thresholds[k],
        calledPositive: score.reduce((s, v) => s + (v >= thresholds[k] ? 1 : 0), 0),
        sensitivity: se.v,
        sensitivityCis: se.cis,
        specificity: sp.v,
        specificityCis: sp.cis,
        ...(Number.isFinite(ppv.v) ? { ppv: ppv.v, ppvCis: ppv.cis } : {}),
        ...(Number.isFinite(npv.v) ? { npv: npv.v, npvCis: npv.cis } : {}),
      };
    };
    return {
      class: ctx.classes[1],
      rows: THRESHOLD_GRID.map((_, k) => row(k)),
      youden: { ...row(THRESHOLD_GRID.length), j: youden.j },
    };
  },
});
