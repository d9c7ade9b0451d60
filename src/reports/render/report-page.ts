/**
 * The analysis report: one self-contained HTML document (inline stylesheet, inline SVG charts, no script, nothing
 * loaded from anywhere) that answers first which model won, how good it is, which features matter and how sure each
 * number is, then gives every detail of the result for a reviewer, and how to predict with it.
 */
import { table } from './chart-frame';
import { count, duration, interval, num, timestamp } from './format';
import { Content, markup, Markup } from './html';
import type { LeaderboardRow } from '../../analyses/result-details.service';
import type { ReportData } from './report-data';
import { REPORT_CSP, REPORT_CSS } from './styles';
import { modelSection } from './model-section';
import {
  comparison,
  equivalentsByPosition,
  facts,
  featuresByImportance,
  intervalStrip,
  listWords,
  meaningOf,
  modelHeading,
  outcomeWords,
  primaryMetric,
  secondaryMetrics,
  shortModel,
  taskOf,
  Task,
} from './report-parts';
import { FeatureSelection, isModelKey, ModelKey, ModelsConsidered } from '../../engine/types';
import type { SearchFacts } from '../../engine/types';
import { FEATURE_IMPORTANCE } from '../../engine/plots/feature-importance';

/** The sections of every report, in order: their anchors and headings (the table of contents, and tests, read this). */
export const REPORT_SECTIONS = {
  summary: 'At a glance',
  analysis: 'The analysis',
  leaderboard: 'Configurations tried',
  predict: 'Predicting new samples',
  reading: 'How to read this report',
} as const;

// ---- sections ----------------------------------------------------------------------------------------------------

function summarySection(data: ReportData, task: Task, primary: string): Markup {
  const best = data.models.find((m) => m.key === ModelKey.Best) ?? data.models[0];
  const interpretable = data.models.find((m) => m.key === ModelKey.Interpretable);
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
  const bestRow = data.leaderboard?.rows.find((r) => r.modelKey === ModelKey.Best);
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
    : bestRow?.interpretable || data.parameters.modelsConsidered === ModelsConsidered.Interpretable
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
        ${
          best.report.pooledPerformance && Number.isFinite(best.report.pooledPerformance[primary])
            ? markup`<p class="note" data-pooled="${String(best.report.pooledPerformance[primary])}">
                Expected on new samples, corrected for the choice among the configurations. Its own out-of-fold predictions (the plots
                below): ${num(best.report.pooledPerformance[primary])} (${interval(best.report.pooledPerformanceCis?.[primary])}).
              </p>`
            : ''
        }
        ${secondaryMetrics(task, best.report)}
        <p class="note">
          ${meaningOf(primary, best.report.positiveClass)}. Estimated on samples the model did not see while it was fitted.
        </p>
      </div>
      <div class="card" data-card="features">
        <h3>Features that matter${features.length > 1 && best.plots[FEATURE_IMPORTANCE.name] ? ', most important first' : ''}</h3>
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

/** What the search tried, and whether its time limit stopped it. */
function searchWords(s: SearchFacts): string {
  const limit = s.timeLimitSeconds !== undefined ? duration(s.timeLimitSeconds) : undefined;
  if (!s.stoppedAtTimeLimit)
    return `every one of the ${s.configurationsPlanned} configurations tried${limit ? `, within the time limit of ${limit}` : ''}`;
  return (
    `stopped at its time limit of ${limit ?? 'n/a'}: ${s.configurationsTried} of ${s.configurationsPlanned} configurations tried; ` +
    'the models, their estimates and the leaderboard are over those' +
    (s.firstRoundOverran ? ' (the first round of the search, which always completes, ran past the time the limit left for it)' : '')
  );
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
    [
      'Models considered',
      p.modelsConsidered === ModelsConsidered.Interpretable ? 'interpretable only (linear models, decision trees)' : ModelsConsidered.All,
    ],
    [
      'Feature selection',
      p.featureSelection === FeatureSelection.MostRelevant
        ? 'the most relevant features'
        : 'the most relevant features, or all when that predicts better',
    ],
    ['Largest signature', `${p.maxSignatureSize} features; at most ${p.maxVisualizedSignatureCount} equivalent signatures shown`],
    ...(p.groupingFeature ? ([['Samples grouped by', p.groupingFeature]] as [string, Content][]) : []),
    ['Started', timestamp(data.startTime)],
    ['Finished', timestamp(end)],
    ['Duration', duration(data.executionTimeInSeconds)],
    ...(data.estimate
      ? ([
          [
            'Predicted duration',
            `${duration(data.estimate.executionTimeInSeconds.expected)} (${duration(data.estimate.executionTimeInSeconds.low)} to ${duration(data.estimate.executionTimeInSeconds.high)}), from the data's shape, before it ran`,
          ],
        ] as [string, Content][])
      : []),
    ...(data.search ? ([['Search', searchWords(data.search)]] as [string, Content][]) : []),
    ['Engine', data.mlEngine],
    ['Analysis id', data.analysisId],
  ];
  return markup`<section id="analysis" data-section="analysis">
    <h2>${REPORT_SECTIONS.analysis}</h2>
    ${facts(rows)}
  </section>`;
}

