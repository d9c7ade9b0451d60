import { createHash } from 'node:crypto';
import { activeParts, flat, HOSTILE, marksOf, ONERROR, QUOTES, SCRIPT } from '../../../test/report-markup';
import { PLOT_NAMES } from '../../engine/plots';
import type { ModelPlots, ModelReport } from '../../engine/types';
import { escapeHtml } from './html';
import { PLOT_RENDERERS, rendererOf } from './plot-charts';
import type { ReportData } from './report-data';
import { equivalentsByPosition, shortModel } from './report-parts';
import { REPORT_SECTIONS, renderReport } from './report-page';
import { REPORT_CSP, REPORT_CSS, REPORT_CSS_HASH } from './styles';

// ---- a report of each kind of outcome, from values shaped as the engine stores them -----------------------------------

const curve = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ fpr: i / (n - 1), tpr: Math.sqrt(i / (n - 1)), threshold: 1 - i / (n - 1) }));

/** One value of every plot kind (the type asks for each: a kind added to the registry needs one here). */
const PLOTS: Required<ModelPlots> = {
  'Feature Importance': [
    { name: SCRIPT, value: 0.12, cis: [0.05, 0.2] },
    { name: QUOTES, value: 0.03, cis: [-0.01, 0.07] },
  ],
  'Progressive Feature Importance': [
    { name: [SCRIPT], value: 91, cis: [85, 96] },
    { name: [SCRIPT, QUOTES], value: 100, cis: [100, 100] },
  ],
  'Feature Stability': [
    { name: SCRIPT, value: 1 },
    { name: QUOTES, value: 0.8 },
    { name: ONERROR, value: 0.6 },
  ],
  'ROC Curve': [
    {
      class: ONERROR,
      auc: 0.91,
      cis: [0.85, 0.96],
      points: curve(20),
      band: Array.from({ length: 51 }, (_, j) => ({
        fpr: j / 50,
        tpr: Math.sqrt(j / 50),
        cis: [Math.sqrt(j / 50) * 0.9, Math.min(1, Math.sqrt(j / 50) * 1.1)],
      })),
    },
  ],
  Calibration: [
    {
      class: ONERROR,
      brier: 0.08,
      ece: 0.02,
      bins: [0.05, 0.45, 0.95].map((p) => ({
        lower: p - 0.05,
        upper: p + 0.05,
        count: 10,
        meanPredicted: p,
        observed: p,
        cis: [p / 2, (1 + p) / 2],
      })),
    },
  ],
  'Confusion Matrix': {
    classes: [QUOTES, ONERROR],
    counts: [
      [40, 5],
      [6, 49],
    ],
    perClass: [
      { class: QUOTES, count: 45, sensitivity: 0.889, sensitivityCis: [0.8, 0.95], precision: 0.87, precisionCis: [0.78, 0.94] },
      { class: ONERROR, count: 55, sensitivity: 0.891, sensitivityCis: [0.8, 0.96] },
    ],
  },
  Probabilities: [QUOTES, ONERROR].map((trueClass, t) => ({
    trueClass,
    count: 50,
    probabilities: [QUOTES, ONERROR].map((c, k) => {
      const m = k === t ? 0.8 : 0.2;
      return { class: c, mean: m, min: m - 0.2, q1: m - 0.1, median: m, q3: m + 0.1, max: m + 0.2, values: [m] };
    }),
  })),
  'Predicted vs Actual': {
    points: [
      { actual: 10, predicted: 12 },
      { actual: 20, predicted: 19 },
      { actual: 30, predicted: 28 },
    ],
    intercept: 0.5,
    interceptCis: [-1, 2],
    slope: 0.98,
    slopeCis: [0.9, 1.05],
    rSquared: 0.93,
    rSquaredCis: [0.88, 0.97],
    meanError: -0.33,
  },
  'Kaplan-Meier by Risk Group': {
    groups: (['low', 'middle', 'high'] as const).map((group, g) => ({
      group,
      count: 10,
      events: 3 + g,
      riskRange: [g - 1, g] as [number, number],
      curve: [100, 200, 300].map((time, i) => ({
        time,
        atRisk: 10 - 3 * i,
        events: 1,
        censored: 0,
        survival: 1 - (i + 1) * (0.1 + 0.1 * g),
        ...(i < 2 ? { cis: [0.5 - 0.1 * g, Math.min(1, 1 - 0.1 * g)] as [number, number] } : {}),
      })),
    })),
    logRank: { chiSquare: 12.3, df: 2, pValue: 0.0021 },
  },
  'Feature Contributions': {
    scale: 'log-odds',
    method: 'closedForm',
    outputs: [
      {
        class: ONERROR,
        features: [
          { name: SCRIPT, value: 0.9, cis: [0.8, 1] },
          { name: QUOTES, value: 0.2, cis: [0.1, 0.3] },
        ],
      },
    ],
  },
  'Partial Dependence': {
    output: 'probability',
    features: [
      {
        feature: SCRIPT,
        kind: 'numerical',
        grid: [1, 2, 3],
        outputs: [{ class: ONERROR, average: [0.2, 0.5, 0.8], curves: [{ row: 4, values: [0.1, 0.4, 0.9] }] }],
      },
      {
        feature: QUOTES,
        kind: 'categorical',
        grid: [0, 1],
        labels: [ONERROR, SCRIPT],
        outputs: [{ class: ONERROR, average: [0.3, 0.6], curves: [{ row: 4, values: [0.2, 0.7] }] }],
      },
    ],
  },
  'Precision-Recall Curve': {
    class: ONERROR,
    averagePrecision: 0.88,
    cis: [0.8, 0.94],
    prevalence: 0.4,
    points: [
      { recall: 0.2, precision: 1, threshold: 0.9 },
      { recall: 0.7, precision: 0.85, threshold: 0.5 },
      { recall: 1, precision: 0.4, threshold: 0.01 },
    ],
  },
  'Threshold Table': {
    class: ONERROR,
    rows: [0.25, 0.5, 0.75].map((threshold) => ({
      threshold,
      calledPositive: Math.round(100 * (1 - threshold)),
      sensitivity: 1 - threshold / 2,
      sensitivityCis: [0.8 - threshold / 2, 1] as [number, number],
      specificity: 0.5 + threshold / 2,
      specificityCis: [0.4 + threshold / 2, 1] as [number, number],
      ppv: 0.8,
      ppvCis: [0.7, 0.9] as [number, number],
      npv: 0.9,
      npvCis: [0.8, 0.95] as [number, number],
    })),
    youden: {
      threshold: 0.41,
      calledPositive: 50,
      sensitivity: 0.9,
      sensitivityCis: [0.85, 0.95],
      specificity: 0.85,
      specificityCis: [0.8, 0.9],
      ppv: 0.8,
      ppvCis: [0.7, 0.9],
      j: 0.75,
    },
  },
  'Time-dependent AUC': [0.25, 0.5, 0.75].map((quantile) => ({
    quantile,
    time: 400 * quantile,
    auc: 0.7,
    cis: [0.6, 0.8] as [number, number],
  })),
  'Brier Score': {
    points: [100, 200, 300].map((time) => ({ time, brier: time / 2000, cis: [time / 2500, time / 1500] as [number, number] })),
    integrated: 0.1,
    integratedCis: [0.08, 0.12],
    reference: 0.14,
  },
};

