/**
 * One model's section of the report: its performance with intervals, its signatures and their stability, what its
 * features do (coefficients), the facts of its result, and its plots.
 */
import { orderedPlotNames } from '../../engine/plots';
import { CONFUSION_MATRIX } from '../../engine/plots/confusion-matrix';
import { isModelKey, ModelKey, Thoroughness } from '../../engine/types';
import type { ModelReport } from '../../engine/types';
import { dataTable, figure, table } from './chart-frame';
import { count, interval, num, pct } from './format';
import { Content, markup, Markup } from './html';
import { PlotRenderContext, rendererOf } from './plot-charts';
import { modelCardBlock } from './model-card-block';
import type { ReportData, ReportModel } from './report-data';
import { equivalentsByPosition, facts, intervalStrip, meaningOf, metricsOf, modelHeading, stabilityOf, Task } from './report-parts';

function performanceTable(task: Task, m: ModelReport, primary: string): Markup {
  const pooled = m.pooledPerformance;
  const rows = metricsOf(task, m).map((name) => {
    const value = m.performance[name];
    const cis = m.performanceCis?.[name];
    const own = pooled?.[name];
    const ownCis = m.pooledPerformanceCis?.[name];
    return markup`<tr data-metric="${name}">
      <th scope="row">${name}${name === primary ? markup` <span class="badge">ranks the models</span>` : ''}</th>
      <td class="num" data-value="${String(value)}">${num(value)}</td>
      <td class="num" data-cis="${cis ? cis.join(' ') : ''}">${interval(cis)}</td>
      ${
        pooled
          ? markup`<td class="num" data-pooled="${String(own)}">${num(own)}</td>
              <td class="num" data-pooled-cis="${ownCis ? ownCis.join(' ') : ''}">${interval(ownCis)}</td>`
          : ''
      }
      <td>${intervalStrip(value, cis)}</td>
      <td class="note">${meaningOf(name, m.positiveClass)}</td>
    </tr>`;
  });
  const headers = pooled
    ? [
        'metric',
        'expected on new samples',
        '95% interval',
        'its out-of-fold predictions',
        '95% interval',
        markup`<span class="note">0 to 1</span>`,
        'what it means',
      ]
    : ['metric', 'estimate', '95% interval', markup`<span class="note">0 to 1</span>`, 'what it means'];
  return markup`${table('performance', 'Performance on samples the model did not see, with 95% intervals', headers, rows)}
    ${
      pooled
        ? markup`<p class="note">
            Two numbers per metric, from the same cross-validation. Its out-of-fold predictions: this model's own predictions of samples
            left out of its fit, with bootstrap intervals: the values of its ROC curve, calibration plot and confusion matrix below. Expected on
            new samples: the same figure corrected for having chosen this configuration among all those tried (the top of many looks better
            than it is): each bootstrap picks the configuration the winner rule would pick on some samples and scores it on the others
            (bootstrap bias-corrected cross-validation). Quote the second for what to expect; the first describes the predictions shown.
          </p>`
        : ''
    }`;
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

const CALIBRATION_METHODS: Record<string, string> = {
  platt: 'Platt scaling: an increasing map of the probability, so the ranking of the samples, and the AUC, are unchanged',
  temperature: "temperature scaling: one temperature for every class, so each sample's predicted class is unchanged",
  isotonic: 'isotonic regression, fitted within the cross-validation',
};

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
    const scores = (s: { logLoss?: number; brier: number; ece: number }): Markup =>
      markup`${s.logLoss !== undefined ? markup`log loss ${num(s.logLoss)}, ` : ''}Brier score ${num(s.brier)}, calibration error ${num(s.ece)}`;
    rows.push([
      'Calibration of the probabilities',
      markup`${scores(c)} <span class="note">(0 is perfect)</span>${
        c.method && c.uncalibrated
          ? markup`; the probabilities were recalibrated (${CALIBRATION_METHODS[c.method]}), because that lowered both the log loss and the
              Brier score of predictions it had not been fitted on: before, ${scores(c.uncalibrated)}`
          : c.logLoss !== undefined
            ? markup`; not recalibrated: no map lowered both the log loss and the Brier score of predictions it had not been fitted on`
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
      above, which are corrected for the choice among the configurations.${data.parameters.thoroughness === Thoroughness.Preliminary ? ' A preliminary analysis has few repeats: intervals are wide.' : ''}
    </p>
    ${figures}`;
}

export function modelSection(data: ReportData, task: Task, m: ReportModel, primary: string): Markup {
  const ctx: PlotRenderContext = {
    primaryMetric: primary,
    outcome:
      'regression' in data.parameters.outcome
        ? data.parameters.outcome.regression
        : 'survival' in data.parameters.outcome
          ? data.parameters.outcome.survival.timeToEvent
          : data.parameters.outcome.classification,
    positiveClass: m.report.positiveClass ?? (m.report.classes?.length === 2 ? m.report.classes[1] : undefined),
    classSizes: Object.fromEntries(m.plots[CONFUSION_MATRIX.name]?.perClass.map((p) => [p.class, p.count]) ?? []),
  };
  const row = data.leaderboard?.rows.find((r) => r.modelKey === m.key);
  const lead =
    m.key === ModelKey.Best
      ? 'The simplest configuration whose performance is statistically tied with the top one (fewest features, then the most interpretable model, then the stronger regularisation: see the leaderboard), its performance estimated by bootstrap bias-corrected cross-validation.'
      : m.key === ModelKey.Interpretable
        ? 'Chosen by the same rule among the interpretable configurations (linear models and decision trees): what each feature does can be read off it.'
        : '';
  return markup`<section
    class="model"
    id="model-${isModelKey(m.key) ? m.key : 'other'}"
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
    ${performanceTable(task, m.report, primary)} ${signaturesBlock(m)} ${factsBlock(task, m.report)} ${modelCardBlock(data, m)}
    ${plotsBlock(data, m, ctx)}
  </section>`;
}
