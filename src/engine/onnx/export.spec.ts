import { maxDifference, OnnxColumn, runOnnx } from '../../../bench/onnx-runtime';
import { finalPipeline, loadShared, onePerKind, parameters } from '../../../bench/engine-datasets';
import type { Calibration } from '../calibration';
import { prepareData } from '../data';
import { buildGrid, Configuration } from '../grid';
import { predict, type EngineColumn, type EngineDataset, type Outcome, type PredictionRow, type SavedPipeline } from '../index';
import type { TaskData } from '../pipeline';
import { exportOnnx, OnnxExport, OnnxExportRefused } from './export';
import { decodeModel } from './proto';

jest.setTimeout(120_000);

/** The tolerance of the parity of exported models with the engine's predictions (DataRobot's for its exported code). */
const PARITY = 1e-5;

/**
 * A shared dataset made harder for an export: its second feature becomes a categorical one of three levels (by its
 * tertiles), and the first three features miss values in a fixed pattern (the categorical one included).
 */
function withCategoryAndGaps(name: string, outcomeColumns: string[]): EngineDataset {
  const data = loadShared(name);
  const features = data.columns.filter((c) => !outcomeColumns.includes(c.name) && c.type === 'numerical');
  const [first, second, third] = features.map((c) => c.name);
  const columns = data.columns.map((c): EngineColumn => {
    if (!('values' in c) || c.type !== 'numerical') return c;
    const gap = c.name === first ? 11 : c.name === second ? 9 : c.name === third ? 7 : 0;
    if (c.name === second) {
      const sorted = Array.from(c.values)
        .filter((v) => !Number.isNaN(v))
        .sort((a, b) => a - b);
      const cut = [sorted[Math.floor(sorted.length / 3)], sorted[Math.floor((2 * sorted.length) / 3)]];
      const codes = Int32Array.from(c.values, (v, i) => (Number.isNaN(v) || i % gap === 0 ? -1 : v <= cut[0] ? 0 : v <= cut[1] ? 1 : 2));
      return { name: c.name, type: 'categorical', levels: ['low', 'mid', 'high'], codes };
    }
    if (gap === 0) return c;
    return { ...c, values: Float64Array.from(c.values, (v, i) => (i % gap === 0 ? NaN : v)) };
  });
  return { ...data, columns };
}

/** The engine's predictions as flat arrays by output name, as the export names them. */
function engineOutputs(rows: PredictionRow[], pipeline: SavedPipeline): Record<string, number[]> {
  if (pipeline.task === 'classification')
    return { probabilities: rows.flatMap((r) => pipeline.classes.map((c) => (r.probabilities as Record<string, number>)[c])) };
  if (pipeline.task === 'regression') return { prediction: rows.map((r) => r.prediction as number) };
  const out: Record<string, number[]> = { risk: rows.map((r) => r.risk as number) };
  if (rows[0].survival) out.survival = rows.flatMap((r) => (r.survival ?? []).map((s) => s.probability));
  return out;
}

/** Runs an exported model with onnxruntime on the dataset's columns it reads. */
function runExported(exported: OnnxExport, data: EngineDataset): Promise<Record<string, OnnxColumn>> {
  const feeds: Record<string, OnnxColumn> = {};
  for (const input of exported.inputs) {
    const c = data.columns.find((col) => col.name === input.name) as EngineColumn;
    feeds[input.name] = 'codes' in c ? Array.from(c.codes, (k) => (k < 0 ? '' : c.levels[k])) : Array.from(c.values);
  }
  return runOnnx(exported.bytes, feeds);
}

function kindName(c: Configuration, task: string, classes: number): string {
  if (c.model.kind === 'svm') return `${task === 'classification' ? 'svm' : 'svr'} ${c.model.kernel}`;
  if (c.model.kind === 'linear')
    return task === 'classification' ? (classes > 2 ? 'multinomial' : 'logistic') : task === 'regression' ? 'ridge' : 'cox';
  if (c.model.kind === 'forest' && task === 'survival') return 'survival forest';
  return c.model.kind === 'tree' ? 'cart' : 'random forest';
}

const cases: [string, () => EngineDataset, Outcome][] = [
  ['breast_cancer', () => withCategoryAndGaps('breast_cancer', ['diagnosis']), { classification: 'diagnosis' }],
  ['iris', () => withCategoryAndGaps('iris', ['species']), { classification: 'species' }],
  ['diabetes', () => withCategoryAndGaps('diabetes', ['progression']), { regression: 'progression' }],
  ['lung', () => withCategoryAndGaps('lung', ['time', 'status']), { survival: { event: 'status', timeToEvent: 'time' } }],
];

/** The largest difference of each case, by kind: printed with SIGNET_PARITY_FIGURES=1 (the README's table). */
const parityFigures: Record<string, number> = {};
afterAll(() => {
  if (process.env.SIGNET_PARITY_FIGURES) process.stdout.write(`${JSON.stringify(parityFigures, null, 1)}\n`);
});

/**
 * The rows scored: the dataset's, with the categorical feature's level of every 13th row one the model never saw
 * (the engine and the export both treat it as missing).
 */
