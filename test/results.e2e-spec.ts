import * as fs from 'node:fs';
import * as path from 'node:path';
import { datasetFromCsv } from '../bench/csv-dataset';
import { auc, buildGrid, computeMetrics, metricNames, predict } from '../src/engine';
import { timeQuartiles } from '../src/engine/models/survival-tree';
import { Rng } from '../src/engine/rng';
import type { PredictionRow, SavedPipeline } from '../src/engine/types';
import {
  API,
  createProject,
  createTestApp,
  createUser,
  expectError,
  expectSuccess,
  pollUntil,
  TEST_DATA,
  TestApp,
  uploadDataset,
} from './utils';

/**
 * What a result shows a data scientist beyond api-v1's two plots: the plots of each kind of outcome, through the
 * plot routes (every answer is checked against the OpenAPI document's schemas by the test app).
 */
let t: TestApp;
let projectId: string;
let owner: Awaited<ReturnType<typeof createUser>>;
const analyses: Record<string, string> = {};
const datasets: Record<string, string> = {};

const OUTCOMES = {
  breast_cancer: { classification: 'diagnosis' },
  iris: { classification: 'species' },
  diabetes: { regression: 'progression' },
  lung: { survival: { event: 'status', timeToEvent: 'time' } },
} as const;
type Name = keyof typeof OUTCOMES;

beforeAll(async () => {
  t = await createTestApp({ WORKER_CORES: '2', ANALYSIS_SEED: '11' });
  owner = await createUser(t);
  projectId = await createProject(t, owner.auth, 'results');
  for (const name of Object.keys(OUTCOMES) as Name[]) {
    const datasetId = await uploadDataset(t, owner.auth, projectId, fs.readFileSync(path.join(TEST_DATA, `${name}.csv`)), { name });
    datasets[name] = datasetId;
    if (name === 'lung') {
      expectSuccess(
        await t
          .http()
          .post(`${API}/dataset/${datasetId}/changeFeatureTypes`)
          .set('Authorization', owner.auth)
          .send({ featureTypes: { status: 'event', time: 'timeToEvent' } }),
      );
    }
    const params = { outcome: OUTCOMES[name], thoroughness: 'preliminary', coreCount: 1, name };
    analyses[name] = expectSuccess(
      await t.http().post(`${API}/dataset/${datasetId}/analyze`).set('Authorization', owner.auth).send(params),
    ).analysisId;
  }
  for (const id of Object.values(analyses)) {
    const s = await pollUntil<{ state: string }>(
      t,
      owner.auth,
      `/analysis/${id}/status`,
      (x) => x.state !== 'pending' && x.state !== 'running',
      300_000,
    );
    expect(s.state).toBe('finished');
  }
}, 400_000);
afterAll(async () => {
  await t.close();
});

const FEATURE_PLOTS = [
  'Feature Importance',
  'Progressive Feature Importance',
  'Feature Stability',
  'Feature Contributions',
  'Partial Dependence',
];
const BINARY_PLOTS = [
  ...FEATURE_PLOTS,
  'ROC Curve',
  'Precision-Recall Curve',
  'Threshold Table',
  'Calibration',
  'Confusion Matrix',
  'Probabilities',
];
const CLASSES_PLOTS = [...FEATURE_PLOTS, 'ROC Curve', 'Calibration', 'Confusion Matrix', 'Probabilities'];
const SURVIVAL_PLOTS = [...FEATURE_PLOTS, 'Kaplan-Meier by Risk Group', 'Time-dependent AUC', 'Brier Score'];

describe('the plots of each kind of outcome', () => {
  it.each([
    ['breast_cancer', BINARY_PLOTS],
    ['iris', CLASSES_PLOTS],
    ['diabetes', [...FEATURE_PLOTS, 'Predicted vs Actual']],
    ['lung', SURVIVAL_PLOTS],
  ] as const)('%s lists its plots, and getPlot and getPlots return each', async (name, expected) => {
    const id = analyses[name];
    const avail = expectSuccess(await t.http().get(`${API}/analysis/${id}/availablePlots?modelKey=best`).set('Authorization', owner.auth));
    expect(avail.plots).toEqual(expected);
    const all = expectSuccess(
      await t.http().post(`${API}/analysis/${id}/getPlots`).send({ modelKey: 'best' }).set('Authorization', owner.auth),
    );
    expect(all.plots.map((p: object) => Object.keys(p)[0])).toEqual(expected);
    for (const plotKey of expected) {
      const one = expectSuccess(
        await t.http().get(`${API}/analysis/${id}/getPlot`).query({ modelKey: 'best', plotKey }).set('Authorization', owner.auth),
      );
      expect(one.plot).toEqual(all.plots[expected.indexOf(plotKey as never)]);
    }
  });

  it('breast_cancer: the ROC curve of the positive class (malignant), its area near the estimate, a 2 x 2 confusion matrix', async () => {
    const id = analyses.breast_cancer;
    const get = async (plotKey: string) =>
      expectSuccess(
        await t.http().get(`${API}/analysis/${id}/getPlot`).query({ modelKey: 'best', plotKey }).set('Authorization', owner.auth),
      ).plot[plotKey];
    const [roc] = await get('ROC Curve');
    expect(roc.class).toBe('malignant');
    const result = expectSuccess(await t.http().get(`${API}/analysis/${id}/result`).set('Authorization', owner.auth));
    // the pooled out-of-fold AUC of the chosen configuration and the BBC-CV estimate are close on this easy dataset
    expect(Math.abs(roc.auc - result.models.best.performance['Area Under the ROC Curve'])).toBeLessThan(0.03);
    const cm = await get('Confusion Matrix');
    expect(cm.classes).toEqual(['benign', 'malignant']);
    expect(cm.counts.flat().reduce((s: number, v: number) => s + v, 0)).toBe(569);
    expect(cm.perClass.map((c: { count: number }) => c.count)).toEqual([357, 212]);
    const [cal] = await get('Calibration');
    expect(cal.bins.reduce((s: number, b: { count: number }) => s + b.count, 0)).toBe(569);
  });

  it('lung: three risk groups of a third of the samples each, and the log-rank test', async () => {
    const km = expectSuccess(
      await t
        .http()
        .get(`${API}/analysis/${analyses.lung}/getPlot`)
        .query({ modelKey: 'best', plotKey: 'Kaplan-Meier by Risk Group' })
        .set('Authorization', owner.auth),
    ).plot['Kaplan-Meier by Risk Group'];
    expect(km.groups.map((g: { group: string; count: number }) => [g.group, g.count])).toEqual([
      ['low', 76],
      ['middle', 76],
      ['high', 76],
    ]);
    expect(km.logRank.df).toBe(2);
    expect(km.logRank.pValue).toBeLessThan(0.05);
  });
});

