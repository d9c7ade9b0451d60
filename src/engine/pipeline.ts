import type { FeatureMeta } from './data';
import { EngineInputError } from './errors';
import type { Configuration } from './grid';
import type { Task } from './metrics';
import { createModel, Design, Model, modelFromJSON, Target } from './models';
import { DecisionTree } from './models/cart';
import { LogisticRegression } from './models/logistic';
import { RidgeRegression } from './models/linear';
import { CoxRegression } from './models/cox';
import { ColumnSource, Preprocessor, selectColumns } from './preprocessing';
import { Rng } from './rng';
import { createSelector } from './selection';
import type { EngineDataset, PredictionRow, SavedPipeline } from './types';

/** The analysis data as every task sees it (in a worker, X lives in a SharedArrayBuffer). */
export interface TaskData {
  task: Task;
  n: number;
  features: FeatureMeta[];
  /** column-major n x features.length */
  X: Float64Array;
  y: Float64Array;
  event?: Float64Array;
  classes: string[];
  maxSignatureSize: number;
  seed: number;
}

/** One unit of work: fit a configuration on `train`, predict `test`. */
export interface TaskSpec {
  id: number;
  config: Configuration;
  train: Int32Array;
  test: Int32Array;
  /** the task's random generator is Rng(seed, ...seedIds) */
  seedIds: number[];
  /** use exactly these features (no selection) */
  fixedFeatures?: number[];
  /** identity of the training rows, for caching preprocessing within a worker */
  cacheKey?: string;
  /** return the fitted pipeline */
  final?: boolean;
}

export interface TaskResult {
  id: number;
  /** test rows x output width */
  predictions: Float64Array;
  pipeline?: SavedPipeline;
  /** features used (indices into TaskData.features), in signature order */
  signature?: number[];
  /** equivalent signatures found by the selector (indices into TaskData.features) */
  equivalentSignatures?: number[][];
  modelView?: { featureNames: string[]; coefficients: number[] | number[][] };
  /** decision trees: the rules, on the original scale of the features */
  rules?: string;
}

export function outputWidth(data: { task: Task; classes: string[] }): number {
  return data.task === 'classification' ? data.classes.length : 1;
}

function targetOf(data: TaskData, rows: Int32Array): Target {
  return {
    y: Float64Array.from(rows, (r) => data.y[r]),
    event: data.event ? Float64Array.from(rows, (r) => data.event?.[r] as number) : undefined,
    classCount: data.classes.length,
  };
}

interface FoldCache {
  key: string;
  data: TaskData;
  pre: Preprocessor;
  columnStart: Int32Array;
  train: Design;
  test: Design;
  selections: Map<string, number[][]>;
}

let cache: FoldCache | null = null;

function sourceOf(data: TaskData): ColumnSource {
  return (j) => data.X.subarray(j * data.n, (j + 1) * data.n);
}

function columnsOf(pre: Preprocessor, columnStart: Int32Array, steps: number[]): number[] {
  const cols: number[] = [];
  for (const s of steps) {
    const st = pre.steps[s];
    const m = st.kind === 'numerical' ? 1 : st.dummyCodes.length;
    for (let k = 0; k < m; k++) cols.push(columnStart[s] + k);
  }
  return cols;
}

/** Preprocessing of all features on the training rows, reused by every configuration of the same fold. */
function foldPreprocessing(data: TaskData, spec: TaskSpec): FoldCache {
  if (spec.cacheKey && cache && cache.key === spec.cacheKey && cache.data === data) return cache;
  const source = sourceOf(data);
  const pre = Preprocessor.fit(source, spec.train, data.features);
  const columnStart = new Int32Array(pre.steps.length);
  let off = 0;
  pre.steps.forEach((s, k) => {
    columnStart[k] = off;
    off += s.kind === 'numerical' ? 1 : s.dummyCodes.length;
  });
  const entry: FoldCache = {
    key: spec.cacheKey ?? '',
    data,
    pre,
    columnStart,
    train: pre.transform(source, spec.train),
    test: pre.transform(source, spec.test),
    selections: new Map(),
  };
  if (spec.cacheKey) cache = entry;
  return entry;
}

