/**
 * How each kind of plot of the registry (src/engine/plots.ts) is drawn in the report: one renderer per plot name.
 * `PLOT_RENDERERS` is typed by the registry's names, so a plot kind added there without a renderer here does not
 * compile (and plot-charts.spec.ts checks every registered name draws).
 */
import type { PlotName } from '../../engine/plots';
import { CALIBRATION } from '../../engine/plots/calibration';
import { CONFUSION_MATRIX } from '../../engine/plots/confusion-matrix';
import { FEATURE_IMPORTANCE } from '../../engine/plots/feature-importance';
import { FEATURE_STABILITY } from '../../engine/plots/feature-stability';
import { KAPLAN_MEIER_BY_RISK_GROUP } from '../../engine/plots/kaplan-meier';
import { PREDICTED_VS_ACTUAL } from '../../engine/plots/predicted-vs-actual';
import { PROBABILITIES } from '../../engine/plots/probabilities';
import { PROGRESSIVE_FEATURE_IMPORTANCE } from '../../engine/plots/progressive-feature-importance';
import { ROC_CURVE } from '../../engine/plots/roc-curve';
import { dataTable, niceDomain, PALETTE, thinEvenly } from './chart-frame';
import { barChart, boxChart, Box, heatMap, lineChart, scatterChart, stepChart } from './charts';
import { interval, num, pct, pValue } from './format';
import { markup } from './html';
import { DECISION_RENDERERS } from './decision-charts';
import { largestClasses, summarisedMatrix } from './many-classes';
import { MAX_DRAWN_POINTS, MAX_TABLE_ROWS, Renderer } from './plot-renderer';

export type { PlotRenderContext, RenderedPlot } from './plot-renderer';

const RISK_COLORS = { low: PALETTE[2], middle: PALETTE[4], high: PALETTE[1] } as const;