describe('model facts', () => {
  it('classification models state their classes and, for two, the positive class', async () => {
    const bc = expectSuccess(await t.http().get(`${API}/analysis/${analyses.breast_cancer}/result`).set('Authorization', owner.auth));
    for (const m of Object.values<{ classes: string[]; positiveClass: string }>(bc.models)) {
      expect(m.classes).toEqual(['benign', 'malignant']);
      expect(m.positiveClass).toBe('malignant');
    }
    const iris = expectSuccess(await t.http().get(`${API}/analysis/${analyses.iris}/result`).set('Authorization', owner.auth));
    expect(iris.models.best.classes).toEqual(['setosa', 'versicolor', 'virginica']);
    expect(iris.models.best.positiveClass).toBeUndefined();
    const diabetes = expectSuccess(await t.http().get(`${API}/analysis/${analyses.diabetes}/result`).set('Authorization', owner.auth));
    expect(diabetes.models.best.classes).toBeUndefined();
  });

  it('linear models give their coefficients on the original scale (Cox models: hazard ratios)', async () => {
    let views = 0;
    for (const name of Object.keys(OUTCOMES) as Name[]) {
      const result = expectSuccess(await t.http().get(`${API}/analysis/${analyses[name]}/result`).set('Authorization', owner.auth));
      for (const m of Object.values<{ model: string; modelView?: Record<string, unknown> }>(result.models)) {
        if (!m.modelView) continue;
        views++;
        expect(m.modelView.originalCoefficients).toHaveLength((m.modelView.coefficients as unknown[]).length);
        expect(m.modelView.intercept).toBeDefined();
        if (name === 'lung') expect(m.modelView.hazardRatios).toEqual((m.modelView.originalCoefficients as number[]).map(Math.exp));
      }
    }
    // the interpretable models of these analyses include linear ones
    expect(views).toBeGreaterThan(0);
  });
});

interface LeaderboardRow {
  rank: number;
  configuration: number;
  featureSelection: string;
  model: string;
  interpretable: boolean;
  metric: string;
  value: number | null;
  signatureSize: number;
  droppedEarly: boolean;
  modelKey?: string;
  uncalibratedValue?: number;
  calibration?: string;
  standardError?: number;
  tied?: boolean;
  tiedOnMetric?: boolean;
  logLoss?: number;
  logLossStandardError?: number;
  simplicity?: { features: number; family: string; flexibility: number };
  simplicityRank?: number;
  interpretableStandardError?: number;
  interpretableTied?: boolean;
}

describe('calibration', () => {
  it('every classification model reports the log loss, Brier score and calibration error of its probabilities, none 0 or 1; calibrated ones say how', async () => {
    for (const name of ['breast_cancer', 'iris'] as const) {
      const result = expectSuccess(await t.http().get(`${API}/analysis/${analyses[name]}/result`).set('Authorization', owner.auth));
      for (const [key, m] of Object.entries<{
        classes: string[];
        calibration: { logLoss: number; brier: number; ece: number; method?: string; uncalibrated?: { logLoss: number } };
      }>(result.models)) {
        expect(m.calibration.logLoss).toBeGreaterThan(0);
        expect(m.calibration.brier).toBeGreaterThanOrEqual(0);
        expect(m.calibration.ece).toBeGreaterThanOrEqual(0);
        if (m.calibration.method !== undefined) {
          expect(m.calibration.method).toBe(m.classes.length === 2 ? 'platt' : 'temperature');
          expect(m.calibration.logLoss).toBeLessThanOrEqual(m.calibration.uncalibrated?.logLoss as number);
        }
        const oof = expectSuccess(
          await t.http().get(`${API}/analysis/${analyses[name]}/outOfFoldPredictions?modelKey=${key}`).set('Authorization', owner.auth),
        );
        const probabilities = (oof.predictions as { probabilities: Record<string, number> }[]).flatMap((r) =>
          Object.values(r.probabilities),
        );
        expect(Math.min(...probabilities)).toBeGreaterThan(0);
        expect(Math.max(...probabilities)).toBeLessThan(1);
      }
    }
    const diabetes = expectSuccess(await t.http().get(`${API}/analysis/${analyses.diabetes}/result`).set('Authorization', owner.auth));
    expect(diabetes.models.best.calibration).toBeUndefined();
  });
});

