/**
 * The analysis report: one self-contained HTML document (inline stylesheet, inline SVG charts, no script, nothing
 * loaded from anywhere) that answers first which model won, how good it is, which features matter and how sure each
 * number is, then gives every detail of the result for a reviewer, and how to predict with it.
 */
import { metricNames } from '../../engine/metrics';
import { orderedPlotNames } from '../../engine/plots';
import type { ModelReport } from '../../engine/types';
import { dataTable, figure, table } from './charts';
import { count, duration, interval, num, pct, timestamp } from './format';
import { Content, join, markup, Markup } from './html';
import { PlotRenderContext, rendererOf } from './plot-charts';
import type { LeaderboardRow } from '../../analyses/result-details.service';
import type { ReportData, ReportModel } from './report-data';
import { REPORT_CSP, REPORT_CSS } from './styles';

type Task = 'classification' | 'regression' | 'survival';

/** The sections of every report, in order: their anchors and headings (the table of contents, and tests, read this). */
export const REPORT_SECTIONS = {
  summary: 'At a glance',
  analysis: 'The analysis',
  leaderboard: 'Configurations tried',
  predict: 'Predicting new samples',
  reading: 'How to read this report',
} as const;

const MODEL_HEADINGS: Record<string, string> = { best: 'Best model', interpretable: 'Interpretable model' };
export const modelHeading = (key: string): string => MODEL_HEADINGS[key] ?? `Model "${key}"`;

