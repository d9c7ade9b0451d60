/**
 * The words and small pieces the report's sections are written with: the task and outcome in words, what each metric
 * means, the models' headings, feature orders, lists, facts and interval strips.
 */
import { metricNames } from '../../engine/metrics';
import type { ModelReport } from '../../engine/types';
import { interval, num } from './format';
import { Content, join, markup, Markup } from './html';
import type { ReportData, ReportModel } from './report-data';
import { FEATURE_IMPORTANCE } from '../../engine/plots/feature-importance';
import { FEATURE_STABILITY } from '../../engine/plots/feature-stability';

export type Task = 'classification' | 'regression' | 'survival';

const MODEL_HEADINGS: Record<string, string> = { best: 'Best model', interpretable: 'Interpretable model' };
export const modelHeading = (key: string): string => MODEL_HEADINGS[key] ?? `Model "${key}"`;

/** What each metric means, in a sentence a clinician can use (`positive`: the positive class of a binary outcome). */
export function meaningOf(metric: string, positive = 'the positive class'): string {
  return (METRIC_MEANINGS[metric] ?? '').replace(/\{positive\}/g, positive);
}

const METRIC_MEANINGS: Record<string, string> = {
  'Area Under the ROC Curve':
    'the chance that a random {positive} sample gets a higher probability of {positive} than a random other one (0.5: chance, 1: perfect)',
  'Mean Area Under the ROC Curve':
    'the area under the ROC curve of each class against the others, averaged over the classes (0.5: chance, 1: perfect)',
  Accuracy: 'the share of samples whose predicted class (highest probability) is right',
  'Balanced Accuracy':
    'the mean over the classes of the share of their samples predicted right: accuracy as if every class were equally common',
  Sensitivity: 'the share of {positive} samples that are called {positive}',
  Specificity: 'the share of the other samples that are not called {positive}',
  'F1 Score': 'the harmonic mean of precision and sensitivity for {positive}',
  'R Squared': "the share of the outcome's variance the predictions explain (0: no better than the mean, 1: perfect)",
  'Mean Absolute Error': 'the mean distance between prediction and actual value, in the units of the outcome (lower is better)',
  'Root Mean Squared Error':
    'the square root of the mean squared error, in the units of the outcome; large errors weigh more (lower is better)',
  'Concordance Index':
    'the chance that, of two samples, the one with the higher predicted risk has its event first (0.5: chance, 1: perfect)',
};

export function taskOf(data: ReportData): Task {
  const o = data.parameters.outcome;
  return 'classification' in o ? 'classification' : 'regression' in o ? 'regression' : 'survival';
}

export function outcomeWords(data: ReportData): Markup {
  const o = data.parameters.outcome;
  if ('classification' in o) return markup`classification of <strong>${o.classification}</strong>`;
  if ('regression' in o) return markup`regression of <strong>${o.regression}</strong>`;
  return markup`survival: time <strong>${o.survival.timeToEvent}</strong>, event <strong>${o.survival.event}</strong>`;
}

/** The model's kind, without its settings: `Support vector machine` of `Support vector machine (RBF kernel, ...)`. */
export function shortModel(description: string): string {
  const cut = description.search(/ \(|;|:/);
  return (cut > 0 ? description.slice(0, cut) : description).trim();
}

/** The metrics of a model in the engine's order (the primary one first), then any other the result holds. */
export function metricsOf(task: Task, m: ModelReport): string[] {
  const known = metricNames(task, m.classes?.length ?? 2).filter((k) => k in m.performance);
  return [...known, ...Object.keys(m.performance).filter((k) => !known.includes(k))];
}

export function primaryMetric(data: ReportData, task: Task): string {
  const best = data.models[0]?.report;
  return data.leaderboard?.rows[0]?.metric ?? (best && metricsOf(task, best)[0]) ?? metricNames(task, best?.classes?.length ?? 2)[0];
}

/** A value and its interval on a small strip from 0 to 1 (metrics that are shares), for the tables. */
export function intervalStrip(value: number, cis: readonly [number, number] | undefined): Markup {
  if (!cis || ![value, ...cis].every((v) => v >= 0 && v <= 1)) return markup``;
  const x = (v: number) => (4 + v * 112).toFixed(1);
  return markup`<svg class="strip" viewBox="0 0 120 14" aria-hidden="true">
    <line class="strip-axis" x1="4" x2="116" y1="7" y2="7" />
    <line class="strip-range" x1="${x(cis[0])}" x2="${x(cis[1])}" y1="7" y2="7" />
    <circle class="strip-point" cx="${x(value)}" cy="7" r="3" />
  </svg>`;
}

/** Stability of each feature of the model: the result's own map, else the Feature Stability plot. */
export function stabilityOf(m: ReportModel): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of m.plots[FEATURE_STABILITY.name] ?? []) out.set(e.name, e.value);
  for (const [k, v] of Object.entries(m.report.stability ?? {})) out.set(k, v);
  return out;
}