describe('one number per quantity', () => {
  const plotOf = async (name: Name, key: string, plotKey: string) =>
    expectSuccess(
      await t.http().get(`${API}/analysis/${analyses[name]}/getPlot`).query({ modelKey: key, plotKey }).set('Authorization', owner.auth),
    ).plot[plotKey];

  it("breast_cancer: each model's pooled sensitivity, specificity and AUC are its confusion matrix's and ROC curve's, intervals included", async () => {
    const result = expectSuccess(await t.http().get(`${API}/analysis/${analyses.breast_cancer}/result`).set('Authorization', owner.auth));
    for (const [key, m] of Object.entries<{
      pooledPerformance: Record<string, number>;
      pooledPerformanceCis: Record<string, [number, number]>;
    }>(result.models)) {
      const cm = await plotOf('breast_cancer', key, 'Confusion Matrix');
      const [benign, malignant] = cm.perClass as { sensitivity: number; sensitivityCis: [number, number] }[];
      expect(m.pooledPerformance.Sensitivity).toBeCloseTo(malignant.sensitivity, 12);
      expect(m.pooledPerformanceCis.Sensitivity).toEqual(malignant.sensitivityCis);
      expect(m.pooledPerformance.Specificity).toBeCloseTo(benign.sensitivity, 12);
      expect(m.pooledPerformanceCis.Specificity).toEqual(benign.sensitivityCis);
      expect(m.pooledPerformance.Sensitivity).toBeCloseTo(cm.counts[1][1] / (cm.counts[1][0] + cm.counts[1][1]), 12);
      const [roc] = await plotOf('breast_cancer', key, 'ROC Curve');
      expect(m.pooledPerformance['Area Under the ROC Curve']).toBeCloseTo(roc.auc, 12);
      // a sensitivity interval on 212 positives is as narrow as the binomial's, about +- 2 x sqrt(0.9 x 0.1 / 212) = 0.04
      const [lo, hi] = m.pooledPerformanceCis.Sensitivity;
      expect(hi - lo).toBeLessThan(0.12);
    }
  });

  it('iris and lung: the pooled values are the metrics of the out-of-fold predictions', async () => {
    for (const name of ['iris', 'lung'] as const) {
      const result = expectSuccess(await t.http().get(`${API}/analysis/${analyses[name]}/result`).set('Authorization', owner.auth));
      const m = result.models.best as { classes?: string[]; pooledPerformance: Record<string, number> };
      const oof = expectSuccess(
        await t.http().get(`${API}/analysis/${analyses[name]}/outOfFoldPredictions?modelKey=best`).set('Authorization', owner.auth),
      );
      const rows = oof.predictions as { actual: string | number; event?: number; probabilities?: Record<string, number>; risk?: number }[];
      if (name === 'iris') {
        const classes = m.classes as string[];
        const p = Float64Array.from(rows.flatMap((r) => classes.map((c) => (r.probabilities as Record<string, number>)[c])));
        const y = Float64Array.from(rows, (r) => classes.indexOf(r.actual as string));
        const metrics = computeMetrics('classification', p, { y }, 3);
        for (const metric of metricNames('classification', 3)) expect(m.pooledPerformance[metric]).toBeCloseTo(metrics[metric], 12);
      } else {
        const risk = Float64Array.from(rows, (r) => r.risk as number);
        const metrics = computeMetrics(
          'survival',
          risk,
          { y: Float64Array.from(rows, (r) => r.actual as number), event: Float64Array.from(rows, (r) => r.event as number) },
          0,
        );
        expect(m.pooledPerformance['Concordance Index']).toBeCloseTo(metrics['Concordance Index'], 12);
      }
    }
  });

  it("the report's at-a-glance sensitivity and specificity are the confusion matrix's", async () => {
    const page = await t.http().get(`${API}/analysis/${analyses.breast_cancer}/report`).set('Authorization', owner.auth);
    const cm = await plotOf('breast_cancer', 'best', 'Confusion Matrix');
    const glance = page.text.slice(page.text.indexOf('data-card="performance"'), page.text.indexOf('data-card="features"'));
    for (const [metric, cls] of [
      ['Sensitivity', 1],
      ['Specificity', 0],
    ] as const) {
      const at = glance.match(new RegExp(`data-metric="${metric}" data-pooled="([^"]+)" data-pooled-cis="([^"]+)"`));
      expect(at).not.toBeNull();
      const [, value, cis] = at as RegExpMatchArray;
      expect(Number(value)).toBeCloseTo(cm.perClass[cls].sensitivity, 12);
      expect(cis.split(' ').map(Number)).toEqual(cm.perClass[cls].sensitivityCis);
    }
  });
});