function model(overrides: Partial<ModelReport>): ModelReport {
  return {
    preprocessing: 'Constant feature removal, mean imputation, standardization',
    featureSelection: 'Statistically equivalent signatures (SES): maxK = 2, alpha = 0.05',
    model: 'Binary logistic regression with ridge penalty (lambda = 0.1); coefficients on standardized features',
    signatures: [
      [SCRIPT, QUOTES],
      [SCRIPT, ONERROR],
    ],
    signatureCount: 2,
    performance: { 'Area Under the ROC Curve': 0.9123, Accuracy: 0.85 },
    performanceCis: { 'Area Under the ROC Curve': [0.851, 0.962], Accuracy: [0.8, 0.9] },
    stability: { [SCRIPT]: 1, [QUOTES]: 0.8, [ONERROR]: 0.6 },
    ...overrides,
  };
}

const TASK_PLOTS = {
  classification: [
    'Feature Importance',
    'Progressive Feature Importance',
    'Feature Stability',
    'Feature Contributions',
    'Partial Dependence',
    'ROC Curve',
    'Precision-Recall Curve',
    'Threshold Table',
    'Calibration',
    'Confusion Matrix',
    'Probabilities',
  ],
  regression: [
    'Feature Importance',
    'Progressive Feature Importance',
    'Feature Stability',
    'Feature Contributions',
    'Partial Dependence',
    'Predicted vs Actual',
  ],
  survival: [
    'Feature Importance',
    'Progressive Feature Importance',
    'Feature Stability',
    'Feature Contributions',
    'Partial Dependence',
    'Kaplan-Meier by Risk Group',
    'Time-dependent AUC',
    'Brier Score',
  ],
} as const;

