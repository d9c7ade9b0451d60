import { subsetDataset } from '../../bench/csv-dataset';
import { loadShared, parameters } from '../../bench/engine-datasets';
import { prepareData } from './data';
import { foldRows, planFolds } from './folds';
import { buildGrid } from './grid';
import {
  ANALYSIS_STEPS,
  EngineInputError,
  eventIndicator,
  mlEngine,
  predict,
  runAnalysis,
  validateAnalysisInput,
  type AnalysisParameters,
  type AnalysisStep,
  type EngineDataset,
  type SavedPipeline,
} from './index';

jest.setTimeout(120_000);

const iris = loadShared('iris');
const irisParams = parameters({ classification: 'species' }, 'preliminary');

describe('runAnalysis (inline)', () => {
  let result: Awaited<ReturnType<typeof runAnalysis>>;
  const progress: number[] = [];
  const steps: [AnalysisStep, number][] = [];

  beforeAll(async () => {
    result = await runAnalysis(iris, irisParams, {
      seed: 3,
      threads: 0,
      onProgress: (f) => progress.push(f),
      onStep: (step) => steps.push([step, progress.length]),
    });
  });

  it('reports the engine, metric names, intervals and signatures', () => {
    expect(result.mlEngine).toMatch(/^signet-engine \d+\.\d+\.\d+$/);
    expect(result.mlEngine).toBe(mlEngine());
    const best = result.models.best;
    expect(Object.keys(best.performance)).toEqual(['Mean Area Under the ROC Curve', 'Accuracy', 'Balanced Accuracy']);
    for (const [name, v] of Object.entries(best.performance)) {
      const [lo, hi] = best.performanceCis[name];
      expect(lo).toBeLessThanOrEqual(v);
      expect(hi).toBeGreaterThanOrEqual(v);
      expect(hi).toBeLessThanOrEqual(1);
    }
    expect(best.performance['Mean Area Under the ROC Curve']).toBeGreaterThan(0.95);
    expect(best.signatures[0].length).toBeGreaterThan(0);
    for (const f of best.signatures[0]) expect(['sepal_length_cm', 'sepal_width_cm', 'petal_length_cm', 'petal_width_cm']).toContain(f);
    expect(best.preprocessing).toMatch(/imputation/);
    expect(best.featureSelection).toMatch(/^(Statistically equivalent signatures \(SES\): maxK = [23], alpha = [0-9.]+, |LASSO: )/);
    expect(result.stats.configurations).toBe(buildGrid(irisParams, 'classification', 4).length);
    expect(result.stats.folds).toBe(10);
  });

  const pfi0 = (p: { name: string[] }[]): string[][] => p.map((e) => e.name);

  it('gives plots of the right shapes for every model key', () => {
    for (const key of Object.keys(result.models)) {
      const sig = result.models[key].signatures[0];
      const fi = result.plots[key]['Feature Importance'] ?? [];
      // every feature of the reference signature, from the most to the least important, each interval around its value
      expect(fi.map((e) => e.name).sort()).toEqual([...sig].sort());
      for (let j = 1; j < fi.length; j++) expect(fi[j].value).toBeLessThanOrEqual(fi[j - 1].value);
      for (const e of fi) expect(e.cis[0]).toBeLessThanOrEqual(e.value);
      for (const e of fi) expect(e.value).toBeLessThanOrEqual(e.cis[1]);
      // the progressive plot adds the features in the order of the importance plot
      pfi0(result.plots[key]['Progressive Feature Importance'] ?? []).forEach((names, k) =>
        expect(names).toEqual(fi.slice(0, k + 1).map((e) => e.name)),
      );
      const pfi = result.plots[key]['Progressive Feature Importance'] ?? [];
      expect(pfi).toHaveLength(sig.length);
      pfi.forEach((e, k) => expect(e.name).toHaveLength(k + 1));
      expect(pfi[pfi.length - 1].value).toBeCloseTo(100, 10);
      expect([...pfi[pfi.length - 1].name].sort()).toEqual([...sig].sort());
    }
  });

  it('reports progress that never decreases and ends at 1', () => {
    expect(progress.length).toBeGreaterThan(2);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThanOrEqual(progress[i - 1]);
    expect(progress[progress.length - 1]).toBe(1);
  });

  it('names each step of the protocol once, in order, the cross-validation before any progress and the result after it all', () => {
    expect(steps.map(([step]) => step)).toEqual([...ANALYSIS_STEPS]);
    expect(steps[0][1]).toBe(0);
    const result = steps[steps.length - 1][1];
    expect(progress.slice(0, result).every((f) => f < 1)).toBe(true);
    expect(result).toBeGreaterThan(steps[1][1]);
  });

  it('the saved best pipeline predicts the same after a JSON round trip, matching columns by name', () => {
    const pipeline = result.pipelines.best[0];
    expect(pipeline.featureNames).toEqual(result.models.best.signatures[0]);
    const a = predict(pipeline, iris);
    const b = predict(JSON.parse(JSON.stringify(pipeline)) as SavedPipeline, {
      sampleCount: iris.sampleCount,
      columns: [...iris.columns].reverse(),
    });
    expect(b).toEqual(a);
    expect(a).toHaveLength(150);
    const correct = a.filter((p, i) => {
      const c = iris.columns[4];
      return 'codes' in c && p.prediction === c.levels[c.codes[i]];
    }).length;
    expect(correct / 150).toBeGreaterThan(0.93);
    const probs = a[0].probabilities as Record<string, number>;
    expect(Object.keys(probs).sort()).toEqual(['setosa', 'versicolor', 'virginica']);
    expect(Object.values(probs).reduce((s, v) => s + v, 0)).toBeCloseTo(1, 10);
  });

  it('predict rejects missing columns, wrong types and empty data', () => {
    const pipeline = result.pipelines.best[0];
    const used = result.models.best.signatures[0][0];
    const without = { sampleCount: 150, columns: iris.columns.filter((c) => c.name !== used) };
    expect(() => predict(pipeline, without)).toThrow(EngineInputError);
    const wrongType: EngineDataset = {
      sampleCount: 150,
      columns: iris.columns.map((c) =>
        c.name === used ? { name: used, type: 'categorical', codes: new Int32Array(150), levels: ['a'] } : c,
      ),
    };
    expect(() => predict(pipeline, wrongType)).toThrow(/must be numerical/);
    expect(() => predict(pipeline, subsetDataset(iris, []))).toThrow(EngineInputError);
  });

  it('is reproducible for a seed', async () => {
    const again = await runAnalysis(iris, irisParams, { seed: 3, threads: 0 });
    expect(again).toEqual(result);
  });
});