describe('the leaderboard', () => {
  async function everyRow(analysisId: string): Promise<{ totalCount: number; rows: LeaderboardRow[] }> {
    const rows: LeaderboardRow[] = [];
    let totalCount = 0;
    for (let offset = 0; offset === 0 || offset < totalCount; offset += 7) {
      const page = expectSuccess(
        await t.http().get(`${API}/analysis/${analysisId}/configurations/${offset}/7`).set('Authorization', owner.auth),
      );
      expect(page.analysisId).toBe(analysisId);
      expect(page.offset).toBe(offset);
      totalCount = page.totalCount;
      rows.push(...page.data);
    }
    return { totalCount, rows };
  }

  it.each([
    ['breast_cancer', 30, 569],
    ['diabetes', 10, 442],
  ] as const)('%s: every configuration evaluated, by pooled out-of-fold metric, marking the best', async (name, features, n) => {
    const { totalCount, rows } = await everyRow(analyses[name]);
    const outcome = OUTCOMES[name];
    const task = Object.keys(outcome)[0] as 'classification' | 'regression';
    const grid = buildGrid(
      {
        outcome,
        modelsConsidered: 'all',
        featureSelection: 'mostRelevant',
        thoroughness: 'preliminary',
        coreCount: 1,
        maxSignatureSize: 25,
        maxVisualizedSignatureCount: 5,
      },
      task,
      features,
      n,
    );
    expect(totalCount).toBe(grid.length);
    expect(rows).toHaveLength(totalCount);
    expect(rows.map((r) => r.rank)).toEqual(rows.map((_, k) => k + 1));
    expect(new Set(rows.map((r) => r.configuration)).size).toBe(totalCount);
    // the configurations evaluated to the end first, then those dropped early; each part by value, highest first
    const firstDropped = rows.findIndex((r) => r.droppedEarly);
    const full = firstDropped < 0 ? rows.length : firstDropped;
    expect(rows.slice(full).every((r) => r.droppedEarly)).toBe(true);
    for (const part of [rows.slice(0, full), rows.slice(full)]) {
      for (let k = 1; k < part.length; k++) expect(part[k].value ?? -Infinity).toBeLessThanOrEqual(part[k - 1].value ?? -Infinity);
    }
    const result = expectSuccess(await t.http().get(`${API}/analysis/${analyses[name]}/result`).set('Authorization', owner.auth));
    for (const key of Object.keys(result.models)) {
      const chosen = rows.filter((r) => r.modelKey === key);
      expect(chosen).toHaveLength(1);
      expect(result.models[key].model.startsWith(chosen[0].model)).toBe(true);
      expect(result.models[key].featureSelection.startsWith(chosen[0].featureSelection)).toBe(true);
      expect(chosen[0].droppedEarly).toBe(false);
    }
    expect(rows.filter((r) => r.modelKey !== undefined)).toHaveLength(Object.keys(result.models).length);
    expect(rows[0].metric).toBe(task === 'classification' ? 'Area Under the ROC Curve' : 'R Squared');
  });

  it('shows each configuration by the metric the winner rule compared (of its calibrated probabilities), beside the uncalibrated one', async () => {
    for (const name of ['breast_cancer', 'iris'] as const) {
      const { rows } = await everyRow(analyses[name]);
      const result = expectSuccess(await t.http().get(`${API}/analysis/${analyses[name]}/result`).set('Authorization', owner.auth));
      const K = name === 'iris' ? 3 : 2;
      for (const row of rows.filter((r) => r.calibration !== undefined)) {
        expect(row.calibration).toBe(K === 2 ? 'platt' : 'temperature');
        expect(row.uncalibratedValue).toEqual(expect.any(Number));
        // two classes: an increasing map, the same AUC
        if (K === 2) expect(Math.abs((row.value as number) - (row.uncalibratedValue as number))).toBeLessThan(1e-12);
      }
      for (const [key, m] of Object.entries<{ classes: string[]; calibration: { method?: string } }>(result.models)) {
        const row = rows.find((r) => r.modelKey === key) as LeaderboardRow;
        expect(row.calibration).toBe(m.calibration.method);
        const oof = expectSuccess(
          await t.http().get(`${API}/analysis/${analyses[name]}/outOfFoldPredictions?modelKey=${key}`).set('Authorization', owner.auth),
        );
        // one repeat: the row's value is the metric of the predictions the route gives (the calibrated ones)
        if (oof.repeats !== 1) continue;
        const predictions = oof.predictions as { actual: string; probabilities: Record<string, number> }[];
        const p = Float64Array.from(predictions.flatMap((r) => m.classes.map((c) => r.probabilities[c])));
        const y = Float64Array.from(predictions, (r) => m.classes.indexOf(r.actual));
        expect(row.value).toBeCloseTo(computeMetrics('classification', p, { y }, K)[metricNames('classification', K)[0]], 12);
      }
    }
  });

  it.each(['breast_cancer', 'iris', 'diabetes', 'lung'] as const)(
    '%s: a reader can check the winner rule: best is the first tied row in simplicity order, interpretable the first among the interpretable',
    async (name) => {
      const { rows } = await everyRow(analyses[name]);
      const evaluated = rows.filter((r) => !r.droppedEarly);
      const leader = evaluated[0];
      expect(leader.standardError).toBe(0);
      const classification = leader.logLoss !== undefined;
      const onMetric = evaluated.filter((r) => (leader.value as number) - (r.value as number) <= (r.standardError as number));
      const lowest = Math.min(...onMetric.map((r) => r.logLoss ?? Infinity));
      for (const r of evaluated) {
        expect(r.standardError).toEqual(expect.any(Number));
        expect(r.tiedOnMetric).toBe(onMetric.includes(r));
        expect(r.simplicity?.features).toBe(Math.round(r.signatureSize));
        // classification: tied on the metric, and on the log loss among those
        const onLoss = !classification || (r.tiedOnMetric === true && (r.logLoss as number) - lowest <= (r.logLossStandardError as number));
        expect(r.tied).toBe(r.tiedOnMetric === true && onLoss);
      }
      expect(rows.filter((r) => r.droppedEarly).every((r) => r.tied === undefined && r.simplicityRank === undefined)).toBe(true);
      // the simplicity ranks are a permutation, in the documented order of the keys
      const bySimplicity = [...evaluated].sort((a, b) => (a.simplicityRank as number) - (b.simplicityRank as number));
      expect(bySimplicity.map((r) => r.simplicityRank)).toEqual(evaluated.map((_, k) => k + 1));
      const FAMILIES = ['linear', 'tree', 'svm-linear', 'forest', 'svm-rbf'];
      for (let k = 1; k < bySimplicity.length; k++) {
        const [a, b] = [bySimplicity[k - 1].simplicity, bySimplicity[k].simplicity] as {
          features: number;
          family: string;
          flexibility: number;
        }[];
        const keys = (x: typeof a) => [x.features, FAMILIES.indexOf(x.family), x.flexibility];
        const [ka, kb] = [keys(a), keys(b)];
        const first = ka.findIndex((v, i) => v !== kb[i]);
        if (first >= 0) expect(ka[first]).toBeLessThan(kb[first]);
      }
      const best = bySimplicity.find((r) => r.tied);
      expect(best?.modelKey).toBe('best');
      const interpretable = rows.find((r) => r.modelKey === 'interpretable');
      if (interpretable) {
        const first = bySimplicity.filter((r) => r.interpretable).find((r) => r.interpretableTied);
        expect(first?.configuration).toBe(interpretable.configuration);
      }
    },
  );

  it('answers an analysis whose result was stored before it kept a leaderboard with its own code; bad pages as every list', async () => {
    const [a] = await t.db.query(
      `INSERT INTO analyses (project_id, dataset_id, user_id, name, parameters, state, core_count, seed, start_time, end_time)
       SELECT project_id, dataset_id, user_id, 'old', parameters, 'finished', 1, 1, now(), now() FROM analyses WHERE id = $1 RETURNING id`,
      [analyses.iris],
    );
    await t.db.query(
      `INSERT INTO analysis_results (analysis_id, ml_engine, models, plots, pipelines, stats)
       SELECT $1, ml_engine, models, plots, pipelines, stats FROM analysis_results WHERE analysis_id = $2`,
      [a.id, analyses.iris],
    );
    expectError(await t.http().get(`${API}/analysis/${a.id}/configurations/0/10`).set('Authorization', owner.auth), 'notFound-120-2-4');
    expectError(
      await t.http().get(`${API}/analysis/${a.id}/outOfFoldPredictions?modelKey=best`).set('Authorization', owner.auth),
      'notFound-120-2-4',
    );
    expectError(
      await t.http().get(`${API}/analysis/${analyses.iris}/configurations/0/101`).set('Authorization', owner.auth),
      'badRequest-1-0-1',
    );
    expectError(await t.http().get(`${API}/analysis/99999/configurations/0/10`).set('Authorization', owner.auth), 'notFound-120-2-1');
    const pending = expectSuccess(
      await t
        .http()
        .post(
          `${API}/dataset/${(await t.db.query('SELECT dataset_id FROM analyses WHERE id = $1', [analyses.iris]))[0].dataset_id}/analyze`,
        )
        .set('Authorization', owner.auth)
        .send({ outcome: OUTCOMES.iris, thoroughness: 'preliminary', coreCount: 1, name: 'soon deleted' }),
    ).analysisId;
    expectError(await t.http().get(`${API}/analysis/${pending}/configurations/0/10`).set('Authorization', owner.auth), 'notFound-120-2-3');
    expectSuccess(await t.http().post(`${API}/analysis/${pending}/delete`).set('Authorization', owner.auth));
  });
});