function reportData(task: keyof typeof TASK_PLOTS, models: Record<string, ModelReport>): ReportData {
  const outcome =
    task === 'classification'
      ? { classification: ONERROR }
      : task === 'regression'
        ? { regression: QUOTES }
        : { survival: { event: 'status', timeToEvent: SCRIPT } };
  const metric = task === 'classification' ? 'Area Under the ROC Curve' : task === 'regression' ? 'R Squared' : 'Concordance Index';
  const plots = Object.fromEntries(TASK_PLOTS[task].map((n) => [n, PLOTS[n]])) as ModelPlots;
  return {
    analysisId: '42',
    projectId: '7',
    parameters: {
      outcome,
      name: SCRIPT,
      datasetId: '3',
      thoroughness: 'preliminary',
      modelsConsidered: 'all',
      featureSelection: 'mostRelevant',
      coreCount: 1,
      maxSignatureSize: 25,
      maxVisualizedSignatureCount: 5,
    },
    dataset: { name: ONERROR, sampleCount: 100, featureCount: 4 },
    mlEngine: 'signet-engine 0.1.0',
    serviceVersion: '0.1.0',
    startTime: '2026-11-26T20:00:00.000Z',
    executionTimeInSeconds: 75.4,
    generatedAt: new Date('2026-11-26T21:00:00.000Z'),
    models: Object.entries(models).map(([key, report]) => ({ key, report, plots })),
    leaderboard: {
      totalCount: 30,
      rows: [
        {
          rank: 1,
          configuration: 4,
          featureSelection: 'LASSO',
          model: SCRIPT,
          interpretable: false,
          metric,
          value: 0.95,
          signatureSize: 2.5,
          droppedEarly: false,
        },
        {
          rank: 2,
          configuration: 1,
          featureSelection: 'SES',
          model: 'Binary logistic regression',
          interpretable: true,
          metric,
          value: 0.94,
          signatureSize: 2,
          droppedEarly: false,
          modelKey: 'best',
        },
        {
          rank: 3,
          configuration: 9,
          featureSelection: 'SES',
          model: 'Decision tree',
          interpretable: true,
          metric,
          value: null,
          signatureSize: 1,
          droppedEarly: true,
        },
      ],
      chosen: [
        {
          rank: 25,
          configuration: 12,
          featureSelection: 'SES',
          model: 'Decision tree',
          interpretable: true,
          metric,
          value: 0.9,
          signatureSize: 1,
          droppedEarly: false,
          modelKey: 'interpretable',
        },
      ],
    },
    origin: 'http://localhost:8080',
  };
}