/** What each metric means, in a sentence a clinician can use (`positive`: the positive class of a binary outcome). */
function meaningOf(metric: string, positive = 'the positive class'): string {
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

function taskOf(data: ReportData): Task {
  const o = data.parameters.outcome;
  return 'classification' in o ? 'classification' : 'regression' in o ? 'regression' : 'survival';
}

function outcomeWords(data: ReportData): Markup {
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
function metricsOf(task: Task, m: ModelReport): string[] {
  const known = metricNames(task, m.classes?.length ?? 2).filter((k) => k in m.performance);
  return [...known, ...Object.keys(m.performance).filter((k) => !known.includes(k))];
}

function primaryMetric(data: ReportData, task: Task): string {
  const best = data.models[0]?.report;
  return data.leaderboard?.rows[0]?.metric ?? (best && metricsOf(task, best)[0]) ?? metricNames(task, best?.classes?.length ?? 2)[0];
}

/** A value and its interval on a small strip from 0 to 1 (metrics that are shares), for the tables. */
function intervalStrip(value: number, cis: readonly [number, number] | undefined): Markup {
  if (!cis || ![value, ...cis].every((v) => v >= 0 && v <= 1)) return markup``;
  const x = (v: number) => (4 + v * 112).toFixed(1);
  return markup`<svg class="strip" viewBox="0 0 120 14" aria-hidden="true">
    <line class="strip-axis" x1="4" x2="116" y1="7" y2="7" />
    <line class="strip-range" x1="${x(cis[0])}" x2="${x(cis[1])}" y1="7" y2="7" />
    <circle class="strip-point" cx="${x(value)}" cy="7" r="3" />
  </svg>`;
}

/** Stability of each feature of the model: the result's own map, else the Feature Stability plot. */
function stabilityOf(m: ReportModel): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of m.plots['Feature Stability'] ?? []) out.set(e.name, e.value);
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
function featuresByImportance(m: ReportModel): string[] {
  const reference = m.report.signatures[0] ?? [];
  const order = (m.plots['Feature Importance'] ?? []).map((e) => e.name).filter((n) => reference.includes(n));
  return [...order, ...reference.filter((f) => !order.includes(f))];
}

function listWords(items: readonly Content[], max = 6): Markup {
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
function facts(rows: readonly (readonly [Content, Content])[]): Markup {
  return markup`<dl class="facts">${rows.map(([k, v]) => markup`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
}

/** How the interpretable model compares with the winner on the primary metric, in words. */
function comparison(best: ModelReport, other: ModelReport, primary: string): string {
  const a = best.performanceCis?.[primary];
  const b = other.performanceCis?.[primary];
  if (!a || !b) return '';
  if (b[1] >= a[0] && a[1] >= b[0])
    return 'About as good as the model that won (their intervals overlap): prefer it when each prediction must be explained.';
  return other.performance[primary] < best.performance[primary]
    ? 'Less good than the model that won (their intervals do not overlap): the price of a model that can be read.'
    : 'Better than the model that won on this estimate (their intervals do not overlap).';
}

/** The metrics people ask next, beside the primary one: what the model gets right, each with its interval. */
function secondaryMetrics(task: Task, m: ModelReport): Markup {
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
  return markup`<p data-secondary="">${join(
    shown.map((n) => markup`${n} <strong>${num(m.performance[n])}</strong> (${interval(m.performanceCis?.[n])})`),
    '; ',
  )}</p>`;
}

// ---- sections ----------------------------------------------------------------------------------------------------

function summarySection(data: ReportData, task: Task, primary: string): Markup {
  const best = data.models.find((m) => m.key === 'best') ?? data.models[0];
  const interpretable = data.models.find((m) => m.key === 'interpretable');
  if (!best)
    return markup`<section id="summary" data-section="summary">
      <h2>${REPORT_SECTIONS.summary}</h2>
      <p>The result holds no model.</p>
    </section>`;
  const estimate = best.report.performance[primary];
  const cis = best.report.performanceCis?.[primary];
  const features = featuresByImportance(best);
  const equivalents = equivalentsByPosition(best.report.signatures);
  const reference = best.report.signatures[0] ?? [];
  const featureItems = features.map((f) => {
    const alternatives = equivalents[reference.indexOf(f)] ?? [];
    return markup`<li>
      <strong>${f}</strong>${alternatives.length ? markup` <span class="note">(or ${listWords(alternatives, 3)})</span>` : ''}
    </li>`;
  });
  const bestRow = data.leaderboard?.rows.find((r) => r.modelKey === 'best');
  const interpretableCard = interpretable
    ? markup`<div class="card">
        <h3>Interpretable alternative</h3>
        <p class="big">${shortModel(interpretable.report.model)}</p>
        <p>
          ${primary} <strong>${num(interpretable.report.performance[primary])}</strong> (95% interval
          ${interval(interpretable.report.performanceCis?.[primary])}) with ${count((interpretable.report.signatures[0] ?? []).length)}
          features.
        </p>
        <p>${comparison(best.report, interpretable.report, primary)}</p>
        <p><a href="#model-interpretable">Details</a></p>
      </div>`
    : bestRow?.interpretable || data.parameters.modelsConsidered === 'interpretable'
      ? markup`<div class="card">
          <h3>Interpretable</h3>
          <p class="big">Yes</p>
          <p>The best model is itself an interpretable one (linear model or decision tree): see its coefficients or rules below.</p>
        </div>`
      : '';
  return markup`<section id="summary" data-section="summary">
    <h2>${REPORT_SECTIONS.summary}</h2>
    <div class="cards">
      <div class="card" data-card="winner">
        <h3>The model that won</h3>
        <p class="big">${shortModel(best.report.model)}</p>
        <p>
          Using ${count(reference.length)} feature${reference.length === 1 ? '' : 's'}, chosen among
          ${data.leaderboard ? `${count(data.leaderboard.totalCount)} configurations` : 'the configurations'} tried.
        </p>
        ${best.report.calibration ? markup`<p>Its probabilities: calibration error ${num(best.report.calibration.ece)} (0 is perfect; see Calibration).</p>` : ''}
        <p><a href="#model-best">Details</a></p>
      </div>
      <div class="card" data-card="performance">
        <h3>How good it is</h3>
        <p class="big">${primary} ${num(estimate)}</p>
        <p>95% interval <strong>${interval(cis)}</strong> ${intervalStrip(estimate, cis)}</p>
        ${secondaryMetrics(task, best.report)}
        <p class="note">
          ${meaningOf(primary, best.report.positiveClass)}. Estimated on samples the model did not see while it was fitted.
        </p>
      </div>
      <div class="card" data-card="features">
        <h3>Features that matter${features.length > 1 && best.plots['Feature Importance'] ? ', most important first' : ''}</h3>
        <ul class="features">
          ${featureItems.slice(0, 8)}
        </ul>
        ${featureItems.length > 8 ? markup`<p class="note">and ${featureItems.length - 8} more (see below)</p>` : ''}
        ${best.report.signatureCount > 1 ? markup`<p class="note">${count(best.report.signatureCount)} equivalent signatures predict as well: alternatives in brackets.</p>` : ''}
      </div>
      ${interpretableCard}
    </div>
    <p class="note">
      ${task === 'classification' ? 'Classification' : task === 'regression' ? 'Regression' : 'Survival analysis'} on
      ${data.dataset ? `${count(data.dataset.sampleCount)} samples` : 'the dataset'}. Every estimate comes with its 95% interval: the range
      the true value lies in with 95% confidence; the narrower, the surer.
    </p>
  </section>`;
}

function analysisSection(data: ReportData): Markup {
  const p = data.parameters;
  const end = new Date(new Date(data.startTime).getTime() + data.executionTimeInSeconds * 1000);
  const rows: [string, Content][] = [
    ['Name', p.name],
    [
      'Dataset',
      data.dataset
        ? markup`${data.dataset.name}
            <span class="note">(${count(data.dataset.sampleCount)} samples, ${count(data.dataset.featureCount)} features)</span>`
        : `dataset ${p.datasetId}`,
    ],
    ['Outcome', outcomeWords(data)],
    ['Thoroughness', p.thoroughness],
    ['Models considered', p.modelsConsidered === 'interpretable' ? 'interpretable only (linear models, decision trees)' : 'all'],
    [
      'Feature selection',
      p.featureSelection === 'mostRelevant' ? 'the most relevant features' : 'the most relevant features, or all when that predicts better',
    ],
    ['Largest signature', `${p.maxSignatureSize} features; at most ${p.maxVisualizedSignatureCount} equivalent signatures shown`],
    ...(p.groupingFeature ? ([['Samples grouped by', p.groupingFeature]] as [string, Content][]) : []),
    ['Started', timestamp(data.startTime)],
    ['Finished', timestamp(end)],
    ['Duration', duration(data.executionTimeInSeconds)],
    ['Engine', data.mlEngine],
    ['Analysis id', data.analysisId],
  ];
  return markup`<section id="analysis" data-section="analysis">
    <h2>${REPORT_SECTIONS.analysis}</h2>
    ${facts(rows)}
  </section>`;
}

function performanceTable(task: Task, m: ModelReport, primary: string): Markup {
  const rows = metricsOf(task, m).map((name) => {
    const value = m.performance[name];
    const cis = m.performanceCis?.[name];
    return markup`<tr data-metric="${name}">
      <th scope="row">${name}${name === primary ? markup` <span class="badge">ranks the models</span>` : ''}</th>
      <td class="num" data-value="${String(value)}">${num(value)}</td>
      <td class="num" data-cis="${cis ? cis.join(' ') : ''}">${interval(cis)}</td>
      <td>${intervalStrip(value, cis)}</td>
      <td class="note">${meaningOf(name, m.positiveClass)}</td>
    </tr>`;
  });
  return table(
    'performance',
    'Performance on samples the model did not see, with 95% intervals',
    ['metric', 'estimate', '95% interval', markup`<span class="note">0 to 1</span>`, 'what it means'],
    rows,
  );
}

function signaturesBlock(m: ReportModel): Markup {
  const signatures = m.report.signatures;
  const reference = signatures[0] ?? [];
  const stability = stabilityOf(m);
  const equivalents = equivalentsByPosition(signatures);
  const stab = (f: string): Content => {
    const v = stability.get(f);
    return v === undefined ? 'n/a' : markup`${pct(v, 0)} ${intervalStrip(v, [v, v])}`;
  };
  const rows = reference.map(
    (f, i) =>
      markup`<tr data-feature="${f}">
        <th scope="row">${f}</th>
        <td class="num">${stab(f)}</td>
        <td>
          ${
            equivalents[i]?.length
              ? equivalents[i].map(
                  (g, k) =>
                    markup`${k > 0 ? ', ' : ''}<span data-equivalent="${g}">${g}</span>
                      <span class="note">(${stability.has(g) ? pct(stability.get(g), 0) : 'n/a'})</span>`,
                )
              : markup`<span class="note">none shown</span>`
          }
        </td>
      </tr>`,
  );
  const shown = signatures.length;
  const total = m.report.signatureCount ?? shown;
  return markup`<h3>Signature: the features the model uses</h3>
    <p>
      The reference signature holds ${count(reference.length)} feature${reference.length === 1 ? '' : 's'}.
      ${total > 1 ? markup`The selection found ${count(total)} equivalent signatures in all: each swaps some features for others that carry the same information, and predicts as well${shown < total ? markup` (the first ${shown} are shown)` : ''}.` : 'No equivalent signature was found: no other features carry the same information.'}
      Stability: the share of cross-validation folds whose own selection chose the feature or one of its equivalents.
    </p>
    ${table('signature', 'Reference signature', ['feature', 'stability', 'equivalent features (their stability)'], rows)}
    ${
      shown > 1
        ? dataTable(
            'Every signature shown (the first is the reference)',
            ['signature', 'features'],
            signatures.map((s, i) => [String(i + 1), s.join(', ')]),
          )
        : ''
    }`;
}

function coefficientsBlock(task: Task, m: ModelReport): Content {
  const v = m.modelView;
  if (!v) return '';
  const multi = Array.isArray(v.coefficients[0]);
  const classes = v.classes ?? m.classes ?? [];
  if (multi) {
    const coefs = (v.originalCoefficients ?? v.coefficients) as number[][];
    const intercepts = Array.isArray(v.intercept) ? v.intercept : [];
    return markup`<p>
        Each class's score is its intercept plus the sum of its coefficients times the feature values; the probabilities are the softmax of
        the scores. Coefficients per unit of each feature${v.originalCoefficients ? '' : ' (standardized features)'}.
      </p>
      ${dataTable(
        'Coefficients per class',
        ['feature', ...classes],
        [
          ...(intercepts.length ? [['(intercept)', ...intercepts.map((x) => num(x))]] : []),
          ...v.featureNames.map((f, j) => [f, ...coefs.map((row) => num(row[j]))]),
        ],
      )}`;
  }
  const original = v.originalCoefficients as number[] | undefined;
  const perSd = v.coefficients as number[];
  const ratio = task === 'survival' ? 'hazard ratio' : task === 'classification' ? 'odds ratio' : undefined;
  const meaning =
    task === 'survival'
      ? 'The risk score is the sum of the coefficients times the feature values: a hazard ratio above 1 means more of the feature, a higher hazard (an earlier event).'
      : task === 'regression'
        ? 'The prediction is the intercept plus the sum of the coefficients times the feature values.'
        : markup`The log-odds of <strong>${m.positiveClass ?? classes[1] ?? 'the positive class'}</strong> are the intercept plus the sum of
            the coefficients times the feature values: an odds ratio above 1 means more of the feature, higher odds of it.`;
  const headers = [
    'feature',
    ...(original ? ['per unit'] : []),
    'per standard deviation',
    ...(ratio ? [`${ratio} per standard deviation`] : []),
    ...(v.hazardRatios ? ['hazard ratio per unit'] : []),
  ];
  const blank = headers.slice(1).map(() => '');
  const rows: Content[][] = [
    ...(typeof v.intercept === 'number' && original ? [['(intercept)', num(v.intercept), ...blank.slice(1)]] : []),
    ...v.featureNames.map((f, j) => [
      f,
      ...(original ? [num(original[j])] : []),
      num(perSd[j]),
      ...(ratio ? [num(Math.exp(perSd[j]))] : []),
      ...(v.hazardRatios ? [num(v.hazardRatios[j])] : []),
    ]),
  ];
  return markup`<p>
      ${meaning} Per unit: on the feature's own scale (a level of a categorical feature against its most common level). Per standard
      deviation: for a change of one standard deviation of the feature, comparable between features.
    </p>
    ${dataTable('Coefficients', headers, rows)}`;
}

function factsBlock(task: Task, m: ModelReport): Markup {
  const rows: [string, Content][] = [];
  if (m.classes?.length) rows.push(['Classes', m.classes.join(', ')]);
  if (m.positiveClass !== undefined)
    rows.push([
      'Positive class',
      markup`<strong>${m.positiveClass}</strong>
        <span class="note">(the class whose probability, sensitivity and ROC curve are shown)</span>`,
    ]);
  if (m.calibration) {
    const c = m.calibration;
    rows.push([
      'Calibration',
      markup`Brier score ${num(c.brier)}, calibration error ${num(c.ece)} <span class="note">(0 is perfect)</span>${
        c.method && c.uncalibrated
          ? markup`; the probabilities were recalibrated (${c.method === 'platt' ? 'Platt scaling' : 'isotonic regression'}, fitted within the cross-validation): before, Brier score
              ${num(c.uncalibrated.brier)} and calibration error ${num(c.uncalibrated.ece)}`
          : ''
      }`,
    ]);
  }
  const coefficients = coefficientsBlock(task, m);
  if (!rows.length && !coefficients) return markup``;
  return markup`<h3>Model facts</h3>${rows.length ? facts(rows) : ''}${coefficients}`;
}

function plotsBlock(data: ReportData, m: ReportModel, ctx: PlotRenderContext): Markup {
  const names = orderedPlotNames(m.plots);
  const figures = names.map((name) => {
    const render = rendererOf(name);
    const value = (m.plots as Record<string, unknown>)[name];
    if (!render || value === undefined)
      return markup`<p class="note" data-plot-missing="${name}">${name}: drawn by a later version of the report.</p>`;
    const drawn = render(value as never, ctx);
    return figure({
      title: name,
      parts: drawn.parts,
      caption: drawn.caption,
      extra: drawn.extra,
      attributes: markup` data-plot="${name}" data-model="${m.key}"`,
    });
  });
  if (!figures.length) return markup``;
  return markup`<h3>Plots</h3>
    <p class="note">
      Every plot is drawn from the configuration's pooled out-of-fold predictions: each sample predicted by a model fitted without it.
      Their figures (the area under a ROC curve, the sensitivity of the confusion matrix) can differ a little from the estimates
      above, which are corrected for the choice among the configurations.${data.parameters.thoroughness === 'preliminary' ? ' A preliminary analysis has few repeats: intervals are wide.' : ''}
    </p>
    ${figures}`;
}

function modelSection(data: ReportData, task: Task, m: ReportModel, primary: string): Markup {
  const ctx: PlotRenderContext = {
    primaryMetric: primary,
    outcome:
      'regression' in data.parameters.outcome
        ? data.parameters.outcome.regression
        : 'survival' in data.parameters.outcome
          ? data.parameters.outcome.survival.timeToEvent
          : data.parameters.outcome.classification,
    positiveClass: m.report.positiveClass ?? (m.report.classes?.length === 2 ? m.report.classes[1] : undefined),
  };
  const row = data.leaderboard?.rows.find((r) => r.modelKey === m.key);
  const lead =
    m.key === 'best'
      ? 'The simplest configuration whose performance is statistically tied with the top one (fewest features, then the most interpretable model), its performance estimated by bootstrap bias-corrected cross-validation.'
      : m.key === 'interpretable'
        ? 'Chosen by the same rule among the interpretable configurations (linear models and decision trees): what each feature does can be read off it.'
        : '';
  return markup`<section
    class="model"
    id="model-${m.key === 'best' || m.key === 'interpretable' ? m.key : 'other'}"
    data-section="model"
    data-model="${m.key}"
  >
    <h2>${modelHeading(m.key)}</h2>
    <p class="lead">
      ${lead}${row ? markup` Rank ${row.rank} of ${data.leaderboard?.totalCount ?? ''} on the leaderboard by pooled out-of-fold ${row.metric}.` : ''}
    </p>
    ${facts([
      ['Model', m.report.model],
      ['Preprocessing', m.report.preprocessing],
      ['Feature selection', m.report.featureSelection],
    ])}
    <h3>Performance</h3>
    ${performanceTable(task, m.report, primary)} ${signaturesBlock(m)} ${factsBlock(task, m.report)} ${plotsBlock(data, m, ctx)}
  </section>`;
}

function leaderboardSection(data: ReportData): Markup {
  const board = data.leaderboard;
  if (!board)
    return markup`<section id="leaderboard" data-section="leaderboard">
      <h2>${REPORT_SECTIONS.leaderboard}</h2>
      <p class="note">This analysis finished before results kept their leaderboard: run it again to see every configuration tried.</p>
    </section>`;
  const row = (r: LeaderboardRow) =>
    markup`<tr data-rank="${r.rank}" ${r.modelKey ? markup` class="chosen" data-model-key="${r.modelKey}"` : ''}>
        <td class="num">${r.rank}</td>
        <td>
          ${r.model}${r.modelKey ? markup` <span class="badge${r.modelKey === 'best' ? '' : ' alt'}">${r.modelKey}</span>` : ''}${r.interpretable ? markup` <span class="note">(interpretable)</span>` : ''}
        </td>
        <td class="note">${r.featureSelection}</td>
        <td class="num" data-value="${r.value === null ? '' : String(r.value)}">${num(r.value)}${r.droppedEarly ? '*' : ''}</td>
        <td class="num">${Number.isFinite(r.signatureSize) ? r.signatureSize.toFixed(1) : 'n/a'}</td>
      </tr>`;
  const rows = [
    ...board.rows.map(row),
    ...(board.chosen.length
      ? [
          markup`<tr class="gap"><td></td><td colspan="4" class="note">\u2026 the result's models, further down:</td></tr>`,
          ...board.chosen.map(row),
        ]
      : []),
  ];
  const metric = board.rows[0]?.metric ?? '';
  return markup`<section id="leaderboard" data-section="leaderboard">
    <h2>${REPORT_SECTIONS.leaderboard}</h2>
    <p>
      ${board.rows.length < board.totalCount ? `The top ${board.rows.length} of the ${count(board.totalCount)}` : `All ${count(board.totalCount)}`}
      configurations (feature selection + model) the analysis evaluated, by their pooled out-of-fold ${metric}. The best model is the
      simplest configuration statistically tied with the top one (within one standard error of it): the fewest features, then the more
      interpretable model, then the stronger regularisation; so it need not be rank 1. The pooled values here are optimistic for the top
      of many configurations: the estimates above come from bootstrap bias-corrected cross-validation, which corrects for that
      choice.${
        board.rows.some((r) => r.droppedEarly)
          ? " *: dropped early (it lost to the leader with probability above 0.99): its value is on the samples evaluated until then, fewer than the others', and is not comparable with theirs."
          : ''
      }
    </p>
    ${table('leaderboard', 'Leaderboard', ['rank', 'model', 'feature selection', metric, 'features (mean)'], rows)}
  </section>`;
}

function predictSection(data: ReportData): Markup {
  const id = data.analysisId;
  const base = `${data.origin}/api/public/v1`;
  const best = data.models.find((m) => m.key === 'best') ?? data.models[0];
  const inputs = best?.report.signatures[0] ?? [];
  const key = best?.key ?? 'best';
  const curl = `B=${base}
TOKEN=...   # from POST $B/login (see the README)
# the new samples: a CSV with the columns below, made a dataset of project ${data.projectId} as any upload; then
curl -s -X POST $B/analysis/${id}/predict/<datasetId> -H "Authorization: Bearer $TOKEN" \\
  -H 'Content-Type: application/json' -d '{"modelKey":"${key}"}'
curl -s $B/prediction/<predictionId>/status -H "Authorization: Bearer $TOKEN"
curl -s "$B/prediction/<predictionId>/result?format=csv" -H "Authorization: Bearer $TOKEN" > predictions.csv
curl -s $B/analysis/${id}/report -H "Authorization: Bearer $TOKEN" -o report.html   # this report`;
  const ts = `import { SignetClient } from '@signet/client';

const client = new SignetClient('${data.origin}');
await client.login('<username>', '<password>');
const dataset = await client.uploadDataset('${data.projectId}', 'new-samples.csv', 'new samples');
const predictionId = await client.predict('${id}', dataset.datasetId, '${key}');
await client.waitForPrediction(predictionId);
const { predictions } = await client.predictionResult(predictionId);
await client.downloadReport('${id}', 'report.html');`;
  const py = `from signet_client import SignetClient

with SignetClient("${data.origin}", "<username>", "<password>") as c:
    dataset_id = c.upload_dataset("${data.projectId}", "new-samples.csv", "new samples")
    prediction_id = c.predict_outcome("${id}", dataset_id, model_key="${key}")
    c.wait_for_prediction(prediction_id)
    print(c.get_prediction_result_csv(prediction_id))
    c.download_report("${id}", "report.html")`;
  return markup`<section id="predict" data-section="predict">
    <h2>${REPORT_SECTIONS.predict}</h2>
    <p>
      The ${modelHeading(key).toLowerCase()} predicts new samples through the API: upload them as a dataset, then ask analysis
      <strong>${id}</strong> to predict
      it.${inputs.length ? markup` The model reads these columns of the new data, by name: <strong>${listWords(inputs, 30)}</strong>.` : ''} A
      missing value is filled in as in training (the training mean or most common level).
    </p>
    <h3>curl</h3>
    <pre><code>${curl}</code></pre>
    <h3>TypeScript client</h3>
    <pre><code>${ts}</code></pre>
    <h3>Python client</h3>
    <pre><code>${py}</code></pre>
  </section>`;
}

function readingSection(): Markup {
  const terms: [string, string][] = [
    [
      'Out-of-fold prediction',
      'the prediction of a sample by a model fitted without it (cross-validation: the samples are split into folds, and each fold is predicted by a model fitted on the others). Every estimate and plot here comes from such predictions, never from samples a model was fitted on.',
    ],
    [
      'Estimate and 95% interval',
      'the performance to expect of the model on new samples like these, and the range it lies in with 95% confidence (bootstrap over the samples). A wide interval means few samples, or a model whose performance varies.',
    ],
    [
      'Bootstrap bias-corrected cross-validation (BBC-CV)',
      'picking the best of many configurations makes its own score optimistic; BBC-CV corrects the estimate for that choice, so the number above is not inflated by the search.',
    ],
    ['Signature', 'the smallest set of features that predicts the outcome as well as all of them (the feature selection finds it).'],
    [
      'Equivalent signatures',
      'other sets of features that predict as well: a feature can be replaced by an equivalent one (a different measurement of the same thing, for example).',
    ],
    [
      'Stability',
      'how often the feature selection chose a feature (or an equivalent) when run again on the training samples of each fold.',
    ],
  ];
  return markup`<section id="reading" data-section="reading">
    <h2>${REPORT_SECTIONS.reading}</h2>
    ${facts(terms)}
  </section>`;
}

/** The stylesheet in one piece: its text must stay exactly what the policy's hash is of (formatting the template around it cannot reach inside). */
const STYLE_ELEMENT = new Markup(`<style>${REPORT_CSS}</style>`);

/** The whole report of an analysis as one HTML document. */
export function renderReport(data: ReportData): string {
  const task = taskOf(data);
  const primary = primaryMetric(data, task);
  const toc = markup`<nav class="toc" aria-label="Contents">
    <ol>
      ${[
        ['summary', REPORT_SECTIONS.summary],
        ['analysis', REPORT_SECTIONS.analysis],
        ...data.models.map((m) => [`model-${m.key === 'best' || m.key === 'interpretable' ? m.key : 'other'}`, modelHeading(m.key)]),
        ['leaderboard', REPORT_SECTIONS.leaderboard],
        ['predict', REPORT_SECTIONS.predict],
        ['reading', REPORT_SECTIONS.reading],
      ].map(([anchor, title]) => markup`<li><a href="#${anchor}">${title}</a></li>`)}
    </ol>
  </nav>`;
  const page = markup`<!DOCTYPE html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <meta name="generator" content="Signet ${data.serviceVersion}" />
        <link rel="icon" href="data:," />
        <title>${data.parameters.name}: analysis report</title>
        ${STYLE_ELEMENT}
      </head>
      <body>
        <main>
          <header class="top">
            <p class="kicker">Signet analysis report</p>
            <h1>${data.parameters.name}</h1>
            <p class="subtitle">
              ${outcomeWords(data)}${data.dataset ? markup` in <strong>${data.dataset.name}</strong>` : ''}, finished
              ${timestamp(new Date(new Date(data.startTime).getTime() + data.executionTimeInSeconds * 1000))}
            </p>
            ${toc}
          </header>
          ${summarySection(data, task, primary)} ${analysisSection(data)} ${data.models.map((m) => modelSection(data, task, m, primary))}
          ${leaderboardSection(data)} ${predictSection(data)} ${readingSection()}
          <footer>
            Analysis ${data.analysisId} · ${data.mlEngine} · Signet ${data.serviceVersion} · report made ${timestamp(data.generatedAt)} from
            the stored result; it loads nothing from anywhere and opens offline.
          </footer>
        </main>
      </body>
    </html> `;
  return page.value;
}