describe('out-of-fold predictions', () => {
  it("breast_cancer: one row per sample, whose AUC is the ROC curve plot's, as JSON and CSV", async () => {
    const id = analyses.breast_cancer;
    const oof = expectSuccess(
      await t.http().get(`${API}/analysis/${id}/outOfFoldPredictions?modelKey=best`).set('Authorization', owner.auth),
    );
    expect(oof).toMatchObject({ analysisId: id, modelKey: 'best' });
    expect(oof.repeats).toBeGreaterThanOrEqual(1);
    const rows = oof.predictions as { row: number; actual: string; prediction: string; probabilities: Record<string, number> }[];
    expect(rows.map((r) => r.row)).toEqual(rows.map((_, i) => i));
    expect(rows.filter((r) => r.actual === 'malignant')).toHaveLength(212);
    for (const r of rows) {
      expect(r.probabilities.benign + r.probabilities.malignant).toBeCloseTo(1, 9);
      expect(r.prediction).toBe(r.probabilities.malignant > r.probabilities.benign ? 'malignant' : 'benign');
    }
    const [roc] = expectSuccess(
      await t
        .http()
        .get(`${API}/analysis/${id}/getPlot`)
        .query({ modelKey: 'best', plotKey: 'ROC Curve' })
        .set('Authorization', owner.auth),
    ).plot['ROC Curve'];
    expect(
      auc(
        rows.map((r) => r.probabilities.malignant),
        rows.map((r) => (r.actual === 'malignant' ? 1 : 0)),
      ),
    ).toBeCloseTo(roc.auc, 12);
    const csv = await t.http().get(`${API}/analysis/${id}/outOfFoldPredictions?modelKey=best&format=csv`).set('Authorization', owner.auth);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split('\n');
    expect(lines[0]).toBe('row,actual,prediction,probability:benign,probability:malignant');
    expect(lines).toHaveLength(570);
    expect(lines[1].split(',').slice(0, 3)).toEqual(['0', rows[0].actual, rows[0].prediction]);
  });

  it('lung: the actual time, the event and the risk of each sample', async () => {
    const oof = expectSuccess(
      await t.http().get(`${API}/analysis/${analyses.lung}/outOfFoldPredictions?modelKey=best`).set('Authorization', owner.auth),
    );
    expect(oof.predictions).toHaveLength(228);
    expect(oof.predictions[0]).toMatchObject({ row: 0, actual: 306, event: 1 });
    expect(oof.predictions[0].risk).toBe(oof.predictions[0].prediction);
    const csv = await t
      .http()
      .get(`${API}/analysis/${analyses.lung}/outOfFoldPredictions?modelKey=best&format=csv`)
      .set('Authorization', owner.auth);
    expect(csv.text.split('\n')[0]).toBe('row,actual,event,prediction,risk');
  });

  it('are written once, on an engine process, and then sent as stored (issue 41, finding 3: parsed and written on the event loop)', async () => {
    const id = analyses.diabetes;
    const get = (format = 'json') =>
      t.http().get(`${API}/analysis/${id}/outOfFoldPredictions?modelKey=best&format=${format}`).set('Authorization', owner.auth);
    const [first, firstCsv] = [expectSuccess(await get()), (await get('csv')).text];
    const stored = await t.db.query(
      `SELECT model_key, length(rows_json) > 0 AS json, convert_from(csv, 'UTF8') AS csv FROM out_of_fold_texts WHERE analysis_id = $1`,
      [id],
    );
    expect(stored).toEqual([{ model_key: 'best', json: true, csv: firstCsv }]);
    // what is sent is the stored text: a change under it shows (a result never changes; this proves where answers come from)
    await t.db.query(
      `UPDATE out_of_fold_texts SET rows_json = convert_to('[{"row":0,"actual":1,"prediction":2}]', 'UTF8') WHERE analysis_id = $1`,
      [id],
    );
    expect(expectSuccess(await get())).toEqual({ ...first, predictions: [{ row: 0, actual: 1, prediction: 2 }] });
    await t.db.query(`DELETE FROM out_of_fold_texts WHERE analysis_id = $1`, [id]);
    expect(expectSuccess(await get())).toEqual(first);
  });

  it('refuses an unknown model, format or parameter with their codes', async () => {
    const id = analyses.diabetes;
    const get = (q: string) => t.http().get(`${API}/analysis/${id}/outOfFoldPredictions?${q}`).set('Authorization', owner.auth);
    expectError(await get('modelKey=nope'), 'notFound-140-1-1');
    expectError(await get(''), 'badRequest-1-0-5');
    expectError(await get('modelKey=best&format=xml'), 'badRequest-150-0-2');
    expectError(await get('modelKey=best&other=1'), 'badRequest-1-0-7');
  });
});