const CLASSIFICATION = reportData('classification', {
  best: model({
    performance: { 'Area Under the ROC Curve': 0.9123, Accuracy: 0.85, Sensitivity: 0.8 },
    performanceCis: { 'Area Under the ROC Curve': [0.851, 0.962], Accuracy: [0.8, 0.9], Sensitivity: [0.7, 0.9] },
    classes: [QUOTES, ONERROR],
    positiveClass: ONERROR,
    calibration: { brier: 0.08, ece: 0.02, method: 'platt', uncalibrated: { brier: 0.1, ece: 0.06 } },
    modelView: { featureNames: [SCRIPT, QUOTES], coefficients: [0.9, -0.4], intercept: -1.5, originalCoefficients: [0.09, -4] },
  }),
});

describe('the plot renderers', () => {
  it('draw every plot kind of the registry', () => {
    expect(Object.keys(PLOT_RENDERERS).sort()).toEqual([...PLOT_NAMES].sort());
    expect(rendererOf('A plot of a later version')).toBeUndefined();
    for (const name of PLOT_NAMES) {
      const drawn = PLOT_RENDERERS[name as keyof typeof PLOT_RENDERERS](PLOTS[name as keyof typeof PLOTS] as never, {
        primaryMetric: 'Area Under the ROC Curve',
        outcome: QUOTES,
        positiveClass: ONERROR,
      });
      const svg = flat(drawn.parts.svg);
      expect({ name, marks: marksOf(svg) > 0, active: activeParts(svg + flat(drawn.parts.table)) }).toEqual({
        name,
        marks: true,
        active: [],
      });
      expect({ name, title: svg.includes(`<title>${name}</title>`) }).toEqual({ name, title: true });
    }
  });
});

const flatReport = (data: ReportData) => flat(renderReport(data));