const FAMILY_WORDS: Record<string, string> = {
  linear: 'linear',
  tree: 'tree',
  'svm-linear': 'linear SVM',
  forest: 'forest',
  'svm-rbf': 'RBF SVM',
};

function leaderboardSection(data: ReportData): Markup {
  const board = data.leaderboard;
  if (!board)
    return markup`<section id="leaderboard" data-section="leaderboard">
      <h2>${REPORT_SECTIONS.leaderboard}</h2>
      <p class="note">This analysis finished before results kept their leaderboard: run it again to see every configuration tried.</p>
    </section>`;
  const ruled = board.rows.some((r) => r.simplicityRank !== undefined);
  const lossColumn = board.rows.some((r) => r.logLoss !== undefined);
  const metric = board.rows[0]?.metric ?? '';
  const row = (r: LeaderboardRow) =>
    markup`<tr data-rank="${r.rank}" ${r.modelKey ? markup` class="chosen" data-model-key="${r.modelKey}"` : ''}${r.tied ? markup` data-tied=""` : ''}${
      r.simplicityRank === undefined ? '' : markup` data-simplicity-rank="${String(r.simplicityRank)}"`
    }>
        <td class="num">${r.rank}</td>
        <td>
          ${r.model}${r.modelKey ? markup` <span class="badge${r.modelKey === ModelKey.Best ? '' : ' alt'}">${r.modelKey}</span>` : ''}${r.interpretable ? markup` <span class="note">(interpretable)</span>` : ''}${
            r.calibration ? markup` <span class="note">(${r.calibration === 'platt' ? 'Platt' : 'temperature'}-calibrated)</span>` : ''
          }
        </td>
        <td class="note">${r.featureSelection}</td>
        <td class="num" data-value="${r.value === null ? '' : String(r.value)}">${num(r.value)}${r.droppedEarly ? '*' : ''}</td>
        ${
          ruled
            ? markup`<td class="num" data-standard-error="${r.standardError === undefined ? '' : String(r.standardError)}">${
                r.standardError === undefined ? '' : num(r.standardError)
              }</td>
              ${lossColumn ? markup`<td class="num" data-log-loss="${r.logLoss === undefined ? '' : String(r.logLoss)}">${r.logLoss === undefined ? '' : num(r.logLoss)}</td>` : ''}
              <td>${r.tied ? 'tied' : r.tiedOnMetric ? markup`<span class="note">on ${metric} only</span>` : ''}</td>
              <td class="num">${r.simplicity ? String(r.simplicity.features) : Number.isFinite(r.signatureSize) ? r.signatureSize.toFixed(1) : 'n/a'}</td>
              <td>${r.simplicity ? (FAMILY_WORDS[r.simplicity.family] ?? r.simplicity.family) : ''}</td>
              <td class="num">${r.simplicityRank === undefined ? '' : String(r.simplicityRank)}</td>`
            : markup`<td class="num">${Number.isFinite(r.signatureSize) ? r.signatureSize.toFixed(1) : 'n/a'}</td>`
        }
      </tr>`;
  const columns = ruled ? (lossColumn ? 10 : 9) : 5;
  const rows = [
    ...board.rows.map(row),
    ...(board.chosen.length
      ? [
          markup`<tr class="gap"><td></td><td colspan="${columns - 1}" class="note">\u2026 the result's models, further down:</td></tr>`,
          ...board.chosen.map(row),
        ]
      : []),
  ];
  const headers = ruled
    ? [
        'rank',
        'model',
        'feature selection',
        metric,
        "standard error of the leader's lead",
        ...(lossColumn ? ['log loss'] : []),
        'tied',
        'features',
        'family',
        'simplicity rank',
      ]
    : ['rank', 'model', 'feature selection', metric, 'features (mean)'];
  const tied = board.tied ?? [];
  return markup`<section id="leaderboard" data-section="leaderboard">
    <h2>${REPORT_SECTIONS.leaderboard}</h2>
    <p>
      ${board.rows.length < board.totalCount ? `The top ${board.rows.length} of the ${count(board.totalCount)}` : `All ${count(board.totalCount)}`}
      configurations (feature selection + model) the analysis evaluated, by their pooled out-of-fold ${metric} (of calibrated probabilities
      where calibration lowered their log loss and Brier score). The winner rule: a configuration is tied with the top one when its
      ${metric} is below the top one's by at most the standard error of that gap (over the same bootstraps as the estimates)${
        lossColumn
          ? markup`, and the log loss of its probabilities is at most one standard error above the lowest of those tied on ${metric}: a
              ranking metric cannot tell a wide margin from a thin one`
          : ''
      }; the best model is the tied configuration that comes first in the simplicity order: the fewest features (the mean signature size over the
      folds, rounded), then the more interpretable family (linear, tree, linear SVM, forest, RBF SVM), then the stronger
      regularisation. So it need not be rank 1. The pooled values here are optimistic for the top of many configurations: the estimates
      above come from bootstrap bias-corrected cross-validation, which corrects for that choice.${
        board.rows.some((r) => r.droppedEarly)
          ? " *: dropped early (it lost to the leader with probability above 0.99): its value is on the samples evaluated until then, fewer than the others', and is not comparable with theirs."
          : ''
      }
    </p>
    ${table('leaderboard', 'Leaderboard', headers, rows)}
    ${
      tied.length
        ? markup`<p>
              The winner rule's candidates: ${count(board.tiedCount ?? tied.length)} configuration${(board.tiedCount ?? tied.length) === 1 ? ' is' : 's are'}
              tied with the top one${(board.tiedCount ?? 0) > tied.length ? markup`; the first ${tied.length} in the simplicity order` : ''}. The first is the best model.
            </p>
            ${table(
              'tied',
              'Tied with the top configuration, simplest first',
              ['simplicity rank', 'features', 'family', 'model', metric, 'rank'],
              tied.map(
                (r) =>
                  markup`<tr ${r.modelKey ? markup` class="chosen" data-model-key="${r.modelKey}"` : ''} data-simplicity-rank="${String(r.simplicityRank)}">
                    <td class="num">${String(r.simplicityRank)}</td>
                    <td class="num">${r.simplicity ? String(r.simplicity.features) : ''}</td>
                    <td>${r.simplicity ? (FAMILY_WORDS[r.simplicity.family] ?? r.simplicity.family) : ''}</td>
                    <td>${r.model}${r.modelKey ? markup` <span class="badge${r.modelKey === ModelKey.Best ? '' : ' alt'}">${r.modelKey}</span>` : ''}</td>
                    <td class="num">${num(r.value)}</td>
                    <td class="num">${r.rank}</td>
                  </tr>`,
              ),
            )}`
        : ''
    }
  </section>`;
}

function predictSection(data: ReportData): Markup {
  const id = data.analysisId;
  const base = `${data.origin}/api/public/v1`;
  const best = data.models.find((m) => m.key === ModelKey.Best) ?? data.models[0];
  const inputs = best?.report.signatures[0] ?? [];
  const key = best?.key ?? ModelKey.Best;
  const curl = `B=${base}
TOKEN=...   # from POST $B/login (see docs/api-guide.md)
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
        ...data.models.map((m) => [`model-${isModelKey(m.key) ? m.key : 'other'}`, modelHeading(m.key)]),
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