describe('explanations, as a user asks for them', () => {
  interface Explained {
    scale: string;
    method: string;
    outputs: { class?: string; value: number; base: number; contributions: Record<string, number> }[];
  }
  const get = (path: string, query: object = {}) => t.http().get(`${API}${path}`).query(query).set('Authorization', owner.auth);

  it.each([
    ['breast_cancer', 'probabilities'],
    ['diabetes', 'prediction'],
    ['lung', 'risk'],
  ] as const)('%s: a prediction with explain: true explains every row; base + contributions = the output', async (name, _what) => {
    const id = analyses[name];
    const result = expectSuccess(await get(`/analysis/${id}/result`));
    const { predictionId } = expectSuccess(
      await t
        .http()
        .post(`${API}/analysis/${id}/predict/${datasets[name]}`)
        .set('Authorization', owner.auth)
        .send({ modelKey: 'best', explain: true }),
    );
    const done = await pollUntil<{ state: string }>(
      t,
      owner.auth,
      `/prediction/${predictionId}/status`,
      (x) => x.state !== 'pending' && x.state !== 'running',
      120_000,
    );
    expect(done.state).toBe('finished');
    const res = expectSuccess(await get(`/prediction/${predictionId}/result`));
    const rows = res.predictions as {
      prediction: number | string;
      risk?: number;
      probabilities?: Record<string, number>;
      explanation: Explained;
    }[];
    expect(rows).toHaveLength({ breast_cancer: 569, diabetes: 442, lung: 228 }[name]);
    const signature: string[] = result.models.best.signatures[0];
    for (const r of rows) {
      const e = r.explanation;
      expect(e.outputs).toHaveLength(1);
      const o = e.outputs[0];
      expect(Object.keys(o.contributions).sort()).toEqual([...signature].sort());
      const sum = Object.values(o.contributions).reduce((a, b) => a + b, o.base);
      expect(Math.abs(sum - o.value)).toBeLessThan(1e-9);
      if (name === 'diabetes') expect(o.value).toBeCloseTo(r.prediction as number, 9);
      if (name === 'lung') expect(o.value).toBeCloseTo(r.risk as number, 9);
      if (name === 'breast_cancer') {
        expect(o.class).toBe('malignant');
        // a higher log-odds or probability of malignant, a higher predicted probability (calibration keeps the order)
        expect(['log-odds', 'probability', 'decision value']).toContain(e.scale);
      }
    }
    if (name === 'breast_cancer') {
      const sorted = [...rows].sort((a, b) => a.explanation.outputs[0].value - b.explanation.outputs[0].value);
      expect((sorted[0].probabilities as Record<string, number>).malignant).toBeLessThan(
        (sorted[sorted.length - 1].probabilities as Record<string, number>).malignant,
      );
    }
    const csv = await get(`/prediction/${predictionId}/result`, { format: 'csv' });
    const header = csv.text.split('\n')[0].split(',');
    expect(header).toEqual(expect.arrayContaining(['base', 'explained', ...signature.map((f) => `contribution:${f}`)]));
  });

  it.each(['breast_cancer', 'diabetes', 'lung'] as const)(
    '%s: the out-of-fold predictions with explain=true, whose mean absolute contributions are the Feature Contributions plot',
    async (name) => {
      const id = analyses[name];
      const oof = expectSuccess(await get(`/analysis/${id}/outOfFoldPredictions`, { modelKey: 'best', explain: 'true' }));
      const rows = oof.predictions as { explanation: Explained }[];
      const plot = expectSuccess(await get(`/analysis/${id}/getPlot`, { modelKey: 'best', plotKey: 'Feature Contributions' })).plot[
        'Feature Contributions'
      ] as { scale: string; outputs: { features: { name: string; value: number }[] }[] };
      expect(rows.every((r) => r.explanation.scale === plot.scale)).toBe(true);
      for (const f of plot.outputs[0].features) {
        const mean = rows.reduce((s, r) => s + Math.abs(r.explanation.outputs[0].contributions[f.name]), 0) / rows.length;
        expect(mean).toBeCloseTo(f.value, 9);
      }
      for (const r of rows) {
        const o = r.explanation.outputs[0];
        expect(Math.abs(Object.values(o.contributions).reduce((a, b) => a + b, o.base) - o.value)).toBeLessThan(1e-9);
      }
      expectError(await get(`/analysis/${id}/outOfFoldPredictions`, { modelKey: 'best', explain: 'yes' }), 'badRequest-1-0-6');
    },
  );

  it("breast_cancer: the threshold table's sensitivity and specificity are a recount of the out-of-fold probabilities", async () => {
    const id = analyses.breast_cancer;
    const oof = expectSuccess(await get(`/analysis/${id}/outOfFoldPredictions`, { modelKey: 'best' }));
    const rows = oof.predictions as { actual: string; probabilities: Record<string, number> }[];
    const table = expectSuccess(await get(`/analysis/${id}/getPlot`, { modelKey: 'best', plotKey: 'Threshold Table' })).plot[
      'Threshold Table'
    ];
    for (const r of [...table.rows, table.youden] as { threshold: number; sensitivity: number; specificity: number }[]) {
      const called = rows.map((x) => x.probabilities.malignant >= r.threshold);
      const pos = rows.filter((x) => x.actual === 'malignant').length;
      const tp = rows.filter((x, i) => called[i] && x.actual === 'malignant').length;
      const tn = rows.filter((x, i) => !called[i] && x.actual !== 'malignant').length;
      expect(r.sensitivity).toBeCloseTo(tp / pos, 12);
      expect(r.specificity).toBeCloseTo(tn / (rows.length - pos), 12);
    }
  });

  it.each(['breast_cancer', 'diabetes', 'lung'] as const)(
    '%s: the report draws every plot the model lists, the new ones among them',
    async (name) => {
      const id = analyses[name];
      const avail = expectSuccess(await get(`/analysis/${id}/availablePlots`, { modelKey: 'best' })).plots as string[];
      const report = await get(`/analysis/${id}/report`);
      expect(report.status).toBe(200);
      for (const plot of avail)
        expect({ plot, drawn: report.text.includes(`data-plot="${plot}" data-model="best"`) }).toEqual({ plot, drawn: true });
      expect(avail).toEqual(expect.arrayContaining(['Feature Contributions', 'Partial Dependence']));
    },
  );
});

