import { subsetDataset } from '../../bench/csv-dataset';
import { loadShared, onePerKind, parameters } from '../../bench/engine-datasets';
import { prepareData } from './data';
import { buildGrid } from './grid';
import { predict, type Outcome, type SavedPipeline } from './index';
import { outputWidth, runTask, TaskData } from './pipeline';

jest.setTimeout(60_000);

const cases: [string, Outcome][] = [
  ['iris', { classification: 'species' }],
  ['diabetes', { regression: 'progression' }],
  ['lung', { survival: { event: 'status', timeToEvent: 'time' } }],
];

describe.each(cases)('saved pipelines on %s', (name, outcome) => {
  it('every model kind predicts through predict() exactly what the fitted task predicted', () => {
    const data = loadShared(name);
    const params = parameters(outcome, 'typical');
    const p = prepareData(data, params);
    const taskData: TaskData = { ...p, maxSignatureSize: 25, seed: 1 };
    const all = Int32Array.from({ length: p.n }, (_, i) => i);
    const test = all.slice(0, 20);
    const W = outputWidth(p);
    const kinds = onePerKind(buildGrid(params, p.task, p.features.length));
    expect(kinds.length).toBe(p.task === 'survival' ? 2 : 5);
    for (const config of kinds) {
      const res = runTask(taskData, { id: 0, config, train: all, test, seedIds: [config.index, 0], final: true });
      const rows = predict(
        JSON.parse(JSON.stringify(res.pipeline)) as SavedPipeline,
        subsetDataset(
          data,
          Array.from(test, (i) => p.rows[i]),
        ),
      );
      expect(rows).toHaveLength(20);
      rows.forEach((r, i) => {
        if (p.task === 'classification') {
          expect(Object.values(r.probabilities as Record<string, number>)).toEqual(
            Array.from(res.predictions.subarray(i * W, (i + 1) * W)),
          );
        } else if (p.task === 'regression') expect(r.prediction).toBe(res.predictions[i]);
        else expect(r.risk).toBe(res.predictions[i]);
      });
    }
  });
});
