import { finalPipeline, loadShared, parameters } from '../../bench/engine-datasets';
import { prepareData } from './data';
import { buildGrid } from './grid';
import { mlEngine, modelCard, modelCardMarkdown, type EngineDataset, type ModelReport } from './index';

/** iris with petal_width_cm as a categorical feature (narrow, wide) and a few values of sepal_length_cm missing. */
function irisWithCategory(): EngineDataset {
  const data = loadShared('iris');
  return {
    ...data,
    columns: data.columns.map((c) => {
      if (c.name === 'petal_width_cm' && 'values' in c)
        return { name: c.name, type: 'categorical', levels: ['narrow', 'wide'], codes: Int32Array.from(c.values, (v) => (v < 1 ? 0 : 1)) };
      if (c.name === 'sepal_length_cm' && 'values' in c)
        return { ...c, values: Float64Array.from(c.values, (v, i) => (i % 10 === 0 ? NaN : v)) };
      return c;
    }),
  };
}

describe('the model card', () => {
  const data = irisWithCategory();
  const params = parameters({ classification: 'species' }, 'preliminary');
  const p = prepareData(data, params);
  const config = buildGrid(params, p.task, p.features.length).find((c) => c.model.kind === 'linear');
  const pipeline = finalPipeline({ ...p, maxSignatureSize: 25, seed: 1 }, config as NonNullable<typeof config>, [0, 3], [0]);
  const report: ModelReport = {
    preprocessing: 'mean imputation, standardization',
    featureSelection: 'SES',
    model: 'Multinomial logistic regression with ridge penalty (lambda = 0.01)',
    signatures: [
      ['sepal_length_cm', 'petal_width_cm'],
      ['sepal_length_cm', 'petal_length_cm'],
    ],
    signatureCount: 2,
    performance: { 'area under the ROC curve': 0.97, accuracy: 0.93 },
    performanceCis: { 'area under the ROC curve': [0.95, 0.99], accuracy: [0.89, 0.96] },
    classes: p.classes,
    calibration: { brier: 0.1, ece: 0.03, logLoss: 0.2, method: 'temperature', uncalibrated: { brier: 0.12, ece: 0.05 } },
  };
  const card = modelCard({
    modelKey: 'best',
    signatureIndex: 0,
    report,
    pipeline,
    parameters: params,
    mlEngine: mlEngine(),
    trainingSamples: p.n,
  });

  it('describes each input: its type, levels and how a missing value is filled', () => {
    const mean = (() => {
      const c = data.columns.find((x) => x.name === 'sepal_length_cm');
      const v = c && 'values' in c ? Array.from(c.values).filter((x) => !Number.isNaN(x)) : [];
      return v.reduce((s, x) => s + x, 0) / v.length;
    })();
    expect(card.inputs.map((i) => i.name)).toEqual(['sepal_length_cm', 'petal_width_cm']);
    expect(card.inputs[0]).toMatchObject({ type: 'numerical', missing: { rule: 'training mean' } });
    expect(card.inputs[0].missing.value).toBeCloseTo(mean, 12);
    // 100 of the 150 flowers have a petal at least 1 wide: the mode fills a missing one
    expect(card.inputs[1]).toMatchObject({
      type: 'categorical',
      levels: ['narrow', 'wide'],
      missing: { rule: 'training mode', value: 'wide' },
    });
  });

  it('gives the outcome, the metrics with their intervals, the signature and its equivalents, the size and the engine', () => {
    expect(card.outcome).toEqual({ task: 'classification', columns: { classification: 'species' }, classes: p.classes });
    expect(card.metrics.accuracy).toEqual({ estimate: 0.93, interval: [0.89, 0.96] });
    expect(card.signature).toEqual(['sepal_length_cm', 'petal_width_cm']);
    expect(card.equivalents).toEqual([['sepal_length_cm', 'petal_length_cm']]);
    expect(card.trainingSamples).toBe(150);
    expect(card.engine).toBe(mlEngine());
    expect(card.calibration).toMatchObject({ method: 'temperature', probabilityFloor: 1 / 300 });
    expect(card.parameters).toBe(params);
    const other = modelCard({ modelKey: 'best', signatureIndex: 1, report, pipeline, parameters: params, mlEngine: mlEngine() });
    expect(other.signature).toEqual(['sepal_length_cm', 'petal_length_cm']);
    expect(other.equivalents).toEqual([['sepal_length_cm', 'petal_width_cm']]);
  });

  it('reads as a Markdown section with a row per input and per metric', () => {
    const text = modelCardMarkdown(card);
    expect(text).toContain('| petal_width_cm | categorical | narrow, wide | training mode (wide) |');
    expect(text).toContain('| accuracy | 0.93 | 0.89 to 0.96 |');
    expect(text).toContain('Equivalent signatures:\n- sepal_length_cm, petal_length_cm');
  });
});