/** Drops the worker-local preprocessing cache (between analyses). */
export function clearTaskCache(): void {
  cache = null;
}

const MAX_RULE_LEAVES = 16;

/** Readable rules of a small decision tree, thresholds back on the features' original scale. */
export function treeRules(model: Model, pre: Preprocessor, classes: string[]): string | undefined {
  if (!(model instanceof DecisionTree) || model.leafCount() > MAX_RULE_LEAVES) return undefined;
  const owners: { step: number; dummy: number }[] = [];
  pre.steps.forEach((st, k) => {
    if (st.kind === 'numerical') owners.push({ step: k, dummy: -1 });
    else st.dummyCodes.forEach((_, m) => owners.push({ step: k, dummy: m }));
  });
  const fmt = (v: number): string => String(Number(v.toPrecision(4)));
  return model.rules(
    (column, threshold) => {
      const { step, dummy } = owners[column];
      const st = pre.steps[step];
      if (dummy < 0) return `${st.name} <= ${fmt(st.impute + st.scale * threshold)}`;
      // a standardized dummy below the threshold means the level is absent
      const present = st.dummyCenters[dummy] + st.dummyScales[dummy] * threshold >= 1;
      return `${st.name} ${present ? '=' : '!='} ${st.levels[st.dummyCodes[dummy]]}`;
    },
    (values) => {
      if (classes.length === 0) return fmt(values[0]);
      let best = 0;
      values.forEach((v, c) => {
        if (v > values[best]) best = c;
      });
      return `${classes[best]} (${Math.round(100 * values[best])}%)`;
    },
  );
}

export function linearModelView(model: Model, pre: Preprocessor): TaskResult['modelView'] {
  const featureNames = pre.columnNames();
  if (model instanceof LogisticRegression) {
    const s = model.slopes();
    return { featureNames, coefficients: s.length === 1 ? s[0] : s };
  }
  if (model instanceof RidgeRegression || model instanceof CoxRegression) return { featureNames, coefficients: Array.from(model.coefficients) };
  return undefined;
}

/** Runs one task: preprocessing and selection fitted on `train` only, then the model; predicts `test`. */
export function runTask(data: TaskData, spec: TaskSpec): TaskResult {
  if (spec.fixedFeatures && spec.fixedFeatures.length === 0) return { id: spec.id, predictions: constantPredictions(data, spec) };
  const rng = new Rng(data.seed, ...spec.seedIds);
  const source = sourceOf(data);
  let pre: Preprocessor;
  let Xtrain: Design;
  let Xtest: Design;
  let signatureSteps: number[];
  let equivalents: number[][] = [];
  if (spec.fixedFeatures) {
    pre = Preprocessor.fit(source, spec.train, data.features, spec.fixedFeatures);
    signatureSteps = pre.steps.map((_, k) => k);
    Xtrain = pre.transform(source, spec.train);
    Xtest = pre.transform(source, spec.test);
  } else {
    const fc = foldPreprocessing(data, spec);
    const selKey = JSON.stringify(spec.config.selector);
    let signatures = fc.selections.get(selKey);
    if (!signatures) {
      const selector = createSelector(spec.config.selector);
      signatures = selector.fit({
        X: fc.train,
        columnFeature: fc.pre.columnSteps(),
        featureCount: fc.pre.steps.length,
        categorical: Uint8Array.from(fc.pre.steps, (st) => (st.kind === 'categorical' ? 1 : 0)),
        target: targetOf(data, spec.train),
        task: data.task,
        maxSize: spec.config.selector.kind === 'all' ? Infinity : data.maxSignatureSize,
      }).signatures;
      fc.selections.set(selKey, signatures);
    }
    const sel = signatures[0];
    equivalents = signatures.slice(1).map((sig) => sig.map((k) => fc.pre.steps[k].feature));
    const cols = columnsOf(fc.pre, fc.columnStart, sel);
    pre = fc.pre.restrict(sel);
    Xtrain = selectColumns(fc.train, cols);
    Xtest = selectColumns(fc.test, cols);
    signatureSteps = sel.map((_, k) => k);
  }
  const model = createModel(spec.config.model, data.task);
  model.fit(Xtrain, targetOf(data, spec.train), rng);
  const result: TaskResult = { id: spec.id, predictions: spec.test.length > 0 ? model.predict(Xtest) : new Float64Array(0) };
  if (spec.final) {
    result.signature = signatureSteps.map((k) => pre.steps[k].feature);
    result.equivalentSignatures = equivalents;
    result.pipeline = pipelineJSON(data, pre, model);
    result.modelView = linearModelView(model, pre);
    result.rules = treeRules(model, pre, data.classes);
  }
  return result;
}