describe('input validation', () => {
  const base = (outcome: AnalysisParameters['outcome']): AnalysisParameters => parameters(outcome, 'preliminary');

  it('lists single-class, too-few-samples and all-missing outcomes, and runAnalysis throws', async () => {
    const setosa = subsetDataset(
      iris,
      Array.from({ length: 50 }, (_, i) => i),
    );
    expect(validateAnalysisInput(setosa, base({ classification: 'species' }))).toEqual(['The outcome has a single class']);
    const few = subsetDataset(iris, [0, 1, 2, 50, 51, 52, 100, 101, 102]);
    expect(validateAnalysisInput(few, base({ classification: 'species' }))[0]).toMatch(/Too few samples/);
    const missing: EngineDataset = {
      sampleCount: 150,
      columns: iris.columns.map((c) => ('codes' in c && c.name === 'species' ? { ...c, codes: new Int32Array(150).fill(-1) } : c)),
    };
    expect(validateAnalysisInput(missing, base({ classification: 'species' }))).toContain('The outcome is missing for every sample');
    await expect(runAnalysis(setosa, base({ classification: 'species' }), { seed: 1, threads: 0 })).rejects.toThrow(EngineInputError);
    expect(validateAnalysisInput(iris, base({ classification: 'nope' }))[0]).toMatch(/does not exist/);
  });

  it('refuses outcomes and features beyond ±1e100 (their squares overflow: null metrics, no association found)', () => {
    const scaled = (name: string, by: number): EngineDataset => ({
      sampleCount: iris.sampleCount,
      columns: iris.columns.map((c) => (c.name === name && 'values' in c ? { ...c, values: c.values.map((v) => v * by) } : c)),
    });
    const name = iris.columns[0].name;
    expect(validateAnalysisInput(scaled(name, 1e160), base({ classification: 'species' }))).toEqual([
      `The column "${name}" holds values beyond ±1e100 (such as 5.10e+160): rescale it (the engine squares values, which would overflow)`,
    ]);
    expect(validateAnalysisInput(scaled(name, 1e160), base({ regression: name }))[0]).toMatch(
      /^The column ".*" holds values beyond ±1e100/,
    );
    expect(validateAnalysisInput(scaled(name, 1e90), base({ classification: 'species' }))).toEqual([]);
  });

  it('refuses a grouping with a single group, or with a class found in one group only (every metric came out null)', () => {
    const species = (iris.columns.find((c) => c.name === 'species') as { codes: Int32Array }).codes;
    const grouped = (group: (i: number) => string): EngineDataset => {
      const labels = Array.from({ length: iris.sampleCount }, (_, i) => group(i));
      const levels = [...new Set(labels)];
      const codes = Int32Array.from(labels, (l) => levels.indexOf(l));
      return { sampleCount: iris.sampleCount, columns: [...iris.columns, { name: 'site', type: 'identifier', codes, levels }] };
    };
    const params = { ...base({ classification: 'species' }), groupingFeature: 'site' };
    expect(
      validateAnalysisInput(
        grouped(() => 'one'),
        params,
      ),
    ).toEqual(['The grouping feature "site" has a single group among the samples with an outcome: at least 2 are needed to hold one out']);
    // setosa only at site A: holding site A out leaves no setosa to train on
    expect(
      validateAnalysisInput(
        grouped((i) => (species[i] === 0 ? 'A' : `B${i % 3}`)),
        params,
      ),
    ).toEqual([
      'The class "setosa" of the outcome is found in a single group of "site": a model trained without that group never sees it (each class needs at least 2 groups)',
    ]);
    expect(
      validateAnalysisInput(
        grouped((i) => `s${i % 7}`),
        params,
      ),
    ).toEqual([]);
  });

  it('refuses a class label over 200 characters (a 500,000-character label made a 515-byte dataset predict 100 MB)', () => {
    const species = iris.columns.find((c) => c.name === 'species') as { codes: Int32Array; levels: string[] };
    const long = 'v'.repeat(201);
    const renamed: EngineDataset = {
      sampleCount: iris.sampleCount,
      columns: iris.columns.map((c) => (c.name === 'species' ? { ...c, levels: [species.levels[0], long, species.levels[2]] } : c)),
    };
    expect(validateAnalysisInput(renamed, base({ classification: 'species' }))).toEqual([
      `The outcome has a class label longer than 200 characters ("${'v'.repeat(40)}..."): shorten it (each prediction repeats the labels)`,
    ]);
  });

  it('drops samples with a missing outcome', () => {
    const codes = Int32Array.from((iris.columns[4] as { codes: Int32Array }).codes);
    codes[0] = -1;
    codes[60] = -1;
    const data: EngineDataset = { sampleCount: 150, columns: iris.columns.map((c) => (c.name === 'species' ? { ...c, codes } : c)) };
    const p = prepareData(data, base({ classification: 'species' }));
    expect(p.n).toBe(148);
    expect(Array.from(p.rows).includes(60)).toBe(false);
  });

  it('applies the event-indicator rule', () => {
    expect(Array.from(eventIndicator({ name: 's', type: 'event', values: Float64Array.from([1, 2, NaN, 2]) }))).toEqual([0, 1, NaN, 1]);
    expect(Array.from(eventIndicator({ name: 's', type: 'event', values: Float64Array.from([0, 1, 1]) }))).toEqual([0, 1, 1]);
    expect(Array.from(eventIndicator({ name: 's', type: 'event', values: Float64Array.from([0, 0]) }))).toEqual([0, 0]);
    const coded = (levels: string[], codes: number[]): Float64Array =>
      eventIndicator({ name: 's', type: 'event', levels, codes: Int32Array.from(codes) });
    expect(Array.from(coded(['alive', 'Dead'], [0, 1, -1]))).toEqual([0, 1, NaN]);
    expect(Array.from(coded(['yes', 'no'], [0, 1]))).toEqual([1, 0]);
    expect(Array.from(coded(['b', 'a'], [0, 1]))).toEqual([1, 0]);
  });
});