function withUnseenLevel(data: EngineDataset, feature: string): EngineDataset {
  return {
    ...data,
    columns: data.columns.map((c) =>
      c.name === feature && 'codes' in c
        ? { ...c, levels: [...c.levels, 'unseen'], codes: Int32Array.from(c.codes, (k, i) => (i % 13 === 5 ? c.levels.length : k)) }
        : c,
    ),
  };
}

describe.each(cases)('ONNX export of every model kind on %s (a categorical feature, missing values)', (name, load, outcome) => {
  const data = load();
  const params = parameters(outcome, 'typical');
  const p = prepareData(data, params);
  const taskData: TaskData = { ...p, maxSignatureSize: 25, seed: 3 };
  const features = p.features.map((_, j) => j).slice(0, 6);
  // calibrations as an analysis may choose them: Platt for two classes, temperature for more
  const calibrations: [string, Calibration | undefined][] =
    p.task !== 'classification'
      ? [['', undefined]]
      : [
          ['', undefined],
          [' calibrated', p.classes.length === 2 ? { method: 'platt', a: [1.7], b: [-0.4] } : { method: 'temperature', temperature: 0.6 }],
        ];
  const kinds = onePerKind(buildGrid(params, p.task, p.features.length)).flatMap((c) =>
    calibrations.map(([label, cal]) => [kindName(c, p.task, p.classes.length) + label, c, cal] as const),
  );

  it.each(kinds)('%s: onnxruntime gives the engine predictions within 1e-5', async (kind, config, calibration) => {
    const pipeline: SavedPipeline = { ...finalPipeline(taskData, config, features), ...(calibration ? { calibration } : {}) };
    expect(pipeline.featureNames).toContain(p.features[1].name);
    const exported = exportOnnx(pipeline);
    expect(exported.inputs.map((i) => i.name)).toEqual(pipeline.featureNames);
    const scored = withUnseenLevel(data, p.features[1].name);
    const expected = engineOutputs(predict(pipeline, scored), pipeline);
    const got = await runExported(exported, scored);
    let worst = 0;
    for (const [output, values] of Object.entries(expected)) worst = Math.max(worst, maxDifference(got[output] as number[], values));
    if (pipeline.task === 'classification') {
      const labels = predict(pipeline, scored).map((r) => r.prediction);
      expect(got.label).toEqual(labels);
    }
    parityFigures[`${name}: ${kind}`] = worst;
    expect(worst).toBeLessThanOrEqual(PARITY);
  });
});

describe('what an export holds and refuses', () => {
  const data = withCategoryAndGaps('lung', ['time', 'status']);
  const outcome: Outcome = { survival: { event: 'status', timeToEvent: 'time' } };
  const params = parameters(outcome, 'typical');
  const p = prepareData(data, params);
  const cox = buildGrid(params, p.task, p.features.length).find((c) => c.model.kind === 'linear') as Configuration;
  const fit = (fixedFeatures: number[]): SavedPipeline => finalPipeline({ ...p, maxSignatureSize: 25, seed: 3 }, cox, fixedFeatures, [0]);

  it('names the inputs after the features, gives a Cox model the median survival time, and writes the task and times as metadata', async () => {
    const pipeline = fit([0, 1, 2, 3]);
    const exported = exportOnnx(pipeline);
    expect(exported.inputs).toEqual(
      pipeline.featureNames.map((n) =>
        n === p.features[1].name ? { name: n, type: 'string', levels: ['low', 'mid', 'high'] } : { name: n, type: 'double' },
      ),
    );
    expect(exported.outputs.map((o) => o.name)).toEqual(['risk', 'relative_risk', 'survival', 'median_survival_time']);
    const model = decodeModel(exported.bytes);
    const meta = Object.fromEntries(model.metadataProps.map((e) => [e.key, e.value]));
    expect(meta.task).toBe('survival');
    expect(JSON.parse(meta.survival_times)).toEqual(exported.survivalTimes);
    const got = await runExported(exported, data);
    const rows = predict(pipeline, data);
    const median = rows.map((r) => r.medianSurvivalTime ?? NaN);
    expect(maxDifference(got.median_survival_time as number[], median)).toBe(0);
    expect(
      maxDifference(
        got.relative_risk as number[],
        rows.map((r) => Math.exp(r.risk as number)),
      ),
    ).toBeLessThan(PARITY);
  });

  it('refuses a model that reads no feature and an isotonic calibration map, saying why', () => {
    const pipeline = fit([]);
    expect(() => exportOnnx(pipeline)).toThrow(OnnxExportRefused);
    expect(() => exportOnnx(pipeline)).toThrow(/reads no feature/);
    const iris = loadShared('iris');
    const ip = prepareData(iris, parameters({ classification: 'species' }, 'preliminary'));
    const config = buildGrid(parameters({ classification: 'species' }, 'preliminary'), ip.task, ip.features.length)[0];
    const saved = finalPipeline({ ...ip, maxSignatureSize: 25, seed: 1 }, config, [0, 1, 2, 3], [0]);
    const isotonic: SavedPipeline = { ...saved, calibration: { method: 'isotonic', x: [[0, 1]], y: [[0, 1]] } };
    expect(() => exportOnnx(isotonic)).toThrow(/isotonic/);
  });
});