/**
 * For each feature of the reference signature, the features that stand in for it in the equivalent signatures shown
 * (signatures are built one member per position, so position i of each is an equivalent of the reference's i-th).
 */
export function equivalentsByPosition(signatures: readonly (readonly string[])[]): string[][] {
  const [reference, ...others] = signatures;
  if (!reference) return [];
  const aligned = others.every((s) => s.length === reference.length);
  return reference.map((f, i) => (aligned ? [...new Set(others.map((s) => s[i]).filter((g) => g !== f))] : []));
}

/** The features of the reference signature, most important first when the Feature Importance plot says so. */
export function featuresByImportance(m: ReportModel): string[] {
  const reference = m.report.signatures[0] ?? [];
  const order = (m.plots[FEATURE_IMPORTANCE.name] ?? []).map((e) => e.name).filter((n) => reference.includes(n));
  return [...order, ...reference.filter((f) => !order.includes(f))];
}

export function listWords(items: readonly Content[], max = 6): Markup {
  const shown = items.slice(0, max);
  const rest = items.length - shown.length;
  const parts: Content[] = [];
  shown.forEach((item, i) => {
    if (i > 0) parts.push(i === shown.length - 1 && rest === 0 ? ' and ' : ', ');
    parts.push(item);
  });
  if (rest > 0) parts.push(` and ${rest} more`);
  return markup`${parts}`;
}

/** Terms and their descriptions, two columns (one on a phone). */
export function facts(rows: readonly (readonly [Content, Content])[]): Markup {
  return markup`<dl class="facts">${rows.map(([k, v]) => markup`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
}

/** How the interpretable model compares with the winner on the primary metric, in words. */
export function comparison(best: ModelReport, other: ModelReport, primary: string): string {
  const a = best.performanceCis?.[primary];
  const b = other.performanceCis?.[primary];
  if (!a || !b) return '';
  if (b[1] >= a[0] && a[1] >= b[0])
    return 'About as good as the model that won (their intervals overlap): prefer it when each prediction must be explained.';
  return other.performance[primary] < best.performance[primary]
    ? 'Less good than the model that won (their intervals do not overlap): the price of a model that can be read.'
    : 'Better than the model that won on this estimate (their intervals do not overlap).';
}

/**
 * The metrics people ask next, beside the primary one: what the model gets right, each as its out-of-fold predictions
 * show it (the value and interval of the confusion matrix and plots), with the estimate for new data (bias-corrected for
 * the choice among the configurations) beside it. A result of engine 0.2, without pooled values: the estimates alone.
 */
export function secondaryMetrics(task: Task, m: ModelReport): Markup {
  const names =
    task === 'regression'
      ? ['Mean Absolute Error']
      : task === 'classification' && (m.classes?.length ?? 2) === 2
        ? ['Sensitivity', 'Specificity']
        : task === 'classification'
          ? ['Accuracy', 'Balanced Accuracy']
          : [];
  const shown = names.filter((n) => Number.isFinite(m.performance[n]));
  if (!shown.length) return markup``;
  const pooled = m.pooledPerformance;
  return markup`<p data-secondary="">${join(
    shown.map((n) =>
      pooled && Number.isFinite(pooled[n])
        ? markup`<span data-metric="${n}" data-pooled="${String(pooled[n])}" data-pooled-cis="${(m.pooledPerformanceCis?.[n] ?? []).join(' ')}"
            >${n} <strong>${num(pooled[n])}</strong> (${interval(m.pooledPerformanceCis?.[n])}) in its out-of-fold predictions;
            <span class="note">${num(m.performance[n])} (${interval(m.performanceCis?.[n])}) expected on new samples</span></span
          >`
        : markup`${n} <strong>${num(m.performance[n])}</strong> (${interval(m.performanceCis?.[n])})`,
    ),
    '; ',
  )}</p>`;
}