describe('survival predictions', () => {
  async function predictLung(body: object) {
    return t.http().post(`${API}/analysis/${analyses.lung}/predict/${datasets.lung}`).set('Authorization', owner.auth).send(body);
  }

  it('a Cox model predicts survival probabilities at the times asked for and the median survival time, in JSON and CSV', async () => {
    const result = expectSuccess(await t.http().get(`${API}/analysis/${analyses.lung}/result`).set('Authorization', owner.auth));
    // the interpretable model of a survival analysis is Cox regression (best, when no forest beats it)
    const modelKey = result.models.interpretable ? 'interpretable' : 'best';
    expect(result.models[modelKey].model).toMatch(/Cox/);
    const { predictionId } = expectSuccess(await predictLung({ modelKey, times: [100, 365, 730] }));
    await pollUntil<{ state: string }>(t, owner.auth, `/prediction/${predictionId}/status`, (x) => x.state === 'finished', 60_000);
    const res = expectSuccess(await t.http().get(`${API}/prediction/${predictionId}/result`).set('Authorization', owner.auth));
    expect(res.predictions).toHaveLength(228);
    for (const row of res.predictions as {
      risk: number;
      survival: { time: number; probability: number }[];
      medianSurvivalTime?: number;
    }[]) {
      expect(row.survival.map((s) => s.time)).toEqual([100, 365, 730]);
      const p = row.survival.map((s) => s.probability);
      expect(p[0]).toBeGreaterThanOrEqual(p[1]);
      expect(p[1]).toBeGreaterThanOrEqual(p[2]);
      expect(p[2]).toBeGreaterThan(0);
      expect(p[0]).toBeLessThanOrEqual(1);
    }
    // a higher risk, a lower survival
    const rows = [...res.predictions].sort((a: { risk: number }, b: { risk: number }) => a.risk - b.risk);
    expect(rows[0].survival[1].probability).toBeGreaterThan(rows[rows.length - 1].survival[1].probability);
    const csv = await t.http().get(`${API}/prediction/${predictionId}/result?format=csv`).set('Authorization', owner.auth);
    expect(csv.text.split('\n')[0]).toBe('row,prediction,risk,survival:100,survival:365,survival:730,medianSurvivalTime');
  });

  it("a random survival forest predicts survival from its leaves' hazards, as the engine does from the saved pipeline", async () => {
    // 150 samples whose hazard grows with x1 squared (and a little with x1): the forest beats Cox regression
    const rng = new Rng(5);
    const lines = ['x1,x2,time,status'];
    for (let i = 0; i < 150; i++) {
      const x1 = rng.next() * 2 - 1;
      const x2 = rng.next() * 2 - 1;
      const time = (-Math.log(rng.next()) / Math.exp(4 * x1 * x1 + x1)) * 100;
      const censored = rng.next() * 150;
      lines.push(`${x1.toFixed(4)},${x2.toFixed(4)},${Math.min(time, censored).toFixed(2)},${time <= censored ? 1 : 0}`);
    }
    const csv = lines.join('\n') + '\n';
    const datasetId = await uploadDataset(t, owner.auth, projectId, csv, { name: 'u-shaped hazard' });
    const types = { featureTypes: { status: 'event', time: 'timeToEvent' } };
    expectSuccess(await t.http().post(`${API}/dataset/${datasetId}/changeFeatureTypes`).set('Authorization', owner.auth).send(types));
    const analysisId = expectSuccess(
      await t
        .http()
        .post(`${API}/dataset/${datasetId}/analyze`)
        .set('Authorization', owner.auth)
        .send({ outcome: OUTCOMES.lung, thoroughness: 'preliminary', coreCount: 1, name: 'forest' }),
    ).analysisId;
    await pollUntil<{ state: string }>(t, owner.auth, `/analysis/${analysisId}/status`, (x) => x.state === 'finished', 120_000);
    const result = expectSuccess(await t.http().get(`${API}/analysis/${analysisId}/result`).set('Authorization', owner.auth));
    expect(result.models.best.model).toMatch(/^Random survival forest/);

    const predicted = async (body: object) => {
      const { predictionId } = expectSuccess(
        await t.http().post(`${API}/analysis/${analysisId}/predict/${datasetId}`).set('Authorization', owner.auth).send(body),
      );
      await pollUntil<{ state: string }>(t, owner.auth, `/prediction/${predictionId}/status`, (x) => x.state === 'finished', 60_000);
      const res = expectSuccess(await t.http().get(`${API}/prediction/${predictionId}/result`).set('Authorization', owner.auth));
      const csvRes = await t.http().get(`${API}/prediction/${predictionId}/result?format=csv`).set('Authorization', owner.auth);
      return { rows: res.predictions as PredictionRow[], header: csvRes.text.split('\n')[0] };
    };
    const [{ pipeline }] = await t.db.query(`SELECT pipelines -> 'best' -> 0 AS pipeline FROM analysis_results WHERE analysis_id = $1`, [
      analysisId,
    ]);
    const data = datasetFromCsv(csv, { status: 'event', time: 'timeToEvent' });
    const asked = await predicted({ modelKey: 'best', times: [10, 30, 60] });
    expect(asked.header).toBe('row,prediction,risk,survival:10,survival:30,survival:60,medianSurvivalTime');
    expect(asked.rows).toEqual(predict(pipeline as SavedPipeline, data, { times: [10, 30, 60] }));
    for (const row of asked.rows) {
      const p = (row.survival ?? []).map((s) => s.probability);
      expect(p[0]).toBeLessThanOrEqual(1);
      expect(p[1]).toBeLessThanOrEqual(p[0]);
      expect(p[2]).toBeLessThanOrEqual(p[1]);
      expect(p[2]).toBeGreaterThan(0);
    }
    // the curves of the riskier samples reach 0.5: they have a median survival time
    expect(asked.rows.some((r) => r.medianSurvivalTime !== undefined)).toBe(true);
    // without times: the quartiles of the training times
    const times = lines.slice(1).map((l) => Number(l.split(',')[2]));
    const byDefault = await predicted({ modelKey: 'best' });
    expect(byDefault.rows[0].survival?.map((s) => s.time)).toEqual(timeQuartiles(times));
  });

  it('refuses times that are not 1 to 100 non-negative numbers, and times for a model that is not a survival model', async () => {
    for (const times of [[], [-1], ['100'], 5, Array.from({ length: 101 }, (_, i) => i)]) {
      expectError(await predictLung({ modelKey: 'best', times }), 'badRequest-1-0-6');
    }
    expectError(
      await t
        .http()
        .post(`${API}/analysis/${analyses.iris}/predict/${datasets.iris}`)
        .set('Authorization', owner.auth)
        .send({ modelKey: 'best', times: [1] }),
      'badRequest-1-0-7',
    );
  });
});
