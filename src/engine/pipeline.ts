import type { FeatureMeta } from './data';
import { EngineInputError } from './errors';
import type { Configuration } from './grid';
import type { Task } from './metrics';
import { ConstantModel, createModel, Design, Model, modelFromJSON, SavedModel, Target } from './models';
import type { SurvivalCurves } from './models/common';
import { applyCalibration, Calibration, floorProbabilities, probabilityFloor } from './calibration';
import { ColumnSource, FeatureStep, Preprocessor } from './preprocessing';
import { Rng } from './rng';
import { fitSelectors, Selection, SelectorSpec } from './selection';
import { backgroundColumns, backgroundRows, explanationRows, playersOf, storedBackground } from './explain/background';
import { shapleyValues } from './explain/shapley';
import type { ShapleyValues } from './explain/types';
import { explainedClasses } from './models/shapley-form';
import type { EngineDataset, ModelView, PredictionRow, SavedPipeline } from './types';

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

/**
 * One unit of work, of one of two kinds:
 * - a selection task (`select` set): preprocessing and the selectors fitted on `train`, giving their signatures;
 * - a model task: preprocessing and the model fitted on `train` with exactly `fixedFeatures`, predicting `test`.
 */
export interface TaskSpec {
  id: number;
  config: Configuration;
  train: Int32Array;
  test: Int32Array;
  /** the task's random generator is Rng(seed, ...seedIds) */
  seedIds: number[];
  /** model task: use exactly these features (indices into TaskData.features); empty = the constant model */
  fixedFeatures?: number[];
  /** selection task: run these selectors on `train` (selectors of one task may share work, e.g. one LASSO path) */
  select?: SelectorSpec[];
  /** selection task: signatures to return at most per selector (the reference first); default 1 */
  signatureLimit?: number;
  /** selection task: equivalents for selectors without their own (SelectionInput.equivalents) */
  equivalents?: boolean;
  /** identity of the training rows, for caching preprocessing within a worker */
  cacheKey?: string;
  /** return the fitted pipeline */
  final?: boolean;
  /** model task: explain the predictions of `test` against a background of `train` rows (explain/background.ts) */
  explain?: boolean;
  /** model task of a survival model: also the predicted survival of `test` at these times */
  survivalTimes?: number[];
}

export interface TaskResult {
  id: number;
  /** test rows x output width */
  predictions: Float64Array;
  /** selection task: per selector of `select`, signatures as indices into TaskData.features */
  selections?: Selection[];
  pipeline?: SavedPipeline;
  modelView?: ModelView;
  /** decision trees: the rules, on the original scale of the features */
  rules?: string;
  /** `explain`: the Shapley values of the test rows' predictions, one player per feature of `fixedFeatures` kept */
  explanation?: ShapleyValues;
  /** the features of the players of `explanation` (indices into TaskData.features) */
  explainedFeatures?: number[];
  /** `survivalTimes`: test rows x times survival probabilities (empty when the model predicts none) */
  survival?: Float64Array;
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
  train: Design;
}

let cache: FoldCache | null = null;

function sourceOf(data: TaskData): ColumnSource {
  return (j) => data.X.subarray(j * data.n, (j + 1) * data.n);
}

