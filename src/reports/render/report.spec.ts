import { createHash } from 'node:crypto';
import { PLOT_NAMES } from '../../engine/plots';
import type { ModelPlots, ModelReport } from '../../engine/types';
import { niceDomain, ticks } from './chart-frame';
import { barChart, boxChart, heatMap, scatterChart, stepChart, xyChart } from './charts';
import { duration, interval, num, pct, pValue } from './format';
import { escapeHtml, join, markup, Markup } from './html';
import { PLOT_RENDERERS, rendererOf } from './plot-charts';
import type { ReportData } from './report-data';
import { equivalentsByPosition, shortModel } from './report-parts';
import { REPORT_SECTIONS, renderReport } from './report-page';
import { REPORT_CSP, REPORT_CSS, REPORT_CSS_HASH } from './styles';

/** Names as users' files can hold them: markup, quotes, an event handler. */
const SCRIPT = '<script>alert("x")</script>';
const QUOTES = `o'neil "quoted"`;
const ONERROR = '<img src=x onerror=alert(1)>';
const HOSTILE = [SCRIPT, QUOTES, ONERROR];

/** Every tag of a page that could run code or load something: such elements, event handlers, sources, outside links. */
function activeParts(page: string): string[] {
  const out: string[] = [];
  for (const [tag] of page.matchAll(/<[A-Za-z/][^>]*>/g)) {
    // attribute values are text: what matters is the tag's own names
    const bare = tag.replace(/"[^"]*"/g, '""');
    const name = /^<\/?([A-Za-z]+)/.exec(bare)?.[1].toLowerCase() ?? '';
    const hrefs = [...tag.matchAll(/\shref="([^"]*)"/g)].map((m) => m[1]);
    if (
      ['script', 'img', 'iframe', 'object', 'embed', 'base', 'form', 'frame'].includes(name) ||
      /\s(on\w+|src|srcset|action|formaction|xlink:href)\s*=/i.test(bare) ||
      hrefs.some((h) => !h.startsWith('#') && !(name === 'link' && h === 'data:,'))
    )
      out.push(tag);
  }
  return out;
}

/** Markup with its whitespace made single spaces and none between tags: what tests compare (the layout is not the point). */
const flat = (m: Markup | string): string =>
  String(m)
    .replace(/\s+/g, ' ')
    .replace(/ ?> ?</g, '><')
    .replace(/ \/>/g, '/>')
    .replace(/ >/g, '>');

