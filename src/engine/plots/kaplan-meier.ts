import { logChiSquareSurvival } from '../distributions';
import { CIS_SCHEMA, definePlot, JsonSchema } from './plot-kind';

/** The normal quantile of a two-sided 95% interval. */
const Z95 = 1.959963984540054;

export interface KaplanMeierPoint {
  time: number;
  /** samples at risk just before `time` */
  atRisk: number;
  events: number;
  censored: number;
  survival: number;
  /** 95% interval of the survival (Greenwood's variance on the log scale, as R's survfit); absent where undefined */
  cis?: [number, number];
}

/**
 * The Kaplan-Meier estimate of the survival of samples with `time` and `event` (1 = event, 0 = censored), at every
 * distinct time (of an event or a censoring, as R's `survfit` lists them), with Greenwood's 95% interval on the log
 * scale (`conf.type = "log"`, R's default).
 */
export function kaplanMeier(time: ArrayLike<number>, event: ArrayLike<number>, rows?: ArrayLike<number>): KaplanMeierPoint[] {
  const idx = rows ? Array.from(rows) : Array.from({ length: time.length }, (_, i) => i);
  idx.sort((a, b) => time[a] - time[b]);
  const out: KaplanMeierPoint[] = [];
  let atRisk = idx.length;
  let survival = 1;
  let greenwood = 0;
  for (let i = 0; i < idx.length;) {
    const t = time[idx[i]];
    let events = 0;
    let censored = 0;
    for (; i < idx.length && time[idx[i]] === t; i++) {
      if (event[idx[i]] === 1) events++;
      else censored++;
    }
    survival *= 1 - events / atRisk;
    greenwood += atRisk > events ? events / (atRisk * (atRisk - events)) : Infinity;
    const point: KaplanMeierPoint = { time: t, atRisk, events, censored, survival };
    if (survival > 0 && Number.isFinite(greenwood)) {
      const se = Math.sqrt(greenwood);
      point.cis = [survival * Math.exp(-Z95 * se), Math.min(1, survival * Math.exp(Z95 * se))];
    }
    out.push(point);
    atRisk -= events + censored;
  }
  return out;
}

export interface LogRankTest {
  chiSquare: number;
  df: number;
  pValue: number;
}

/** The log-rank test of equal survival in the groups (0..G-1) of the samples, as R's `survdiff` (rho = 0). */
export function logRank(time: ArrayLike<number>, event: ArrayLike<number>, group: ArrayLike<number>): LogRankTest {
  const n = time.length;
  const G = Array.from(group).reduce((m, g) => Math.max(m, g + 1), 0);
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => time[a] - time[b]);
  const atRisk = new Float64Array(G);
  for (let i = 0; i < n; i++) atRisk[group[i]]++;
  const observed = new Float64Array(G);
  const expected = new Float64Array(G);
  const V = Array.from({ length: G }, () => new Float64Array(G));
  for (let i = 0; i < n;) {
    const t = time[order[i]];
    const d = new Float64Array(G);
    const leaving = new Float64Array(G);
    for (; i < n && time[order[i]] === t; i++) {
      const g = group[order[i]];
      if (event[order[i]] === 1) d[g]++;
      leaving[g]++;
    }
    const N = atRisk.reduce((s, v) => s + v, 0);
    const D = d.reduce((s, v) => s + v, 0);
    if (D > 0) {
      const f = N > 1 ? (D * (N - D)) / (N * N * (N - 1)) : 0;
      for (let g = 0; g < G; g++) {
        observed[g] += d[g];
        expected[g] += (D * atRisk[g]) / N;
        for (let h = 0; h < G; h++) V[g][h] += f * atRisk[g] * ((g === h ? N : 0) - atRisk[h]);
      }
    }
    for (let g = 0; g < G; g++) atRisk[g] -= leaving[g];
  }
  // the statistic on the first G - 1 groups (V has rank G - 1), by Gaussian elimination
  const m = G - 1;
  const diff = Array.from({ length: m }, (_, g) => observed[g] - expected[g]);
  const A = Array.from({ length: m }, (_, g) => [...Array.from(V[g].subarray(0, m)), diff[g]]);
  for (let c = 0; c < m; c++) {
    let p = c;
    for (let r = c + 1; r < m; r++) if (Math.abs(A[r][c]) > Math.abs(A[p][c])) p = r;
    [A[c], A[p]] = [A[p], A[c]];
    if (Math.abs(A[c][c]) < 1e-12) return { chiSquare: NaN, df: m, pValue: NaN };
    for (let r = 0; r < m; r++) {
      if (r === c) continue;
      const k = A[r][c] / A[c][c];
      for (let j = c; j <= m; j++) A[r][j] -= k * A[c][j];
    }
  }
  const chiSquare = diff.reduce((s, v, g) => s + (v * A[g][m]) / A[g][g], 0);
  return { chiSquare, df: m, pValue: Math.exp(logChiSquareSurvival(chiSquare, m)) };
}

