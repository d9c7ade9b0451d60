import * as fs from 'node:fs';
import * as path from 'node:path';
import { TEST_REFERENCES } from '../../test/data';
import { loadShared, parameters } from '../../bench/engine-datasets';
import { subsetDataset } from '../../bench/csv-dataset';
import { prepareData } from './data';
import type { Configuration } from './grid';
import { CoxRegression } from './models/cox';
import { Pipeline, runTask, TaskData } from './pipeline';
import type { EngineDataset, ModelView, SavedPipeline } from './types';

const R = JSON.parse(fs.readFileSync(path.join(TEST_REFERENCES, 'survival-references.json'), 'utf8')).cox;
const FEATURES: string[] = R.features;

/** lung without the samples missing time, status, age, sex or ph.ecog (R's complete cases). */
function completeLung(): EngineDataset {
  const lung = loadShared('lung');
  const values = (name: string) => {
    const c = lung.columns.find((x) => x.name === name);
    return c && 'values' in c ? c.values : new Float64Array(0);
  };
  const rows = Array.from({ length: lung.sampleCount }, (_, i) => i).filter((i) =>
    ['time', 'status', ...FEATURES].every((f) => !Number.isNaN(values(f)[i])),
  );
  return subsetDataset(lung, rows);
}

/** Cox regression (no penalty) on age, sex and ph.ecog, fitted as an analysis fits its final model. */
function fitCox(data: EngineDataset): { pipeline: SavedPipeline; view: ModelView } {
  const prepared = prepareData(data, parameters({ survival: { event: 'status', timeToEvent: 'time' } }, 'preliminary'));
  const task: TaskData = { ...prepared, maxSignatureSize: 25, seed: 1 };
  const config: Configuration = { index: 0, selector: { kind: 'all' }, model: { kind: 'linear', lambda: 0 }, interpretable: true };
  const all = Int32Array.from({ length: prepared.n }, (_, i) => i);
  const features = FEATURES.map((f) => prepared.features.findIndex((x) => x.name === f));
  const res = runTask(task, { id: 0, config, train: all, test: new Int32Array(0), seedIds: [0], fixedFeatures: features, final: true });
  return { pipeline: res.pipeline as SavedPipeline, view: res.modelView as ModelView };
}

describe('survival predictions of a Cox model', () => {
  const data = completeLung();
  const { pipeline, view } = fitCox(data);
  const newdata: EngineDataset = {
    sampleCount: R.newdata.length,
    columns: FEATURES.map((name, j) => ({ name, type: 'numerical', values: Float64Array.from(R.newdata, (r: number[]) => r[j]) })),
  };

  it("has R's coxph coefficients on the original scale", () => {
    expect(view.featureNames).toEqual(FEATURES);
    (view.originalCoefficients as number[]).forEach((b, j) => expect(b).toBeCloseTo(R.coefficients[j], 6));
  });

  it("gives R's survfit(coxph(...), newdata) survival at three times (Breslow baseline) to 1e-4, and its medians", () => {
    const rows = Pipeline.fromJSON(pipeline).predict(newdata, { times: R.times });
    rows.forEach((r, i) => {
      expect(r.survival?.map((s) => s.time)).toEqual(R.times);
      r.survival?.forEach((s, k) => expect(Math.abs(s.probability - R.survival[i][k])).toBeLessThan(1e-4));
      expect(r.medianSurvivalTime).toBe(R.median[i]);
    });
  });

  it('defaults to the quartiles of the training times, and survives a JSON round trip', () => {
    const reloaded = Pipeline.fromJSON(JSON.parse(JSON.stringify(pipeline)) as SavedPipeline);
    const rows = reloaded.predict(newdata);
    const times = Array.from((data.columns.find((c) => c.name === 'time') as { values: Float64Array }).values).sort((a, b) => a - b);
    const q = (p: number) => {
      const pos = (times.length - 1) * p;
      return times[Math.floor(pos)] + (times[Math.ceil(pos)] - times[Math.floor(pos)]) * (pos - Math.floor(pos));
    };
    expect(rows[0].survival?.map((s) => s.time)).toEqual([q(0.25), q(0.5), q(0.75)]);
    expect(rows).toEqual(Pipeline.fromJSON(pipeline).predict(newdata));
  });

  it('the survival falls with the time and is 1 before the first event', () => {
    const [row] = Pipeline.fromJSON(pipeline).predict(newdata, { times: [0, 100, 200, 400, 800] });
    const p = (row.survival ?? []).map((s) => s.probability);
    expect(p[0]).toBe(1);
    for (let k = 1; k < p.length; k++) expect(p[k]).toBeLessThanOrEqual(p[k - 1]);
  });

  it('a Cox model saved before it kept its baseline predicts the risk only', () => {
    const json = JSON.parse(JSON.stringify(pipeline)) as SavedPipeline;
    delete json.model.baselineTimes;
    delete json.model.baselineHazard;
    const [row] = Pipeline.fromJSON(json).predict(newdata);
    expect(row.survival).toBeUndefined();
    expect(typeof row.risk).toBe('number');
    expect(CoxRegression.fromJSON(json.model).hasBaseline()).toBe(false);
  });
});
