/**
 * How each kind of plot of the registry (src/engine/plots.ts) is drawn in the report: one renderer per plot name.
 * `PLOT_RENDERERS` is typed by the registry's names, so a plot kind added there without a renderer here does not
 * compile (and plot-charts.spec.ts checks every registered name draws).
 */
import type { ModelPlots, PlotName } from '../../engine/plots';
import { ChartParts, dataTable, niceDomain, PALETTE, thinEvenly } from './chart-frame';
import { barChart, boxChart, Box, heatMap, lineChart, scatterChart, stepChart } from './charts';
import { interval, num, pct, pValue } from './format';
import { Content, markup, Markup } from './html';

/** What a renderer may need beyond the plot's value. */
export interface PlotRenderContext {
  /** the metric the analysis ranks by (Feature Importance is a drop of it) */
  primaryMetric: string;
  /** the outcome's name (regression: the value predicted; survival: the time feature) */
  outcome: string;
  /** binary classification: the class whose probability is shown */
  positiveClass?: string;
}

export interface RenderedPlot {
  parts: ChartParts;
  /** what the chart shows and how to read it, in words */
  caption: Content;
  /** more of the plot's numbers, shown under the chart */
  extra?: Content;
}

type Renderer<K extends PlotName> = (value: NonNullable<ModelPlots[K]>, ctx: PlotRenderContext) => RenderedPlot;

/** Rows of a long curve's table: at most this many per curve (every value stays available through getPlot). */
const MAX_TABLE_ROWS = 120;
/** Points of a curve drawn: more are not told apart on a 500-unit-wide chart. */
const MAX_DRAWN_POINTS = 400;

const RISK_COLORS = { low: PALETTE[2], middle: PALETTE[4], high: PALETTE[1] } as const;