export interface RiskGroupCurve {
  group: 'low' | 'middle' | 'high';
  count: number;
  events: number;
  /** the lowest and highest out-of-fold risk score of the group */
  riskRange: [number, number];
  curve: KaplanMeierPoint[];
}

export interface KaplanMeierByRiskGroup {
  groups: RiskGroupCurve[];
  logRank: LogRankTest;
}

const GROUPS = ['low', 'middle', 'high'] as const;

/** The thirds of the samples by risk score (ties by sample order): 0 low, 1 middle, 2 high. */
export function riskThirds(risk: ArrayLike<number>): Int32Array {
  const n = risk.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => risk[a] - risk[b] || a - b);
  const group = new Int32Array(n);
  order.forEach((i, rank) => (group[i] = Math.floor((3 * rank) / n)));
  return group;
}

const POINT: JsonSchema = {
  type: 'object',
  properties: {
    time: { type: 'number' },
    atRisk: { type: 'integer' },
    events: { type: 'integer' },
    censored: { type: 'integer' },
    survival: { type: 'number', minimum: 0, maximum: 1 },
    cis: { ...CIS_SCHEMA, description: "95% interval (Greenwood, log scale, as R's survfit); absent where undefined" },
  },
  required: ['time', 'atRisk', 'events', 'censored', 'survival'],
};

/**
 * `Kaplan-Meier by Risk Group` (survival): the samples split into thirds by their out-of-fold risk score, the
 * Kaplan-Meier curve of each third, and the log-rank test of their difference.
 */
export const KAPLAN_MEIER_BY_RISK_GROUP = definePlot({
  name: 'Kaplan-Meier by Risk Group',
  schemaName: 'KaplanMeierByRiskGroup',
  schema: {
    type: 'object',
    properties: {
      groups: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            group: { type: 'string', enum: [...GROUPS] },
            count: { type: 'integer' },
            events: { type: 'integer' },
            riskRange: { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2, description: 'lowest and highest risk score' },
            curve: { type: 'array', items: POINT },
          },
          required: ['group', 'count', 'events', 'riskRange', 'curve'],
        },
      },
      logRank: {
        type: 'object',
        properties: { chiSquare: { type: 'number' }, df: { type: 'integer' }, pValue: { type: 'number' } },
        required: ['chiSquare', 'df', 'pValue'],
      },
    },
    required: ['groups', 'logRank'],
    description: 'Kaplan-Meier curves of the low, middle and high thirds of the out-of-fold risk scores, with the log-rank test',
  },
  appliesTo: (m) => m.task === 'survival',
  async compute(ctx): Promise<KaplanMeierByRiskGroup | undefined> {
    const time = ctx.metric.outcome.y;
    const event = ctx.metric.outcome.event;
    if (!event || ctx.n < 3) return undefined;
    const group = riskThirds(ctx.predictions);
    const groups = GROUPS.map((name, g): RiskGroupCurve => {
      const rows = Array.from({ length: ctx.n }, (_, i) => i).filter((i) => group[i] === g);
      const risks = rows.map((i) => ctx.predictions[i]);
      return {
        group: name,
        count: rows.length,
        events: rows.filter((i) => event[i] === 1).length,
        riskRange: [Math.min(...risks), Math.max(...risks)],
        curve: kaplanMeier(time, event, rows),
      };
    });
    const test = logRank(time, event, group);
    return { groups, logRank: Number.isFinite(test.chiSquare) ? test : { chiSquare: 0, df: 2, pValue: 1 } };
  },
});