export const PLOT_RENDERERS: { [K in PlotName]: Renderer<K> } = {
  ...DECISION_RENDERERS,
  [FEATURE_IMPORTANCE.name]: (entries, ctx) => ({
    parts: barChart({
      title: FEATURE_IMPORTANCE.name,
      bars: entries.map((e) => ({ label: e.name, value: e.value, cis: e.cis })),
      axis: { label: `Relative drop of ${ctx.primaryMetric} without the feature`, percent: true },
      reference: 0,
      labelHeader: 'feature left out',
    }),
    caption: markup`How much the estimate of ${ctx.primaryMetric} falls, relative to that of the whole signature, when the model is refitted
    without the feature. Whiskers: 95% bootstrap intervals; one that reaches below 0 means the model may do as well without the feature.`,
  }),

  [PROGRESSIVE_FEATURE_IMPORTANCE.name]: (entries, ctx) => ({
    parts: barChart({
      title: PROGRESSIVE_FEATURE_IMPORTANCE.name,
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

  [FEATURE_STABILITY.name]: (entries) => ({
    parts: barChart({
      title: FEATURE_STABILITY.name,
      bars: entries.map((e) => ({ label: e.name, value: e.value })),
      axis: { label: 'Share of the cross-validation folds that chose the feature', percent: true, domain: [0, 1] },
      labelHeader: 'feature',
      color: PALETTE[2],
    }),
    caption: markup`How often the feature selection, run again on the training samples of each cross-validation fold, chose the feature or one
    of its equivalents. A feature chosen in nearly every fold is a stable finding; one chosen in few depends on which samples happen to be
    in the data.`,
  }),

  [ROC_CURVE.name]: (all, ctx) => {
    const binary = all.length === 1 && ctx.positiveClass !== undefined;
    const shown = largestClasses(
      all.map((e) => e.class),
      (c) => ctx.classSizes?.[c] ?? 0,
    );
    const entries = all.filter((e) => shown.has(e.class));
    const name = (e: (typeof entries)[number]) => `${binary ? '' : `${e.class}: `}AUC ${num(e.auc)} (95% interval ${interval(e.cis)})`;
    return {
      parts: lineChart({
        title: ROC_CURVE.name,
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
          1: perfect). Bands: 95% bootstrap intervals.${manyNote(all.length, entries.length)}`,
    };
  },

  [CALIBRATION.name]: (entries) => ({
    parts: lineChart({
      title: CALIBRATION.name,
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

  [CONFUSION_MATRIX.name]: (m) => {
    const shown = summarisedMatrix(m.classes, m.counts);
    return {
      parts: heatMap({
        title: CONFUSION_MATRIX.name,
        rowLabels: shown.labels,
        columnLabels: shown.labels,
        counts: shown.counts,
        rowHeader: 'true class',
        columnHeader: 'predicted class',
      }),
      caption: markup`Each sample counted once: by its true class (row) and the class the model gave the highest out-of-fold probability
    (column). The diagonal holds the correct calls; the shade is the cell's share of its row.${
      shown.labels.length < m.classes.length
        ? ` The ${shown.labels.length - 1} largest of the ${m.classes.length} classes are shown one by one; the others are summed as "${shown.labels[shown.labels.length - 1]}" (every count is in the plot's values, getPlot).`
        : ''
    }`,
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
    };
  },

  [PROBABILITIES.name]: (all, ctx) => {
    const positive = ctx.positiveClass;
    // many classes: the largest, each with the probability of its own class only (K boxes, not K x K)
    const shown = largestClasses(
      all.map((g) => g.trueClass),
      (c) => all.find((g) => g.trueClass === c)?.count ?? 0,
    );
    const many = shown.size < all.length;
    const groups = all.filter((g) => shown.has(g.trueClass));
    const boxes: Box[] = groups.flatMap((g, t) =>
      g.probabilities
        .filter((p) => (positive === undefined || p.class === positive) && (!many || p.class === g.trueClass))
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
        title: PROBABILITIES.name,
        boxes,
        axis: { label: positive !== undefined ? `Out-of-fold probability of ${positive}` : 'Out-of-fold probability', domain: [0, 1] },
        labelHeader: positive !== undefined ? 'true class (samples)' : 'true class: probability of',
      }),
      caption:
        positive !== undefined
          ? markup`The out-of-fold probability of <strong>${positive}</strong> among the samples of each true class: boxes from the first to
              the third quartile, a line at the median, whiskers to the lowest and highest value, a dot at the mean. Well separated boxes
              mean the probability tells the classes apart.`
          : markup`For the samples of each true class, the out-of-fold probability the model gave ${many ? 'that class' : 'each class'}: boxes from the
            first to the third quartile, a line at the median, whiskers to the lowest and highest value, a dot at the mean.${manyNote(all.length, groups.length, ', each with the probability of its own class')}`,
    };
  },

  [PREDICTED_VS_ACTUAL.name]: (v, ctx) => {
    const all = v.points.flatMap((p) => [p.actual, p.predicted]);
    // one square domain for both axes, widened to round ticks: the diagonal is the identity
    const [lo, hi] = niceDomain(all);
    return {
      parts: scatterChart({
        title: PREDICTED_VS_ACTUAL.name,
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

  [KAPLAN_MEIER_BY_RISK_GROUP.name]: (v, ctx) => ({
    parts: stepChart({
      title: KAPLAN_MEIER_BY_RISK_GROUP.name,
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
};

/** What a chart of many classes leaves out, in words (nothing when it shows them all). */
function manyNote(classes: number, shown: number, how = ''): string {
  return shown < classes
    ? ` Of ${classes} classes, the ${shown} largest are shown${how} (every value is in the plot's values, getPlot).`
    : '';
}

/** The renderer of a plot name, when this version of the report knows it (a stored plot of a later kind is skipped). */
export function rendererOf(name: string): Renderer<PlotName> | undefined {
  return Object.prototype.hasOwnProperty.call(PLOT_RENDERERS, name) ? (PLOT_RENDERERS[name as PlotName] as Renderer<PlotName>) : undefined;
}
