import { probabilityFloor } from './calibration';
import { loadShared, parameters } from '../../bench/engine-datasets';
import { prepareData } from './data';
import type { Configuration } from './grid';
import { runTask, TaskData } from './pipeline';
import type { AnalysisParameters, EngineDataset, ModelView, Outcome } from './types';

/** The dataset with a categorical column of three levels added, so that the view has per-level coefficients. */
function withCategory(data: EngineDataset): EngineDataset {
  const codes = Int32Array.from({ length: data.sampleCount }, (_, i) => (i * 7) % 3);
  return { ...data, columns: [...data.columns, { name: 'site', type: 'categorical', codes, levels: ['north', 'south', 'west'] }] };
}

/** The final fit of a linear model on every sample, with the data it was fitted on. */
function finalLinearFit(name: string, outcome: Outcome, lambda: number) {
  const params: AnalysisParameters = parameters(outcome, 'preliminary');
  const prepared = prepareData(withCategory(loadShared(name)), params);
  const data: TaskData = { ...prepared, maxSignatureSize: 25, seed: 1 };
  const config: Configuration = { index: 0, selector: { kind: 'all' }, model: { kind: 'linear', lambda }, interpretable: true };
  const all = Int32Array.from({ length: prepared.n }, (_, i) => i);
  const features = prepared.features.map((_, j) => j);
  const res = runTask(data, { id: 0, config, train: all, test: all, seedIds: [0], fixedFeatures: features, final: true });
  return { data, res, view: res.modelView as ModelView };
}

/** The linear predictor of every sample from the original-scale coefficients and the raw values. */
function linearPredictors(data: TaskData, view: ModelView, b0: number, b: number[]): Float64Array {
  const column = (label: string): Float64Array => {
    const [feature, level] = label.split('=');
    const j = data.features.findIndex((f) => f.name === feature);
    const raw = data.X.subarray(j * data.n, (j + 1) * data.n);
    if (level === undefined) return raw;
    const code = data.features[j].levels.indexOf(level);
    return Float64Array.from(raw, (v) => (v === code ? 1 : 0));
  };
  const cols = view.featureNames.map(column);
  return Float64Array.from({ length: data.n }, (_, i) => cols.reduce((s, c, j) => s + b[j] * c[i], b0));
}

/** Rows without a missing value (a missing value is imputed to the training mean, which the raw data do not show). */
function complete(data: TaskData): number[] {
  return Array.from({ length: data.n }, (_, i) => i).filter((i) => data.features.every((_, j) => !Number.isNaN(data.X[j * data.n + i])));
}

describe('the model view on the original scale of the features', () => {
  it('ridge regression: intercept + coefficients x values give its predictions', () => {
    const { data, res, view } = finalLinearFit('diabetes', { regression: 'progression' }, 0.01);
    expect(view.featureNames).toEqual(expect.arrayContaining(['bmi', 'site=south', 'site=west']));
    const eta = linearPredictors(data, view, view.intercept as number, view.originalCoefficients as number[]);
    for (const i of complete(data)) expect(eta[i]).toBeCloseTo(res.predictions[i], 8);
  });

  it('binary logistic regression: the log-odds of the positive class', () => {
    const { data, res, view } = finalLinearFit('breast_cancer', { classification: 'diagnosis' }, 0.01);
    expect(view.classes).toEqual(['malignant']);
    const eta = linearPredictors(data, view, view.intercept as number, view.originalCoefficients as number[]);
    // the probability is the sigmoid of the log-odds, then floored (calibration.ts)
    const floor = probabilityFloor(data.n);
    for (const i of complete(data)) expect(floor + (1 - 2 * floor) / (1 + Math.exp(-eta[i]))).toBeCloseTo(res.predictions[i * 2 + 1], 8);
  });

  it('multinomial logistic regression: the softmax of the classes scores', () => {
    const { data, res, view } = finalLinearFit('iris', { classification: 'species' }, 0.01);
    expect(view.classes).toEqual(data.classes);
    const b0 = view.intercept as number[];
    const b = view.originalCoefficients as number[][];
    const etas = data.classes.map((_, c) => linearPredictors(data, view, b0[c], b[c]));
    for (const i of complete(data)) {
      const e = etas.map((x) => Math.exp(x[i]));
      const total = e.reduce((s, v) => s + v, 0);
      const floor = probabilityFloor(data.n);
      e.forEach((v, c) => expect(floor + ((1 - 3 * floor) * v) / total).toBeCloseTo(res.predictions[i * 3 + c], 8));
    }
  });

  it('Cox regression: the risk score, and hazard ratios per unit', () => {
    const { data, res, view } = finalLinearFit('lung', { survival: { event: 'status', timeToEvent: 'time' } }, 0.001);
    const b = view.originalCoefficients as number[];
    const eta = linearPredictors(data, view, view.intercept as number, b);
    const rows = complete(data);
    expect(rows.length).toBeGreaterThan(150);
    for (const i of rows) expect(eta[i]).toBeCloseTo(res.predictions[i], 8);
    expect(view.hazardRatios).toEqual(b.map(Math.exp));
    // a year of age multiplies the hazard by a little more than 1 (R's coxph: 1.011 with sex and ph.ecog)
    expect(view.hazardRatios?.[view.featureNames.indexOf('age')]).toBeGreaterThan(1);
  });
});