describe('the report', () => {
  it('is one document whose only style is allowed by its hash, with every section, escaped names and no active part', () => {
    const raw = renderReport(CLASSIFICATION);
    const page = flat(raw);
    expect(page.startsWith('<!DOCTYPE html><html lang="en">')).toBe(true);
    expect(REPORT_CSS_HASH).toBe(`'sha256-${createHash('sha256').update(REPORT_CSS).digest('base64')}'`);
    const styles = [...raw.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]);
    expect(styles).toEqual([REPORT_CSS]);
    expect(page).toContain(`<meta http-equiv="Content-Security-Policy" content="${escapeHtml(REPORT_CSP)}"/>`);
    expect(REPORT_CSP).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; img-src data:;/);
    expect(page).not.toMatch(/\sstyle=/);
    expect(activeParts(page)).toEqual([]);
    for (const name of HOSTILE) {
      expect(page).not.toContain(name);
      expect(page).toContain(escapeHtml(name));
    }
    for (const [id, title] of Object.entries(REPORT_SECTIONS))
      expect(page).toContain(`<section id="${id}" data-section="${id}"><h2>${title}</h2>`);
    expect(page).toContain('<h2>Best model</h2>');
    for (const name of TASK_PLOTS.classification) expect(page).toContain(`<figure class="plot" data-plot="${name}" data-model="best"`);
  });

  it('shows each metric with its interval, the leaderboard, the signature with equivalents and stability, and the coefficients', () => {
    const page = flat(renderReport(CLASSIFICATION));
    expect(page).toContain('data-value="0.9123">0.912</td><td class="num" data-cis="0.851 0.962">0.851\u20130.962</td>');
    expect(page).toContain('<p class="big">Area Under the ROC Curve 0.912</p>');
    expect(page).toContain('<p data-secondary="">Sensitivity <strong>0.800</strong> (0.700\u20130.900)</p>');
    expect(page).toContain('<span data-equivalent="&lt;img src=x onerror=alert(1)&gt;">');
    expect(page).toMatch(
      /<tr data-feature="o&#39;neil &quot;quoted&quot;"><th scope="row">o&#39;neil &quot;quoted&quot;<\/th><td class="num">80%/,
    );
    expect(page).toContain('<tr data-rank="2" class="chosen" data-model-key="best">');
    expect(page).toContain('<td class="num" data-value="">n/a*</td>');
    // the result's other model, ranked below the top rows, after them
    expect(page).toMatch(/<tr data-rank="3">.*<tr class="gap">.*<tr data-rank="25" class="chosen" data-model-key="interpretable">/);
    // per unit, per standard deviation, odds ratio per standard deviation
    expect(page).toContain('<td>0.090</td><td>0.900</td><td>2.460</td>');
    expect(page).toContain('Brier score 0.080, calibration error 0.020');
    expect(page).toContain('c.predict_outcome(&quot;42&quot;, dataset_id, model_key=&quot;best&quot;)');
    expect(page).toContain('curl -s -X POST $B/analysis/42/predict/&lt;datasetId&gt;');
  });

  it('draws the plots of a regression and of a survival analysis, and a Cox model its hazard ratios', () => {
    const regression = flatReport(
      reportData('regression', {
        best: model({
          model: 'Ridge linear regression (lambda = 0.1)',
          performance: { 'R Squared': 0.48 },
          performanceCis: { 'R Squared': [0.4, 0.56] },
        }),
      }),
    );
    for (const name of TASK_PLOTS.regression) expect(regression).toContain(`data-plot="${name}"`);
    expect(regression).not.toContain('data-plot="ROC Curve"');
    const survival = flatReport(
      reportData('survival', {
        best: model({
          model: 'Cox proportional hazards regression',
          performance: { 'Concordance Index': 0.63 },
          performanceCis: { 'Concordance Index': [0.56, 0.7] },
          modelView: { featureNames: [SCRIPT], coefficients: [0.14], intercept: 0.1, originalCoefficients: [0.19], hazardRatios: [1.21] },
        }),
        interpretable: model({
          model: 'Cox proportional hazards regression (lambda = 1)',
          performance: { 'Concordance Index': 0.61 },
          performanceCis: { 'Concordance Index': [0.55, 0.68] },
        }),
      }),
    );
    for (const name of TASK_PLOTS.survival) expect(survival).toContain(`data-plot="${name}" data-model="best"`);
    expect(survival).toContain('data-plot="Kaplan-Meier by Risk Group" data-model="interpretable"');
    expect(survival).toContain('p = 0.002.');
    // the interpretable model's interval overlaps the winner's
    expect(survival).toContain('About as good as the model that won');
    expect(survival).toContain('<td>0.190</td><td>0.140</td><td>1.150</td><td>1.210</td>');
    expect(survival).not.toContain(SCRIPT);
  });

  it('reads a result without the parts later versions added (no stability, leaderboard, plots or intervals)', () => {
    const data = reportData('classification', {
      best: model({ stability: undefined, performanceCis: undefined, signatureCount: undefined }),
    });
    const page = flat(renderReport({ ...data, leaderboard: undefined, models: data.models.map((m) => ({ ...m, plots: {} })) }));
    expect(page).toContain('before results kept their leaderboard');
    expect(page).toContain('<td class="num">n/a</td>');
    expect(page).not.toContain('<figure');
  });
});

describe('report helpers', () => {
  it('names the model kind without its settings, and lines up equivalents by position', () => {
    expect(shortModel('Support vector machine (RBF kernel, C = 1)')).toBe('Support vector machine');
    expect(shortModel('Ridge linear regression; coefficients on standardized features')).toBe('Ridge linear regression');
    expect(
      equivalentsByPosition([
        ['a', 'b', 'c'],
        ['a', 'x', 'c'],
        ['a', 'y', 'z'],
      ]),
    ).toEqual([[], ['x', 'y'], ['z']]);
    expect(equivalentsByPosition([['a'], ['b', 'c']])).toEqual([[]]);
  });
});
