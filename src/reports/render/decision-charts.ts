/**
 * How the plots that explain a model and help choose its operating point are drawn in the report: Feature
 * Contributions, Partial Dependence, the Precision-Recall Curve and the Threshold Table, the Time-dependent AUC and the
 * Brier Score. plot-charts.ts's PLOT_RENDERERS takes them in.
 */
import { PALETTE, thinEvenly, dataTable } from './chart-frame';
import { barChart, lineChart, stepChart } from './charts';
import { interval, num, pct } from './format';
import { Content, markup, Markup } from './html';
import { MAX_TABLE_ROWS, Renderer } from './plot-renderer';
import { BRIER_SCORE } from '../../engine/plots/brier-score';
import { FEATURE_CONTRIBUTIONS } from '../../engine/plots/feature-contributions';
import { PARTIAL_DEPENDENCE } from '../../engine/plots/partial-dependence';
import { PRECISION_RECALL_CURVE } from '../../engine/plots/precision-recall';
import { THRESHOLD_TABLE } from '../../engine/plots/threshold-table';
import { TIME_DEPENDENT_AUC } from '../../engine/plots/time-dependent-auc';

type DecisionPlot =
  | (typeof FEATURE_CONTRIBUTIONS)['name']
  | (typeof PARTIAL_DEPENDENCE)['name']
  | (typeof PRECISION_RECALL_CURVE)['name']
  | (typeof THRESHOLD_TABLE)['name']
  | (typeof TIME_DEPENDENT_AUC)['name']
  | (typeof BRIER_SCORE)['name'];