/** Marks of one figure: the elements a chart draws its data with. */
const marksOf = (svg: string) => [...svg.matchAll(/class="mark\b/g)].length;

describe('html', () => {
  it('escapes the five characters of markup in text and attribute values', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });

  it('escapes every interpolated value, keeps markup as it is, joins lists and drops nothing-values', () => {
    const cell = markup`<td title="${QUOTES}">${SCRIPT}</td>`;
    expect(cell.value).toBe('<td title="o&#39;neil &quot;quoted&quot;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</td>');
    expect(markup`<tr>${[cell, ONERROR, 3, null, undefined, false]}</tr>`.value).toBe(
      `<tr>${cell.value}&lt;img src=x onerror=alert(1)&gt;3</tr>`,
    );
    // the template's own line breaks and indentation are one space
    expect(
      markup`<p>
        one
        ${'two'}</p
      >`.value,
    ).toBe('<p> one two</p >');
    expect(join(['a<', new Markup('<b>'), 'c'], ', ').value).toBe('a&lt;, <b>, c');
  });
});

describe('format', () => {
  it('writes numbers to about three decimals, percentages, intervals, p-values and durations', () => {
    expect([num(0.98623), num(12.3456), num(123.456), num(55036.7), num(-0.2), num(-0.0001), num(0), num(NaN), num(null)]).toEqual([
      '0.986',
      '12.35',
      '123.5',
      '55037',
      '\u22120.200',
      '\u22121.00e-4',
      '0',
      'n/a',
      'n/a',
    ]);
    expect([pct(0.9731), pct(1), pct(-0.00001)]).toEqual(['97.3%', '100.0%', '0.0%']);
    expect(interval([0.951, 0.989])).toBe('0.951\u20130.989');
    expect(interval(undefined)).toBe('n/a');
    expect([pValue(0.0004), pValue(0.0312)]).toEqual(['< 0.001', '0.031']);
    expect([duration(4.25), duration(75.4), duration(3 * 3600 + 300)]).toEqual(['4.3 s', '1 min 15 s', '3 h 05 min']);
  });
});

describe('charts', () => {
  it('puts round ticks over a domain widened to them', () => {
    expect(ticks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(ticks(-0.47, 1.2)).toEqual([0, 0.5, 1]);
    expect(ticks(-0.5, 1.2)).toEqual([-0.5, 0, 0.5, 1]);
    expect(niceDomain([0.13, 0.87])).toEqual([0.1, 0.9]);
    expect(niceDomain([0.13, 0.87], [0])).toEqual([0, 1]);
    expect(niceDomain([5, 5])).toEqual([4.4, 5.6]);
    expect(niceDomain([])).toEqual([0, 1]);
  });

  it('draws one bar per value with its whisker, titled with its values, and tables them', () => {
    const parts = barChart({
      title: 'Importance',
      bars: [
        { label: SCRIPT, value: 0.25, cis: [0.1, 0.4] },
        { label: 'b', value: -0.05, cis: [-0.1, 0.02] },
        { label: 'c', value: 0.1 },
      ],
      axis: { label: 'drop', percent: true },
      reference: 0,
      labelHeader: 'feature',
    });
    const svg = flat(parts.svg);
    const table = flat(parts.table);
    expect([...svg.matchAll(/class="mark bar"/g)]).toHaveLength(3);
    expect([...svg.matchAll(/class="mark whisker"/g)]).toHaveLength(2);
    expect(svg).toContain('<title>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;: 25.0% (10.0%\u201340.0%) (95% interval)</title>');
    expect(activeParts(svg + table)).toEqual([]);
    // the negative bar starts at 0 and goes left: its x plus width is the x of 0
    const rects = [...svg.matchAll(/<rect class="mark bar" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/g)].map((m) => [
      Number(m[1]),
      Number(m[2]),
    ]);
    expect(rects[1][0] + rects[1][1]).toBeCloseTo(rects[0][0], 0);
    expect(table).toContain('<td>\u22125.0%</td><td>\u221210.0%\u20132.0%</td>');
    expect(table).toContain('<td>10.0%</td><td>n/a</td>');
  });

  it('draws steps that hold each value until the next time, with a band closed back along its lower edge', () => {
    const step = stepChart({
      title: 'KM',
      x: { label: 'time', domain: [0, 10] },
      y: { label: 'survival', domain: [0, 1] },
      series: [
        {
          name: 'low',
          points: [
            { x: 0, y: 1 },
            { x: 5, y: 0.5 },
            { x: 10, y: 0.25 },
          ],
          band: [{ x: 0, cis: [1, 1] }, { x: 5, cis: [0.3, 0.7] }, { x: 10 }],
        },
      ],
      table: { headers: ['t'], rows: [] },
    });
    const svg = flat(step.svg);
    // frame 500 x 330, margins 56/14/12/46: x(5) = 56 + 5/10 * 430 = 271, y(0.5) = 284 - 0.5 * 272 = 148
    expect(svg).toContain('d="M56 12H271V148H486V216"');
    // the band runs while intervals exist (0 and 5) and comes back along the lower edge as steps
    expect(svg).toContain('d="M56 12H271V93.6L271 202.4V12H56Z"');
    expect(flat(step.legend ?? '')).toContain('low');
  });

  it('draws points, the identity line and fitted lines in a square frame', () => {
    const scatter = scatterChart({
      title: 'PvA',
      square: true,
      diagonal: true,
      x: { label: 'predicted', domain: [0, 10] },
      y: { label: 'actual', domain: [0, 10] },
      series: [{ name: 'samples', points: [1, 2, 3].map((v) => ({ x: v, y: v + 1 })) }],
      lines: [{ name: 'fit', intercept: 1, slope: 1 }],
      table: { headers: ['x', 'y'], rows: [['1', '2']] },
    });
    const svg = flat(scatter.svg);
    expect([...svg.matchAll(/class="mark point"/g)]).toHaveLength(3);
    expect(svg).toContain('class="reference"');
    expect(svg).toContain('class="mark fit"');
    expect(svg).toMatch(/^<svg class="chart" width="440" height="420" viewBox="0 0 440 420"/);
  });

  it('draws lines with markers and whiskers, boxes, and a heat map whose cells hold the counts', () => {
    const xy = xyChart({
      title: 'cal',
      x: { label: 'p' },
      y: { label: 'o' },
      series: [{ name: 's', markers: true, points: [{ x: 0.1, y: 0.2, cis: [0.1, 0.3] }] }],
      table: { headers: ['p'], rows: [] },
    });
    expect([marksOf(flat(flat(xy.svg))), flat(flat(xy.svg)).includes('class="mark errorbar"')]).toEqual([3, true]);
    const box = boxChart({
      title: 'p',
      boxes: [{ label: ONERROR, group: QUOTES, min: 0, q1: 0.2, median: 0.5, q3: 0.7, max: 1, mean: 0.45 }],
      axis: { label: 'probability', domain: [0, 1] },
      labelHeader: 'class',
    });
    expect(flat(box.svg)).toContain('class="mark box"');
    expect(activeParts(flat(box.svg) + flat(box.table))).toEqual([]);
    const heat = heatMap({
      title: 'cm',
      rowLabels: ['a', QUOTES],
      columnLabels: ['a', QUOTES],
      counts: [
        [8, 2],
        [1, 9],
      ],
      rowHeader: 'true',
      columnHeader: 'predicted',
    });
    expect([...flat(heat.svg).matchAll(/class="mark cell"/g)]).toHaveLength(4);
    expect([...flat(heat.svg).matchAll(/<text class="count[^"]*"[^>]*>(\d+)<\/text>/g)].map((m) => m[1])).toEqual(['8', '2', '1', '9']);
    expect(flat(heat.table)).toContain('<th scope="row">o&#39;neil &quot;quoted&quot;</th><td>1</td><td>9</td>');
  });
});

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
    'ROC Curve',
    'Calibration',
    'Confusion Matrix',
    'Probabilities',
  ],
  regression: ['Feature Importance', 'Progressive Feature Importance', 'Feature Stability', 'Predicted vs Actual'],
  survival: ['Feature Importance', 'Progressive Feature Importance', 'Feature Stability', 'Kaplan-Meier by Risk Group'],
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
    for (const name of TASK_PLOTS.classification) expect(page).toContain(`<figure class="plot" data-plot="${name}" data-model="best">`);
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