/** The no-feature model: class proportions, the mean, or equal risk, fitted on `train`. */
function constantPredictions(data: TaskData, spec: TaskSpec): Float64Array {
  const W = outputWidth(data);
  const row = new Float64Array(W);
  if (data.task === 'classification') {
    for (const r of spec.train) row[data.y[r]] += 1 / spec.train.length;
  } else if (data.task === 'regression') {
    for (const r of spec.train) row[0] += data.y[r] / spec.train.length;
  }
  const out = new Float64Array(spec.test.length * W);
  for (let i = 0; i < spec.test.length; i++) out.set(row, i * W);
  return out;
}

function pipelineJSON(data: TaskData, pre: Preprocessor, model: Model): SavedPipeline {
  return {
    format: 'signet-pipeline',
    version: 1,
    task: data.task,
    classes: data.classes,
    /** input columns the pipeline reads, by name */
    featureNames: pre.steps.map((st) => st.name),
    preprocessing: pre.toJSON(),
    model: model.toJSON(),
  };
}

/** Predictions of a saved pipeline on a dataset; columns matched by name, extra columns ignored. */
export function predictPipeline(pipeline: SavedPipeline, dataset: EngineDataset): PredictionRow[] {
  if (pipeline.format !== 'signet-pipeline') throw new EngineInputError('Not a saved Signet pipeline');
  if (!(dataset.sampleCount > 0)) throw new EngineInputError('The dataset has no rows');
  const pre = Preprocessor.fromJSON(pipeline.preprocessing as Record<string, unknown>);
  const model = modelFromJSON(pipeline.model as Record<string, unknown>);
  const task = pipeline.task as Task;
  const classes = pipeline.classes as string[];
  const n = dataset.sampleCount;
  const columns = new Map<number, Float64Array>();
  for (const step of pre.steps) {
    const col = dataset.columns.find((c) => c.name === step.name);
    if (!col) throw new EngineInputError(`The column "${step.name}" used by the model is missing`);
    if (step.kind === 'numerical') {
      if (!('values' in col) || col.type !== 'numerical')
        throw new EngineInputError(`The column "${step.name}" must be numerical (it is ${col.type})`);
      columns.set(step.feature, col.values);
    } else {
      if (!('codes' in col) || col.type !== 'categorical')
        throw new EngineInputError(`The column "${step.name}" must be categorical (it is ${col.type})`);
      const index = new Map(step.levels.map((l, k) => [l, k]));
      const map = col.levels.map((l) => index.get(l) ?? NaN);
      columns.set(step.feature, Float64Array.from(col.codes, (c) => (c < 0 ? NaN : map[c])));
    }
  }
  const rows = Int32Array.from({ length: n }, (_, i) => i);
  const X = pre.transform((j) => columns.get(j) as Float64Array, rows);
  const out = model.predict(X);
  const result: PredictionRow[] = [];
  for (let i = 0; i < n; i++) {
    if (task === 'classification') {
      const K = classes.length;
      let best = 0;
      const probabilities: Record<string, number> = {};
      for (let c = 0; c < K; c++) {
        probabilities[classes[c]] = out[i * K + c];
        if (out[i * K + c] > out[i * K + best]) best = c;
      }
      result.push({ row: i, prediction: classes[best], probabilities });
    } else if (task === 'regression') result.push({ row: i, prediction: out[i] });
    else result.push({ row: i, prediction: out[i], risk: out[i] });
  }
  return result;
}