export const DECISION_RENDERERS: { [K in DecisionPlot]: Renderer<K> } = {
  [FEATURE_CONTRIBUTIONS.name]: (v) => {
    const several = v.outputs.length > 1;
    return {
      parts: barChart({
        title: FEATURE_CONTRIBUTIONS.name,
        bars: v.outputs.flatMap((o) =>
          o.features.map((f) => ({ label: several ? `${o.class}: ${f.name}` : f.name, value: f.value, cis: f.cis })),
        ),
        axis: { label: `Mean absolute contribution (${v.scale}${several ? ' of each class' : ''})` },
        labelHeader: several ? 'class: feature' : 'feature',
        color: PALETTE[5],
      }),
      caption: markup`How much each feature moved the model's predictions, on average and in either direction: the mean over the samples of
      the absolute Shapley value of its contribution, on the ${v.scale} scale${v.outputs.length === 1 && v.outputs[0].class ? markup` of <strong>${v.outputs[0].class}</strong>` : ''}.
      Each sample is explained by the model refitted without it (the signature refitted on the other folds), against a background of 100
      of that model's training samples: the contributions and a base value (the mean prediction over the background) add up to the
      prediction. Whiskers: 95% bootstrap intervals. Unlike Feature Importance, this says how much a feature changes the predictions, not
      how much the model would lose without it.`,
    };
  },

  [PARTIAL_DEPENDENCE.name]: (v, ctx) => {
    const what =
      v.output === 'probability'
        ? 'Probability'
        : v.output === 'prediction'
          ? `Predicted ${ctx.outcome}`
          : `Probability of surviving past ${num(v.survivalTime ?? NaN)}`;
    const charts = v.features.map((f) => {
      const categorical = f.kind === 'categorical';
      const xs = f.grid;
      const label = (k: number): string => (categorical ? (f.labels?.[k] ?? String(k)) : num(f.grid[k]));
      const series = f.outputs.flatMap((o, c) => [
        ...(f.outputs.length === 1
          ? o.curves.map((curve) => ({
              name: `sample ${curve.row + 1}`,
              points: curve.values.map((y, k) => ({ x: xs[k], y })),
              color: '#BBBBBB',
              shape: categorical ? ('points' as const) : ('line' as const),
            }))
          : []),
        {
          name: `${o.class !== undefined ? `${o.class}: ` : ''}average`,
          points: o.average.map((y, k) => ({ x: xs[k], y, title: `${f.feature} = ${label(k)}: ${num(y)}` })),
          color: PALETTE[c % PALETTE.length],
          markers: categorical,
          shape: categorical ? ('points' as const) : ('line' as const),
        },
      ]);
      return lineChart({
        title: PARTIAL_DEPENDENCE.name,
        x: { label: categorical ? `${f.feature} (categories: ${f.grid.map(label).join(', ')})` : f.feature },
        y: { label: what, ...(v.output === 'prediction' ? {} : { domain: [0, 1] as [number, number] }) },
        series,
        table: {
          headers: [f.feature, ...f.outputs.map((o) => `${o.class !== undefined ? `${o.class}: ` : ''}average`)],
          rows: f.grid.map((_, k) => [label(k), ...f.outputs.map((o) => num(o.average[k]))]),
        },
      });
    });
    const join = (parts: Markup[]): Markup => markup`${parts}`;
    return {
      parts: {
        svg: join(charts.map((c) => c.svg)),
        table: join(charts.map((c) => c.table)),
        ...(charts[0]?.legend ? { legend: charts[0].legend } : {}),
      },
      caption: markup`How the final model's ${v.output === 'survival probability' ? `probability of surviving past ${num(v.survivalTime ?? NaN)} (the median observed time)` : v.output === 'probability' ? 'probability' : 'prediction'}
      moves as one feature moves over its observed range, the others kept at each sample's own values: the coloured line is the average
      over the samples (partial dependence), the grey lines some samples one by one (individual conditional expectation). Parallel grey
      lines mean the feature acts the same way for everyone; crossing ones, that its effect depends on the other features. A linear model's
      average is a straight line with its coefficient as slope.`,
    };
  },

  [PRECISION_RECALL_CURVE.name]: (v) => ({
    parts: lineChart({
      title: PRECISION_RECALL_CURVE.name,
      square: true,
      x: { label: 'Recall (sensitivity)', domain: [0, 1] },
      y: { label: 'Precision (positive predictive value)', domain: [0, 1] },
      series: [
        {
          name: `average precision ${num(v.averagePrecision)} (95% interval ${interval(v.cis)})`,
          points: v.points.map((p) => ({
            x: p.recall,
            y: p.precision,
            title: `threshold ${num(p.threshold)}: recall ${num(p.recall)}, precision ${num(p.precision)}`,
          })),
        },
      ],
      lines: [
        {
          name: `prevalence ${pct(v.prevalence)}: a ranking at random`,
          intercept: v.prevalence,
          slope: 0,
          dashed: true,
          color: PALETTE[6],
        },
      ],
      table: {
        headers: ['threshold', 'recall', 'precision'],
        rows: thinEvenly(v.points, MAX_TABLE_ROWS).map((p) => [num(p.threshold), num(p.recall), num(p.precision)]),
      },
    }),
    caption: markup`Of the samples called <strong>${v.class}</strong> (out-of-fold probability at or above a threshold), the share that are
    (precision), against the share of the ${v.class} samples found (recall), at every threshold. The average precision, ${num(v.averagePrecision)}
    (95% interval ${interval(v.cis)}), sums the precision over the recall gained; a ranking at random reaches the prevalence,
    ${pct(v.prevalence)}. Where the class is rare this curve shows more than the ROC curve.`,
  }),

  [THRESHOLD_TABLE.name]: (v) => {
    const cell = (value: number | undefined, cis: readonly [number, number] | undefined): Content =>
      value === undefined ? 'n/a' : markup`${pct(value)} <span class="note">(${interval(cis, pct)})</span>`;
    const rows = [...v.rows.map((r) => ({ r, youden: false })), { r: v.youden, youden: true }].sort(
      (a, b) => a.r.threshold - b.r.threshold,
    );
    return {
      parts: lineChart({
        title: THRESHOLD_TABLE.name,
        x: { label: `Threshold on the probability of ${v.class}`, domain: [0, 1] },
        y: { label: 'Rate', domain: [0, 1], percent: true },
        series: (['sensitivity', 'specificity', 'ppv', 'npv'] as const).map((key, c) => ({
          name: {
            sensitivity: 'sensitivity',
            specificity: 'specificity',
            ppv: 'positive predictive value',
            npv: 'negative predictive value',
          }[key],
          color: PALETTE[c],
          markers: true,
          points: v.rows.flatMap((r) => {
            const y = r[key];
            const cis = r[`${key}Cis` as 'sensitivityCis'];
            return y === undefined ? [] : [{ x: r.threshold, y, cis }];
          }),
        })),
        table: {
          headers: ['threshold', 'called positive', 'sensitivity', 'specificity', 'PPV', 'NPV'],
          rows: rows.map(({ r, youden }) => [
            youden ? markup`<strong>${num(r.threshold)} (Youden)</strong>` : num(r.threshold),
            String(r.calledPositive),
            cell(r.sensitivity, r.sensitivityCis),
            cell(r.specificity, r.specificityCis),
            cell(r.ppv, r.ppvCis),
            cell(r.npv, r.npvCis),
          ]),
        },
      }),
      caption: markup`What calling <strong>${v.class}</strong> every sample whose out-of-fold probability is at or above a threshold would do:
      the share of ${v.class} samples caught (sensitivity), of the others cleared (specificity), and how often a positive (PPV) or negative
      (NPV) call is right, with 95% bootstrap intervals. The threshold ${num(v.youden.threshold)} maximises Youden's J (sensitivity +
      specificity − 1 = ${num(v.youden.j)}): sensitivity ${pct(v.youden.sensitivity)}, specificity ${pct(v.youden.specificity)}. PPV and NPV
      hold at this data's prevalence only.`,
      extra: dataTable(
        'Operating points, with 95% bootstrap intervals',
        ['threshold', 'called positive', 'sensitivity', 'specificity', 'PPV', 'NPV'],
        rows.map(({ r, youden }) => [
          youden ? `${num(r.threshold)} (Youden)` : num(r.threshold),
          String(r.calledPositive),
          cell(r.sensitivity, r.sensitivityCis),
          cell(r.specificity, r.specificityCis),
          cell(r.ppv, r.ppvCis),
          cell(r.npv, r.npvCis),
        ]),
      ),
    };
  },

  [TIME_DEPENDENT_AUC.name]: (points, ctx) => ({
    parts: lineChart({
      title: TIME_DEPENDENT_AUC.name,
      x: { label: `Time (${ctx.outcome})` },
      y: { label: 'AUC at the time', domain: [0, 1] },
      series: [
        {
          name: 'cumulative/dynamic AUC',
          markers: true,
          points: points.map((p) => ({
            x: p.time,
            y: p.auc,
            cis: p.cis,
            title: `time ${num(p.time)}: AUC ${num(p.auc)} (95% interval ${interval(p.cis)})`,
          })),
        },
      ],
      lines: [{ name: 'chance', intercept: 0.5, slope: 0, dashed: true, color: PALETTE[6] }],
      table: {
        headers: ['quartile of the event times', 'time', 'AUC', '95% interval'],
        rows: points.map((p) => [pct(p.quantile, 0), num(p.time), num(p.auc), interval(p.cis)]),
      },
    }),
    caption: markup`At each quartile of the event times, the chance that a sample whose event came by then has a higher out-of-fold risk score
    than one still event free after it (0.5: chance, 1: perfect), with the censored samples accounted for by inverse probability of censoring
    weights. Whiskers: 95% bootstrap intervals. A falling AUC means the risk score tells early events apart better than late ones.`,
  }),

  [BRIER_SCORE.name]: (v, ctx) => ({
    parts: stepChart({
      title: BRIER_SCORE.name,
      x: { label: `Time (${ctx.outcome})` },
      y: { label: 'Brier score' },
      series: [
        {
          name: `model: integrated ${num(v.integrated)} (95% interval ${interval(v.integratedCis)})`,
          points: v.points.map((p) => ({ x: p.time, y: p.brier })),
          band: v.points.map((p) => ({ x: p.time, cis: p.cis })),
        },
      ],
      lines: [
        {
          name: `Kaplan-Meier of all samples (no features): integrated ${num(v.reference)}`,
          intercept: v.reference,
          slope: 0,
          dashed: true,
          color: PALETTE[6],
        },
      ],
      table: {
        headers: ['time', 'Brier score', '95% interval'],
        rows: v.points.map((p) => [num(p.time), num(p.brier), interval(p.cis)]),
      },
    }),
    caption: markup`The mean squared gap between the predicted probability of surviving past each time and what happened (1 survived, 0 not),
    censored samples accounted for by inverse probability of censoring weights (0 is perfect; 0.25 is what a constant 50% gives). The
    integrated Brier score, ${num(v.integrated)} (95% interval ${interval(v.integratedCis)}), averages it over the times shown; the
    Kaplan-Meier curve of all samples, which ignores the features, scores ${num(v.reference)}. The probabilities are those of the signature
    refitted on the folds that held each sample out. Band: 95% bootstrap intervals.`,
  }),
};
