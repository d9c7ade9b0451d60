import * as fs from 'node:fs';
import * as path from 'node:path';
import { API, createProject, createTestApp, createUser, expectSuccess, pollUntil, TEST_DATA, TestApp, uploadDataset } from './utils';

/**
 * What a result shows a data scientist beyond api-v1's two plots: the plots of each kind of outcome, through the
 * plot routes (every answer is checked against the OpenAPI document's schemas by the test app).
 */
let t: TestApp;
let owner: Awaited<ReturnType<typeof createUser>>;
const analyses: Record<string, string> = {};

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
  const projectId = await createProject(t, owner.auth, 'results');
  for (const name of Object.keys(OUTCOMES) as Name[]) {
    const datasetId = await uploadDataset(t, owner.auth, projectId, fs.readFileSync(path.join(TEST_DATA, `${name}.csv`)), { name });
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

const FEATURE_PLOTS = ['Feature Importance', 'Progressive Feature Importance', 'Feature Stability'];
const CLASSIFICATION_PLOTS = [...FEATURE_PLOTS, 'ROC Curve', 'Calibration', 'Confusion Matrix', 'Probabilities'];

describe('the plots of each kind of outcome', () => {
  it.each([
    ['breast_cancer', CLASSIFICATION_PLOTS],
    ['iris', CLASSIFICATION_PLOTS],
    ['diabetes', [...FEATURE_PLOTS, 'Predicted vs Actual']],
    ['lung', [...FEATURE_PLOTS, 'Kaplan-Meier by Risk Group']],
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