describe('folds and grid', () => {
  it('never split a group, stratify classes and cover every sample once per repeat', () => {
    const groups = Int32Array.from({ length: 150 }, (_, i) => Math.floor(i / 3));
    const data: EngineDataset = {
      sampleCount: 150,
      columns: [
        ...iris.columns,
        { name: 'patient', type: 'identifier', codes: groups, levels: Array.from({ length: 50 }, (_, g) => `p${g}`) },
      ],
    };
    const p = prepareData(data, { ...irisParams, groupingFeature: 'patient' });
    expect(p.features.map((f) => f.name)).not.toContain('patient');
    const plan = planFolds(p, 5);
    expect(plan.repeats).toBe(5);
    for (let r = 0; r < plan.repeats; r++) {
      const a = plan.assignment[r];
      for (let g = 0; g < 50; g++) expect(new Set([a[3 * g], a[3 * g + 1], a[3 * g + 2]]).size).toBe(1);
      let covered = 0;
      const perFold: number[][] = [];
      for (let k = 0; k < plan.k; k++) {
        const { train, test } = foldRows(plan, r, k);
        expect(train.length + test.length).toBe(150);
        covered += test.length;
        perFold.push([0, 1, 2].map((c) => Array.from(test).filter((i) => p.y[i] === c).length));
      }
      expect(covered).toBe(150);
      // each class spread evenly over the folds: within one group (3 samples) plus a mixed group's spill-over
      for (let c = 0; c < 3; c++) {
        const counts = perFold.map((f) => f[c]);
        expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(4);
      }
    }
  });

  it('has grids of the documented sizes, restricted to interpretable models on request', () => {
    const p30 = parameters({ classification: 'y' }, 'preliminary');
    expect(buildGrid(p30, 'classification', 30).length).toBeGreaterThanOrEqual(10);
    expect(buildGrid(p30, 'classification', 30).length).toBeLessThanOrEqual(30);
    const typical = buildGrid({ ...p30, thoroughness: 'typical' }, 'classification', 30).length;
    expect(typical).toBeGreaterThanOrEqual(100);
    expect(typical).toBeLessThanOrEqual(300);
    expect(buildGrid({ ...p30, thoroughness: 'extensive' }, 'classification', 1000).length).toBeGreaterThanOrEqual(1000);
    const big = buildGrid({ ...p30, thoroughness: 'typical' }, 'classification', 30, 20000);
    expect(big.some((c) => c.model.kind === 'svm' && c.model.kernel === 'rbf')).toBe(false);
    expect(big.some((c) => c.model.kind === 'svm' && c.model.kernel === 'linear')).toBe(true);
    const interp = buildGrid({ ...p30, modelsConsidered: 'interpretable' }, 'classification', 30);
    expect(interp.every((c) => c.model.kind === 'linear' || c.model.kind === 'tree')).toBe(true);
    for (const c of buildGrid(p30, 'classification', 30)) expect(['ses', 'lasso']).toContain(c.selector.kind);
  });

  it('never exceeds maxSignatureSize and with modelsConsidered interpretable reports only best', async () => {
    const bc = loadShared('breast_cancer');
    const params: AnalysisParameters = {
      ...parameters({ classification: 'diagnosis' }, 'preliminary'),
      maxSignatureSize: 4,
      modelsConsidered: 'interpretable',
    };
    const r = await runAnalysis(bc, params, { seed: 11, threads: 0 });
    expect(Object.keys(r.models)).toEqual(['best']);
    expect(r.models.best.signatures[0].length).toBeLessThanOrEqual(4);
    expect(r.models.best.model).toMatch(/logistic|Decision tree/);
    expect(r.models.best.performance['Area Under the ROC Curve']).toBeGreaterThan(0.95);
  });
});