export const PLOT_RENDERERS: { [K in PlotName]: Renderer<K> } = {
  'Feature Importance': (entries, ctx) => ({
    parts: barChart({
      title: 'Feature Importance',
      bars: entries.map((e) => ({ label: e.name, value: e.value, cis: e.cis })),
      axis: { label: `Relative drop of ${ctx.primaryMetric} without the feature`, percent: true },
      reference: 0,
      labelHeader: 'feature left out',
    }),
    caption: markup`How much the estimate of ${ctx.primaryMetric} falls, relative to that of the whole signature, when the model is refitted
    without the feature. Whiskers: 95% bootstrap intervals; one that reaches below 0 means the model may do as well without the feature.`,
  }),

  'Progressive Feature Importance': (entries, ctx) => ({
    parts: barChart({
      title: 'Progressive Feature Importance',
      bars: entries.map((e, k) => ({
        label: k === 0 ? e.name[0] : `+ ${e.name[e.name.length - 1]}`,
        value: e.value / 100,
        cis: [e.cis[0] / 100, e.cis[1] / 100] as const,
      })),
      axis: { label: `${ctx.primaryMetric} as a share of the whole signature's`, percent: true },
      reference: 1,
      labelHeader: 'features used (added one at a time)',
    }),
    caption: markup`The features added one at a time, from the most important: how much of the whole signature's ${ctx.primaryMetric} the
    first ones reach on their own (100%: all of it). Whiskers: 95% bootstrap intervals.`,
  }),

  'Feature Stability': (entries) => ({
    parts: barChart({
      title: 'Feature Stability',
      bars: entries.map((e) => ({ label: e.name, value: e.value })),
      axis: { label: 'Share of the cross-validation folds that chose the feature', percent: true, domain: [0, 1] },
      labelHeader: 'feature',
      color: PALETTE[2],
    }),
    caption: markup`How often the feature selection, run again on the training samples of each cross-validation fold, chose the feature or one
    of its equivalents. A feature chosen in nearly every fold is a stable finding; one chosen in few depends on which samples happen to be
    in the data.`,
  }),

  'Feature Contributions': (v) => {
    const several = v.outputs.length > 1;
    return {
      parts: barChart({
        title: 'Feature Contributions',
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

  'Partial Dependence': (v, ctx) => {
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
        title: 'Partial Dependence',
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

  'ROC Curve': (entries, ctx) => {
    const binary = entries.length === 1 && ctx.positiveClass !== undefined;
    const name = (e: (typeof entries)[number]) => `${binary ? '' : `${e.class}: `}AUC ${num(e.auc)} (95% interval ${interval(e.cis)})`;
    return {
      parts: lineChart({
        title: 'ROC Curve',
        square: true,
        diagonal: true,
        x: { label: 'False-positive rate (1 \u2212 specificity)', domain: [0, 1] },
        y: { label: 'True-positive rate (sensitivity)', domain: [0, 1] },
        series: entries.map((e) => ({
          name: name(e),
          points: e.points.map((p) => ({ x: p.fpr, y: p.tpr })),
          band: e.band.map((b) => ({ x: b.fpr, cis: b.cis })),
        })),
        table: {
          headers: ['class called positive', 'false-positive rate', 'true-positive rate', '95% interval'],
          rows: entries.flatMap((e) => e.band.map((b) => [e.class, num(b.fpr), num(b.tpr), interval(b.cis)])),
        },
      }),
      caption: binary
        ? markup`How well the out-of-fold probability of <strong>${entries[0].class}</strong> ranks the samples: each point is a threshold,
            above which a sample is called ${entries[0].class}. The area under the curve (AUC) is ${num(entries[0].auc)} (95% interval
            ${interval(entries[0].cis)}): the chance that a random ${entries[0].class} sample gets a higher probability than a random other
            one (0.5: chance, 1: perfect). Band: 95% bootstrap interval.`
        : markup`One curve per class, that class against all the others (one-vs-rest), from the out-of-fold probabilities. The AUC of each is
          the chance that a random sample of the class gets a higher probability of it than a random sample of another class (0.5: chance,
          1: perfect). Bands: 95% bootstrap intervals.`,
    };
  },

  'Precision-Recall Curve': (v) => ({
    parts: lineChart({
      title: 'Precision-Recall Curve',
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

  'Threshold Table': (v) => {
    const cell = (value: number | undefined, cis: readonly [number, number] | undefined): Content =>
      value === undefined ? 'n/a' : markup`${pct(value)} <span class="note">(${interval(cis, pct)})</span>`;
    const rows = [...v.rows.map((r) => ({ r, youden: false })), { r: v.youden, youden: true }].sort(
      (a, b) => a.r.threshold - b.r.threshold,
    );
    return {
      parts: lineChart({
        title: 'Threshold Table',
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

  Calibration: (entries) => ({
    parts: lineChart({
      title: 'Calibration',
      square: true,
      diagonal: true,
      x: { label: 'Predicted probability', domain: [0, 1] },
      y: { label: 'Observed frequency', domain: [0, 1] },
      series: entries.map((e) => ({
        name: `${entries.length > 1 ? `${e.class}: ` : ''}Brier ${num(e.brier)}, calibration error ${num(e.ece)}`,
        markers: true,
        points: e.bins.map((b) => ({
          x: b.meanPredicted,
          y: b.observed,
          cis: b.cis,
          title: `${e.class}, probabilities ${num(b.lower)} to ${num(b.upper)}: ${b.count} samples, mean probability ${num(b.meanPredicted)}, observed ${num(b.observed)} (95% interval ${interval(b.cis)})`,
          // one class: each bin's sample count beside its point (with more classes, in the table)
          ...(entries.length === 1 ? { label: `n=${b.count}` } : {}),
        })),
      })),
      table: {
        headers: ['class', 'probabilities', 'samples', 'mean predicted', 'observed', '95% interval'],
        rows: entries.flatMap((e) =>
          e.bins.map((b) => [
            e.class,
            `${num(b.lower)}\u2013${num(b.upper)}`,
            String(b.count),
            num(b.meanPredicted),
            num(b.observed),
            interval(b.cis),
          ]),
        ),
      },
    }),
    caption: markup`Do the probabilities mean what they say? The samples in 10 bins of equal count by predicted probability
    ${entries.length === 1 ? markup`of <strong>${entries[0].class}</strong> (n: the samples in each bin)` : "(each class against the others; the table gives each bin's samples)"}: the mean probability of
    each bin against the share of its samples that really were of the class. On the diagonal, a predicted 30% happens 30% of the time.
    Whiskers: 95% bootstrap intervals, wide where a bin holds few samples. Brier score: mean squared gap between probability and outcome (0
    is perfect); calibration error: the mean gap between a bin's probability and its observed share.`,
  }),

  'Confusion Matrix': (m) => ({
    parts: heatMap({
      title: 'Confusion Matrix',
      rowLabels: m.classes,
      columnLabels: m.classes,
      counts: m.counts,
      rowHeader: 'true class',
      columnHeader: 'predicted class',
    }),
    caption: markup`Each sample counted once: by its true class (row) and the class the model gave the highest out-of-fold probability
    (column). The diagonal holds the correct calls; the shade is the cell's share of its row.`,
    extra: dataTable(
      'Per class: sensitivity (recall) and precision, with 95% bootstrap intervals',
      ['class', 'samples', 'sensitivity', '95% interval', 'precision', '95% interval'],
      m.perClass.map((p) => [
        p.class,
        String(p.count),
        pct(p.sensitivity),
        interval(p.sensitivityCis, pct),
        p.precision !== undefined ? pct(p.precision) : 'none predicted',
        p.precisionCis ? interval(p.precisionCis, pct) : 'n/a',
      ]),
    ),
  }),

  Probabilities: (groups, ctx) => {
    const positive = ctx.positiveClass;
    const boxes: Box[] = groups.flatMap((g, t) =>
      g.probabilities
        .filter((p) => positive === undefined || p.class === positive)
        .map((p, c) => ({
          label: positive !== undefined ? `true ${g.trueClass} (${g.count})` : `P(${p.class})`,
          group: positive !== undefined ? undefined : `true class ${g.trueClass} (${g.count} samples)`,
          min: p.min,
          q1: p.q1,
          median: p.median,
          q3: p.q3,
          max: p.max,
          mean: p.mean,
          color: PALETTE[(positive !== undefined ? t : c) % PALETTE.length],
        })),
    );
    return {
      parts: boxChart({
        title: 'Probabilities',
        boxes,
        axis: { label: positive !== undefined ? `Out-of-fold probability of ${positive}` : 'Out-of-fold probability', domain: [0, 1] },
        labelHeader: positive !== undefined ? 'true class (samples)' : 'true class: probability of',
      }),
      caption:
        positive !== undefined
          ? markup`The out-of-fold probability of <strong>${positive}</strong> among the samples of each true class: boxes from the first to
              the third quartile, a line at the median, whiskers to the lowest and highest value, a dot at the mean. Well separated boxes
              mean the probability tells the classes apart.`
          : markup`For the samples of each true class, the out-of-fold probability the model gave each class: boxes from the first to the
            third quartile, a line at the median, whiskers to the lowest and highest value, a dot at the mean.`,
    };
  },

  'Predicted vs Actual': (v, ctx) => {
    const all = v.points.flatMap((p) => [p.actual, p.predicted]);
    // one square domain for both axes, widened to round ticks: the diagonal is the identity
    const [lo, hi] = niceDomain(all);
    return {
      parts: scatterChart({
        title: 'Predicted vs Actual',
        square: true,
        diagonal: true,
        x: { label: `Predicted ${ctx.outcome}`, domain: [lo, hi] },
        y: { label: `Actual ${ctx.outcome}`, domain: [lo, hi] },
        series: [
          {
            name: `samples (${v.points.length})`,
            points: v.points.map((p) => ({ x: p.predicted, y: p.actual, title: `predicted ${num(p.predicted)}, actual ${num(p.actual)}` })),
          },
        ],
        lines: [
          {
            name: `least squares: actual = ${num(v.intercept)} + ${num(v.slope)} \u00d7 predicted`,
            intercept: v.intercept,
            slope: v.slope,
          },
        ],
        table: {
          headers: ['sample', 'predicted', 'actual'],
          rows: v.points.map((p, i) => [String(i + 1), num(p.predicted), num(p.actual)]),
        },
      }),
      caption: markup`Each sample's out-of-fold prediction against its actual value. On the diagonal the prediction is exact. R squared around
      the diagonal: ${num(v.rSquared)} (95% interval ${interval(v.rSquaredCis)}); least-squares slope ${num(v.slope)}
      (${interval(v.slopeCis)}) and intercept ${num(v.intercept)} (${interval(v.interceptCis)}): a slope of 1 and an intercept of 0 mean the
      predictions are not systematically too high or too low. Mean error (predicted − actual): ${num(v.meanError)}.`,
    };
  },

  'Kaplan-Meier by Risk Group': (v, ctx) => ({
    parts: stepChart({
      title: 'Kaplan-Meier by Risk Group',
      x: { label: `Time (${ctx.outcome})` },
      y: { label: 'Survival probability', domain: [0, 1] },
      series: v.groups.map((g) => {
        const curve = thinEvenly(g.curve, MAX_DRAWN_POINTS);
        return {
          name: `${g.group} risk: ${g.count} samples, ${g.events} events`,
          color: RISK_COLORS[g.group],
          points: [{ x: 0, y: 1 }, ...curve.map((p) => ({ x: p.time, y: p.survival }))],
          band: [{ x: 0, cis: [1, 1] as const }, ...curve.map((p) => ({ x: p.time, cis: p.cis }))],
        };
      }),
      table: {
        headers: ['risk group', 'time', 'at risk', 'events', 'censored', 'survival', '95% interval'],
        rows: v.groups.flatMap((g) =>
          thinEvenly(g.curve, MAX_TABLE_ROWS).map((p) => [
            g.group,
            num(p.time),
            String(p.atRisk),
            String(p.events),
            String(p.censored),
            num(p.survival),
            p.cis ? interval(p.cis) : 'n/a',
          ]),
        ),
      },
    }),
    caption: markup`The samples split into thirds by their out-of-fold risk score (low, middle, high), and the Kaplan-Meier survival curve of
    each, with 95% intervals (Greenwood, log scale). Curves far apart mean the risk score separates early from late events. Log-rank test of
    a difference between the groups: chi-square ${num(v.logRank.chiSquare)} on ${v.logRank.df} degrees of freedom, p
    ${pValue(v.logRank.pValue).startsWith('<') ? pValue(v.logRank.pValue) : `= ${pValue(v.logRank.pValue)}`}.`,
    extra: dataTable(
      'Risk groups',
      ['risk group', 'samples', 'events', 'risk scores'],
      v.groups.map((g) => [g.group, String(g.count), String(g.events), `${num(g.riskRange[0])} to ${num(g.riskRange[1])}`]),
    ),
  }),

  'Time-dependent AUC': (points, ctx) => ({
    parts: lineChart({
      title: 'Time-dependent AUC',
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

  'Brier Score': (v, ctx) => ({
    parts: stepChart({
      title: 'Brier Score',
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

/** The renderer of a plot name, when this version of the report knows it (a stored plot of a later kind is skipped). */
export function rendererOf(name: string): Renderer<PlotName> | undefined {
  return Object.prototype.hasOwnProperty.call(PLOT_RENDERERS, name) ? (PLOT_RENDERERS[name as PlotName] as Renderer<PlotName>) : undefined;
}
