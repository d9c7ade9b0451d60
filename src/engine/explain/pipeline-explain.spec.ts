import { subsetDataset } from '../../../bench/csv-dataset';
import { finalPipeline, loadShared, onePerKind, parameters } from '../../../bench/engine-datasets';
import { prepareData } from '../data';
import { buildGrid } from '../grid';
import { EngineInputError, predict, type EngineDataset, type Outcome, type SavedPipeline } from '../index';
import { runTask, TaskData } from '../pipeline';
import { BACKGROUND_SIZE } from './background';

jest.setTimeout(60_000);

/** diabetes with `sex` as a categorical column (labels f and m): one player over its one-hot column. */
function diabetesWithCategory(): EngineDataset {
  const data = loadShared('diabetes');
  return {
    ...data,
    columns: data.columns.map((c) =>
      c.name === 'sex' && 'values' in c
        ? { name: 'sex', type: 'categorical', levels: ['f', 'm'], codes: Int32Array.from(c.values, (v) => (v === 1 ? 0 : 1)) }
        : c,
    ),
  };
}

const cases: [string, () => EngineDataset, Outcome][] = [
  ['breast_cancer', () => loadShared('breast_cancer'), { classification: 'diagnosis' }],
  ['iris', () => loadShared('iris'), { classification: 'species' }],
  ['diabetes (sex categorical)', diabetesWithCategory, { regression: 'progression' }],
  ['lung', () => loadShared('lung'), { survival: { event: 'status', timeToEvent: 'time' } }],
];

describe.each(cases)('explained predictions of saved pipelines on %s', (name, load, outcome) => {
  const data = load();
  const params = parameters(outcome, 'typical');
  const p = prepareData(data, params);
  const taskData: TaskData = { ...p, maxSignatureSize: 25, seed: 1 };
  // at most six features, so that every kind is quick
  const features = p.features.map((_, j) => j).slice(0, 6);
  const rows = subsetDataset(
    data,
    Array.from({ length: 12 }, (_, i) => p.rows[i * 7]),
  );

  it.each(
    onePerKind(buildGrid(params, p.task, p.features.length)).map((c) => [
      c.model.kind + (c.model.kind === 'svm' ? ` ${c.model.kernel}` : ''),
      c,
    ]),
  )('%s: every row explained, base + contributions = the output, one contribution per feature read', (_kind, config) => {
    const pipeline = finalPipeline(taskData, config, features);
    expect(pipeline.background?.map((c) => c.length)).toEqual(pipeline.featureNames.map(() => Math.min(BACKGROUND_SIZE, p.n)));
    const predicted = predict(pipeline, rows, { explain: true });
    expect(predicted).toHaveLength(12);
    const K = p.classes.length;
    // the output explained is the model's own: the probabilities returned are floored (floor + (1 - K floor) p)
    const floor = pipeline.probabilityFloor ?? 0;
    const raw = (r: { probabilities?: Record<string, number> }, c: string): number =>
      ((r.probabilities as Record<string, number>)[c] - floor) / (1 - K * floor);
    for (const r of predicted) {
      const e = r.explanation;
      if (!e) throw new Error('no explanation');
      expect(e.outputs).toHaveLength(K > 2 ? K : 1);
      for (const o of e.outputs) {
        expect(Object.keys(o.contributions)).toEqual(pipeline.featureNames);
        const sum = Object.values(o.contributions).reduce((s, v) => s + v, o.base);
        expect(Math.abs(sum - o.value)).toBeLessThan(1e-9);
      }
      // the output explained is the one returned where the scale is the prediction's own, or the model's before the floor
      if (p.task === 'regression') expect(e.outputs[0].value).toBeCloseTo(r.prediction as number, 9);
      if (p.task === 'survival') expect(e.outputs[0].value).toBeCloseTo(r.risk as number, 9);
      if (e.scale === 'probability') for (const o of e.outputs) expect(o.value).toBeCloseTo(raw(r, o.class as string), 9);
      if (e.scale === 'log-odds') {
        const q = raw(r, e.outputs[0].class as string);
        expect(e.outputs[0].value).toBeCloseTo(Math.log(q / (1 - q)), 6);
      }
    }
    // predicting again gives the same explanations (sampling included: its stream is fixed)
    expect(predict(pipeline, rows, { explain: true }).map((r) => r.explanation)).toEqual(predicted.map((r) => r.explanation));
    if (name.startsWith('diabetes')) expect(pipeline.featureNames).toContain('sex');
  });
});

describe('a pipeline saved before explanations', () => {
  it('predicts as before and refuses to explain with a clear message', () => {
    const data = loadShared('iris');
    const p = prepareData(data, parameters({ classification: 'species' }, 'preliminary'));
    const config = buildGrid(parameters({ classification: 'species' }, 'preliminary'), p.task, p.features.length)[0];
    const all = Int32Array.from({ length: p.n }, (_, i) => i);
    const res = runTask(
      { ...p, maxSignatureSize: 25, seed: 1 },
      { id: 0, config, train: all, test: new Int32Array(0), seedIds: [0], final: true },
    );
    const { background: _dropped, ...old } = res.pipeline as SavedPipeline;
    expect(predict(old, data)).toHaveLength(150);
    expect(() => predict(old, data, { explain: true })).toThrow(EngineInputError);
    expect(() => predict(old, data, { explain: true })).toThrow(/run the analysis again/);
  });
});