/** Preprocessing of all features on the training rows, reused by every selection task of the same fold. */
function foldPreprocessing(data: TaskData, spec: TaskSpec): FoldCache {
  if (spec.cacheKey && cache && cache.key === spec.cacheKey && cache.data === data) return cache;
  const source = sourceOf(data);
  const pre = Preprocessor.fit(source, spec.train, data.features);
  const entry: FoldCache = { key: spec.cacheKey ?? '', data, pre, train: pre.transform(source, spec.train) };
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
  if (!model.rules || !model.leafCount || model.leafCount() > MAX_RULE_LEAVES) return undefined;
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

/**
 * Coefficients of a linear model on the standardized design columns, and on the original scale: per unit of each
 * numerical feature, per level (against the reference level, the training mode) of a categorical one, with the
 * intercept that makes intercept + sum coefficient x value the model's linear predictor (log-odds of logistic heads;
 * the risk score of Cox models). A missing value is the training mean (numerical) or mode (categorical).
 */
export function linearModelView(model: Model, pre: Preprocessor, classes: string[] = []): ModelView | undefined {
  const featureNames = pre.columnNames();
  // design column j = (x - center[j]) / scale[j]
  const center: number[] = [];
  const scale: number[] = [];
  for (const st of pre.steps) {
    if (st.kind === 'numerical') {
      center.push(st.impute);
      scale.push(st.scale);
    } else {
      center.push(...st.dummyCenters);
      scale.push(...st.dummyScales);
    }
  }
  const original = (b0: number, b: ArrayLike<number>): { intercept: number; coefficients: number[] } => {
    const coefficients = Array.from(b, (v, j) => v / scale[j]);
    return { intercept: coefficients.reduce((s, v, j) => s - v * center[j], b0), coefficients };
  };
  const terms = model.linearTerms?.();
  if (!terms) return undefined;
  const heads = terms.heads.map((h) => ({ slopes: Array.from(h.slopes), ...original(h.intercept, h.slopes) }));
  if (heads.length === 1) {
    // one head: a regression, a Cox model, or a binary logistic regression (the log-odds of the second class)
    const [h] = heads;
    return {
      featureNames,
      coefficients: h.slopes,
      intercept: h.intercept,
      originalCoefficients: h.coefficients,
      ...(terms.hazardRatios ? { hazardRatios: h.coefficients.map(Math.exp) } : {}),
      ...(classes.length === 2 ? { classes: [classes[1]] } : {}),
    };
  }
  return {
    featureNames,
    coefficients: heads.map((h) => h.slopes),
    intercept: heads.map((h) => h.intercept),
    originalCoefficients: heads.map((h) => h.coefficients),
    ...(classes.length === heads.length ? { classes: [...classes] } : {}),
  };
}

/** Runs the selectors of a selection task on the fold's training rows (preprocessing cached per fold). */
function runSelection(data: TaskData, spec: TaskSpec, selectors: SelectorSpec[]): TaskResult {
  const fc = foldPreprocessing(data, spec);
  const input = {
    X: fc.train,
    columnFeature: fc.pre.columnSteps(),
    featureCount: fc.pre.steps.length,
    categorical: Uint8Array.from(fc.pre.steps, (st) => (st.kind === 'categorical' ? 1 : 0)),
    target: targetOf(data, spec.train),
    task: data.task,
    maxSize: data.maxSignatureSize,
    signatureLimit: Math.max(1, spec.signatureLimit ?? 1),
    equivalents: spec.equivalents,
  };
  const toFeatures = (sig: number[]): number[] => sig.map((k) => fc.pre.steps[k].feature);
  const selections = fitSelectors(selectors, input).map((sel): Selection => ({
    signatures: sel.signatures.map(toFeatures),
    signatureCount: sel.signatureCount,
    ...(sel.classes ? { classes: sel.classes.map(toFeatures) } : {}),
  }));
  return { id: spec.id, predictions: new Float64Array(0), selections };
}

/** Runs one task: a selection task, or preprocessing + model fitted on `train` with fixed features, predicting `test`. */
export function runTask(data: TaskData, spec: TaskSpec): TaskResult {
  if (spec.select) return runSelection(data, spec, spec.select);
  const features = spec.fixedFeatures ?? [];
  const rng = new Rng(data.seed, ...spec.seedIds);
  const source = sourceOf(data);
  const pre = Preprocessor.fit(source, spec.train, data.features, features);
  const Xtrain = pre.transform(source, spec.train);
  const Xtest = pre.transform(source, spec.test);
  // No feature (an empty signature, or every one constant on these rows): the prior / mean / equal risk.
  const model = pre.steps.length === 0 ? new ConstantModel(data.task, data.classes.length) : createModel(spec.config.model, data.task);
  model.fit(Xtrain, targetOf(data, spec.train), rng);
  const floor = data.task === 'classification' ? probabilityFloor(data.n) : undefined;
  const predictions = spec.test.length > 0 ? model.predict(Xtest) : new Float64Array(0);
  if (floor !== undefined) floorProbabilities(predictions, data.classes.length, floor);
  const result: TaskResult = { id: spec.id, predictions };
  if (spec.explain || spec.final) {
    const background = backgroundRows(spec.train, data.seed, spec.seedIds);
    if (spec.explain) {
      result.explanation = shapleyValues(model.shapleyForm(), {
        X: Xtest,
        background: pre.transform(source, background),
        players: playersOf(pre),
      });
      result.explainedFeatures = pre.steps.map((st) => st.feature);
    }
    if (spec.final) {
      const stored = storedBackground(pre, data.features, data.X, data.n, background);
      result.pipeline = new Pipeline(data.task, data.classes, pre, model, undefined, floor, stored).toJSON();
    }
  }
  if (spec.survivalTimes) {
    const curves = survivalCurves(model, Xtest, result.predictions, spec.survivalTimes);
    result.survival = curves ? Float64Array.from(curves.rows.flatMap((c) => c.survival)) : new Float64Array(0);
  }
  if (spec.final) {
    result.modelView = linearModelView(model, pre, data.classes);
    result.rules = treeRules(model, pre, data.classes);
  }
  return result;
}

/**
 * A fitted pipeline: preprocessing of the features it reads, then the model. `toJSON` / `fromJSON` give the
 * stored form (SavedPipeline); `predict` applies it to a dataset, matching columns by name.
 */
export class Pipeline {
  constructor(
    readonly task: Task,
    readonly classes: string[],
    private readonly pre: Preprocessor,
    private readonly model: SavedModel,
    private readonly calibration?: Calibration,
    private readonly floor?: number,
    private readonly background?: (number | string | null)[][],
  ) {}

  /**
   * The model's probabilities as the pipeline gives them, in place: floored (when the pipeline has a floor), through
   * the calibration map (when it has one), floored again.
   */
  calibrate(p: Float64Array): void {
    const K = this.classes.length;
    if (this.floor !== undefined) floorProbabilities(p, K, this.floor);
    if (!this.calibration) return;
    applyCalibration(this.calibration, p, K);
    if (this.floor !== undefined) floorProbabilities(p, K, this.floor);
  }

  /** The dataset columns the pipeline reads, by name. */
  get featureNames(): string[] {
    return this.pre.steps.map((st) => st.name);
  }

  toJSON(): SavedPipeline {
    return {
      format: 'signet-pipeline',
      version: 1,
      task: this.task,
      classes: this.classes,
      featureNames: this.featureNames,
      preprocessing: this.pre.toJSON(),
      model: this.model.toJSON(),
      ...(this.calibration ? { calibration: this.calibration } : {}),
      ...(this.floor !== undefined ? { probabilityFloor: this.floor } : {}),
      ...(this.background ? { background: this.background } : {}),
    };
  }

  static fromJSON(json: SavedPipeline): Pipeline {
    if (json?.format !== 'signet-pipeline') throw new EngineInputError('Not a saved Signet pipeline');
    return new Pipeline(
      json.task,
      json.classes,
      Preprocessor.fromJSON(json.preprocessing),
      modelFromJSON(json.model),
      json.calibration,
      json.probabilityFloor,
      json.background,
    );
  }

  /**
   * The interventional Shapley values of the model's output at the design rows X (explain/), against the stored
   * background: one player per feature read. Throws EngineInputError for a pipeline saved without a background.
   */
  private shapley(X: Design): ShapleyValues {
    if (!this.background)
      throw new EngineInputError('This model was saved before models kept what explanations need: run the analysis again');
    const { columns, rows } = backgroundColumns(this.pre, this.background);
    const background = this.pre.transform(
      (j) => columns.get(j) as Float64Array,
      Int32Array.from({ length: rows }, (_, i) => i),
    );
    return shapleyValues(this.model.shapleyForm(), { X, background, players: playersOf(this.pre) });
  }

  /** The design matrix of a dataset's rows: its columns matched by name and preprocessed. */
  private design(dataset: EngineDataset): Design {
    if (!(dataset.sampleCount > 0)) throw new EngineInputError('The dataset has no rows');
    const columns = new Map<number, Float64Array>();
    for (const step of this.pre.steps) columns.set(step.feature, inputColumn(dataset, step));
    const rows = Int32Array.from({ length: dataset.sampleCount }, (_, i) => i);
    return this.pre.transform((j) => columns.get(j) as Float64Array, rows);
  }

  /**
   * The numbers `predict` gives, samples x width, without its rows of records: class probabilities (calibrated), the
   * prediction, or for survival with `survivalTime` the probability of surviving past it (NaN for a model saved
   * before it kept its survival curves). `blocks`: the rows are `count` blocks of equal length that differ only in
   * the column `feature` (Partial Dependence's grids), which a model may use to share the work of the rows
   * (Model.predictBlocks): the same numbers, to rounding.
   */
  outputs(dataset: EngineDataset, survivalTime?: number, blocks?: { count: number; feature: string }): Float64Array {
    const X = this.design(dataset);
    const steps = this.pre.steps;
    const out =
      blocks && this.model.predictBlocks
        ? this.model.predictBlocks(
            X,
            blocks.count,
            Uint8Array.from(this.pre.columnSteps(), (s) => (steps[s].name === blocks.feature ? 1 : 0)),
          )
        : this.model.predict(X);
    if (this.task === 'classification') this.calibrate(out);
    if (this.task !== 'survival' || survivalTime === undefined) return out;
    const curves = survivalCurves(this.model, X, out, [survivalTime]);
    return Float64Array.from(out, (_, i) => curves?.rows[i].survival[0] ?? NaN);
  }

  /**
   * Predictions on a dataset; columns matched by name, extra columns ignored. Survival models add each sample's
   * survival probability at `times` (default: the quartiles of the training times) and its median survival time
   * (survivalCurves), unless they were saved before they kept what it needs.
   */
  predict(dataset: EngineDataset, options: PredictOptions = {}): PredictionRow[] {
    const { model, task, classes } = this;
    const n = dataset.sampleCount;
    const X = this.design(dataset);
    const out = model.predict(X);
    const explanations = options.explain
      ? explanationRows(
          this.shapley(X),
          this.featureNames,
          task === 'classification' ? explainedClasses(classes.length).map((c) => classes[c]) : undefined,
        )
      : undefined;
    if (task === 'classification') this.calibrate(out);
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
    const curves = task === 'survival' ? survivalCurves(model, X, out, options.times) : undefined;
    if (curves) {
      result.forEach((r, i) => {
        r.survival = curves.times.map((time, k) => ({ time, probability: curves.rows[i].survival[k] }));
        if (curves.rows[i].median !== undefined) r.medianSurvivalTime = curves.rows[i].median;
      });
    }
    if (explanations) result.forEach((r, i) => (r.explanation = explanations[i]));
    return result;
  }
}

/**
 * The survival curves of a survival model at `times` (default: the quartiles of its training times): a Cox model's
 * from its Breslow baseline hazard and each row's risk, a random survival forest's from its leaves' Nelson-Aalen
 * hazards; undefined for a model saved before it kept them.
 */
function survivalCurves(model: Model, X: Design, risk: Float64Array, times: readonly number[] | undefined): SurvivalCurves | undefined {
  return model.survivalCurves?.(X, risk, times);
}

/** The dataset column a preprocessing step reads, coded as at fit time (categorical levels by name; unseen = missing). */
function inputColumn(dataset: EngineDataset, step: FeatureStep): Float64Array {
  const col = dataset.columns.find((c) => c.name === step.name);
  if (!col) throw new EngineInputError(`The column "${step.name}" used by the model is missing`);
  if (step.kind === 'numerical') {
    if (!('values' in col) || col.type !== 'numerical')
      throw new EngineInputError(`The column "${step.name}" must be numerical (it is ${col.type})`);
    return col.values;
  }
  if (!('codes' in col) || col.type !== 'categorical')
    throw new EngineInputError(`The column "${step.name}" must be categorical (it is ${col.type})`);
  const index = new Map(step.levels.map((l, k) => [l, k]));
  const map = col.levels.map((l) => index.get(l) ?? NaN);
  return Float64Array.from(col.codes, (c) => (c < 0 ? NaN : map[c]));
}

export interface PredictOptions {
  /** survival: the times of the predicted survival probabilities */
  times?: readonly number[];
  /** add each row's explanation (the Shapley values of the model's output) */
  explain?: boolean;
}

/** Predictions of a saved pipeline on a dataset; columns matched by name, extra columns ignored. */
export function predictPipeline(pipeline: SavedPipeline, dataset: EngineDataset, options: PredictOptions = {}): PredictionRow[] {
  return Pipeline.fromJSON(pipeline).predict(dataset, options);
}
