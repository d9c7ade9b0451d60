/**
 * The engine's public contract. Everything outside src/engine (datasets, analyses, predictions)
 * talks to the engine only through these types and the functions exported from ./index.ts.
 * No Nest, no database, no HTTP in src/engine.
 */

import type { Calibration } from './calibration';
import type { ShapleyMethod } from './explain/types';
import type { OutputScale } from './models/shapley-form';
import type { ModelPlots } from './plots';

export type FeatureType = 'numerical' | 'categorical' | 'identifier' | 'event' | 'timeToEvent';

/** Numerical (and timeToEvent) column: NaN marks a missing value. */
export interface NumericColumn {
  name: string;
  type: 'numerical' | 'timeToEvent';
  values: Float64Array;
}

/**
 * Categorical-like column (categorical, identifier, and event when stored as text or codes):
 * `codes[i]` indexes `levels`, -1 marks a missing value.
 */
export interface CodedColumn {
  name: string;
  type: 'categorical' | 'identifier' | 'event';
  codes: Int32Array;
  levels: string[];
}

/** An event column may also be numeric (e.g. 0/1, or R's 1/2 where 2 = event). */
export interface NumericEventColumn {
  name: string;
  type: 'event';
  values: Float64Array;
}

export type EngineColumn = NumericColumn | CodedColumn | NumericEventColumn;

/** A typed, column-oriented table. Every column has `sampleCount` entries. */
export interface EngineDataset {
  sampleCount: number;
  columns: EngineColumn[];
}

export type Outcome = { regression: string } | { classification: string } | { survival: { event: string; timeToEvent: string } };

/*
 * The enumerations of the API, each declared here once: the analyze body's validation, the OpenAPI document, both
 * clients' types and the code that compares against a value read them from these objects (test/api-enums.e2e-spec.ts
 * fails on any of their strings written as a literal elsewhere).
 */

/** How many configurations an analysis tries (grid.ts says which). */
export const Thoroughness = { Preliminary: 'preliminary', Typical: 'typical', Extensive: 'extensive' } as const;
export type Thoroughness = (typeof Thoroughness)[keyof typeof Thoroughness];

/** Which models an analysis considers: the interpretable ones only, or all. */
export const ModelsConsidered = { Interpretable: 'interpretable', All: 'all' } as const;
export type ModelsConsidered = (typeof ModelsConsidered)[keyof typeof ModelsConsidered];

/** Whether selection may keep every feature when that predicts better. */
export const FeatureSelection = { MostRelevant: 'mostRelevant', MostRelevantOrAll: 'mostRelevantOrAll' } as const;
export type FeatureSelection = (typeof FeatureSelection)[keyof typeof FeatureSelection];

/** The keys of a result's models: the best, and the best interpretable one when the best is not. */
export const ModelKey = { Best: 'best', Interpretable: 'interpretable' } as const;
export type ModelKey = (typeof ModelKey)[keyof typeof ModelKey];
export const isModelKey = (key: string): key is ModelKey => (Object.values(ModelKey) as string[]).includes(key);

export interface AnalysisParameters {
  outcome: Outcome;
  groupingFeature?: string;
  modelsConsidered: ModelsConsidered;
  featureSelection: FeatureSelection;
  thoroughness: Thoroughness;
  coreCount: number;
  maxSignatureSize: number;
  maxVisualizedSignatureCount: number;
  /**
   * Bounds the running time (docs/engine.md, "Time limit"): the search stops at a deadline that leaves time for the final
   * phase, and the result is over the configurations tried to the end. Absent: every configuration of the grid.
   */
  timeLimitSeconds?: number;
}

/** The steps of runAnalysis (protocol.ts) in their order: what RunOptions.onStep names. */
export const ANALYSIS_STEPS = [
  'cross-validation',
  'calibration',
  'winners',
  'estimates',
  'final models',
  'plots and explanations',
  'final selections',
  'result',
] as const;
export type AnalysisStep = (typeof ANALYSIS_STEPS)[number];

export interface RunOptions {
  /** Seed of every random choice; same data + parameters + seed => identical result whatever coreCount. */
  seed: number;
  /** Called with the fraction of planned work done (0..1), never decreasing. */
  onProgress?: (fraction: number) => void;
  /**
   * Called as each step of the protocol starts to be waited for, in ANALYSIS_STEPS order (each once): the time to the
   * next call is that step's, with the work it overlaps (bench/speed.bench.ts prints them).
   */
  onStep?: (step: AnalysisStep) => void;
  /** Aborting stops the computation (worker threads terminated) within 2 seconds; runAnalysis rejects with an AbortError. */
  signal?: AbortSignal;
  /** Number of worker threads; 0 runs everything on the calling thread (tests). Defaults to parameters.coreCount. */
  threads?: number;
  /** The clock the time limit reads, in milliseconds (default Date.now): tests pass their own. */
  now?: () => number;
  /** When the time limit started counting, on `now`'s scale (default: when runAnalysis starts); the caller's loading counts. */
  startedAt?: number;
}

/** One entry of the result's `models` map, shaped as docs/api-reference.md's Model object plus docs/decisions.md extras. */
export interface ModelReport {
  preprocessing: string;
  featureSelection: string;
  model: string;
  /** the reference signature first, then equivalent ones: at most maxVisualizedSignatureCount */
  signatures: string[][];
  /** how many equivalent signatures the selection found in all (the product of SES's class sizes; 1 otherwise) */
  signatureCount: number;
  /**
   * The estimate of each metric on new data, bias-corrected for the choice among the configurations (BBC-CV: the mean
   * over bootstraps of the out-of-fold samples of the configuration the winner rule picks on the in-bag ones, scored on
   * the out-of-bag ones), with its 95% interval
   */
  performance: Record<string, number>;
  performanceCis: Record<string, [number, number]>;
  /**
   * Each metric of this model's own out-of-fold predictions (the pooled value its plots show: the ROC curve's area, the
   * confusion matrix's sensitivity), with 95% bootstrap intervals (the bootstraps of its ROC Curve, Calibration and
   * Confusion Matrix). Not corrected for the choice among configurations, so a little optimistic beside `performance`;
   * absent in results of engine 0.2.
   */
  pooledPerformance?: Record<string, number>;
  pooledPerformanceCis?: Record<string, [number, number]>;
  /**
   * For every feature of the shown signatures: the fraction of cross-validation folds in which the selector chose it
   * or one of its equivalents (the values of the `Feature Stability` plot, by feature name).
   */
  stability?: Record<string, number>;
  modelView?: ModelView;
  /** classification: the class labels, in the order of the probabilities (sorted) */
  classes?: string[];
  /** binary classification: the class whose probability the ROC curve, sensitivity and the logistic log-odds are of */
  positiveClass?: string;
  /** classification: how well the out-of-fold probabilities are calibrated, and whether they were calibrated */
  calibration?: CalibrationFacts;
}

export interface CalibrationFacts {
  /**
   * log loss of the out-of-fold probabilities: the mean of -log(the probability of the sample's class); absent in results
   * of engine 0.2
   */
  logLoss?: number;
  /** Brier score of the out-of-fold probabilities (binary: of the positive class; more: summed over the classes) */
  brier: number;
  /**
   * expected calibration error over 10 bins of equal count (binary: of the positive class; more: mean over the classes
   * one-vs-rest); engine 0.2's results: over 10 bins of equal width
   */
  ece: number;
  /**
   * present when the model's probabilities are calibrated (Platt scaling for two classes, temperature scaling for more;
   * isotonic only in results of engine 0.2): the values above are then those of the calibrated ones, cross-fitted
   */
  method?: 'platt' | 'temperature' | 'isotonic';
  /** the values before calibration */
  uncalibrated?: { logLoss?: number; brier: number; ece: number };
}

/** The coefficients of a linear model (ridge, logistic, Cox). */
export interface ModelView {
  /** the design columns: `feature`, or `feature=level` for a level of a categorical feature (against its mode) */
  featureNames: string[];
  /** on the standardized design columns (one array per class for multinomial logistic regression) */
  coefficients: number[] | number[][];
  /**
   * The linear predictor (the value of ridge regression, the log-odds of the positive class of binary logistic
   * regression, each class's softmax score of multinomial, the risk score of Cox regression) is intercept + sum originalCoefficients[j] x (the feature's value, or 1 when the level is present).
   */
  intercept?: number | number[];
  /** per unit of each numerical feature, per level of a categorical one */
  originalCoefficients?: number[] | number[][];
  /** Cox: the hazard ratio per unit of each feature (exp of originalCoefficients) */
  hazardRatios?: number[];
  /** logistic regression: the class whose log-odds each row of coefficients gives (binary: the positive class) */
  classes?: string[];
}

/** The plots of one model by name: the registry (./plots.ts) says which exist and each one's value. */
export type { ModelPlots };

/**
 * A fitted pipeline (preprocessing + selected features + model) as stored with a result: plain JSON.
 * `Pipeline.fromJSON` (pipeline.ts) turns it back into something that predicts.
 */
export interface SavedPipeline {
  format: 'signet-pipeline';
  version: 1;
  task: 'classification' | 'regression' | 'survival';
  /** class labels in the order of the model's outputs (classification), else [] */
  classes: string[];
  /** the dataset columns the pipeline reads, by name */
  featureNames: string[];
  preprocessing: Record<string, unknown>;
  model: Record<string, unknown>;
  /** `signet-engine <semver>` that fitted it */
  engine?: string;
  /** classification: the calibration applied to the model's probabilities (calibration.ts) */
  calibration?: Calibration;
  /**
   * classification: the floor of every probability (calibration.ts, floorProbabilities), applied to the model's
   * probabilities and again after the calibration map; absent in pipelines of engine 0.2 (which had none)
   */
  probabilityFloor?: number;
  /**
   * The background of the model's explanations: at most 100 training samples drawn at random (seeded), as one array
   * per entry of `featureNames` (numbers, category labels, null where missing). Absent from pipelines saved before.
   */
  background?: (number | string | null)[][];
}

export interface AnalysisOutput {
  /** `signet-engine <semver>` */
  mlEngine: string;
  /** keys `best` and (when the best is not interpretable) `interpretable` */
  models: Record<string, ModelReport>;
  plots: Record<string, ModelPlots>;
  /**
   * The refitted pipelines, by model key, for predictions: one per signature shown in `models[key].signatures`
   * (index = the prediction's signatureIndex; 0 is the reference signature).
   */
  pipelines: Record<string, SavedPipeline[]>;
  /** every configuration evaluated, from the highest pooled out-of-fold primary metric (the leaderboard) */
  configurations: ConfigurationSummary[];
  /** the out-of-fold predictions of each model key's configuration (those its estimate and plots come from) */
  outOfFold: Record<string, OutOfFoldPredictions>;
  /** Diagnostics for benchmarks and logs. */
  stats: {
    configurations: number;
    fits: number;
    folds: number;
    repeats: number;
    /** configurations dropped early by BBCD-CV (added by the engine; optional for older results) */
    dropped?: number;
    /** how the search went against its time limit (absent in older results) */
    search?: SearchFacts;
  };
}

/** How much of the grid the search tried, and whether the time limit stopped it (docs/engine.md, "Time limit"). */
export interface SearchFacts {
  /** the configurations of the grid */
  configurationsPlanned: number;
  /**
   * the configurations evaluated on every fold of every repeat, or dropped early by BBCD-CV on the way: the winner rule,
   * the BBC-CV estimates and the leaderboard are over these
   */
  configurationsTried: number;
  /** the time limit stopped the search before it tried every configuration */
  stoppedAtTimeLimit: boolean;
  /** the search's first round (always completed) ran past the search's deadline */
  firstRoundOverran?: boolean;
  timeLimitSeconds?: number;
}

/** One configuration of the grid as the analysis evaluated it. */
export interface ConfigurationSummary {
  /** its index in the grid */
  configuration: number;
  featureSelection: string;
  model: string;
  interpretable: boolean;
  /** the primary metric's name */
  metric: string;
  /**
   * pooled out-of-fold value (mean over the repeats), the value the winner rule compared: of its calibrated out-of-fold
   * predictions when its probabilities were calibrated; dropped early: on the samples evaluated when dropped
   */
  value: number;
  /** a calibrated configuration: the value of its predictions before calibration */
  uncalibratedValue?: number;
  /** classification: the calibration its probabilities go through (none when it did not lower their log loss and Brier score) */
  calibration?: 'platt' | 'temperature';
  /** the winner rule (not for a configuration dropped early): the standard error of the leader's lead over it (0 for the leader) */
  standardError?: number;
  /** the winner rule: its value is within one standard error of the leader's */
  tiedOnMetric?: boolean;
  /** classification: the log loss of its out-of-fold probabilities (those it gives: calibrated when it is) */
  logLoss?: number;
  /**
   * classification, tied on the metric: the standard error of its log loss's excess over the lowest log loss of the
   * configurations tied on the metric (0 for that one)
   */
  logLossStandardError?: number;
  /**
   * the winner rule: tied with the leader, on the metric and, for classification, on the log loss (its excess over the
   * lowest of those tied on the metric at most logLossStandardError)
   */
  tied?: boolean;
  /**
   * the winner rule's simplicity keys, in the order it compares them: the mean signature size rounded (fewer first), the
   * model family (linear, tree, svm-linear, forest, svm-rbf: from the most to the least interpretable), how flexible the
   * model is within its family (smaller, more strongly regularised, first)
   */
  simplicity?: { features: number; family: string; flexibility: number };
  /** its position in the simplicity order among the configurations not dropped (1 = simplest): `best` is the tied row with the smallest */
  simplicityRank?: number;
  /** an interpretable configuration, when the result has an `interpretable` model: the standard error and tie against the best interpretable one */
  interpretableStandardError?: number;
  interpretableTied?: boolean;
  /** mean size of its selector's signature over the training folds */
  signatureSize: number;
  /** BBCD-CV stopped evaluating it (it lost to the leader with probability above 0.99) */
  droppedEarly: boolean;
  /** the model key of the result it became */
  modelKey?: ModelKey;
}

/** The out-of-fold predictions of a configuration, each sample's averaged over the repeats of the cross-validation. */
export interface OutOfFoldPredictions {
  /** the dataset row of each sample analysed (samples without an outcome are left out) */
  rows: number[];
  /** the dataset's identifier column, when it has one */
  sampleIds?: string[];
  /** values per sample: class probabilities (classification), 1 otherwise */
  width: number;
  repeats: number;
  /** rows x width */
  values: number[];
  /** the outcome: class index, value or time */
  y: number[];
  /** survival: 1 = event, 0 = censored */
  event?: number[];
  /**
   * The explanation of each sample's prediction by the reference signature refitted on the plot fold that held it out
   * (the Feature Contributions plot's): its outputs add up to that refit's output, close to but not the value above
   * (a mean over repeats of models whose selections may have chosen other features). Absent from results stored before.
   */
  explanation?: OutOfFoldExplanationValues;
}

/** The out-of-fold explanations of a model, as arrays over the samples in the order of OutOfFoldPredictions.rows. */
export interface OutOfFoldExplanationValues {
  /** the players: the reference signature's features */
  features: string[];
  scale: OutputScale;
  method: ShapleyMethod;
  /** classification: the class of each output explained */
  classes?: string[];
  /** outputs explained per sample */
  heads: number;
  /** samples x heads x features */
  values: number[];
  /** samples x heads: the base value of the sample's fold model, and the output the base and contributions add up to */
  base: number[];
  output: number[];
  /** sampling only: samples x heads x features */
  standardErrors?: number[];
}

export interface PredictionRow {
  row: number;
  /** class label (classification), value (regression), risk score (survival: higher = earlier event) */
  prediction: string | number;
  probabilities?: Record<string, number>;
  risk?: number;
  /** survival (Cox models): the predicted probability of surviving past each time asked for */
  survival?: { time: number; probability: number }[];
  /** survival (Cox models): the first time at which the predicted survival falls to 0.5 or below, when it does */
  medianSurvivalTime?: number;
  /** when asked for (`explain`): the contribution of each feature the model reads to its output, and a base value */
  explanation?: Explanation;
}

/**
 * Interventional Shapley values of one prediction (src/engine/explain/): for each output explained, a base value (the
 * mean output over the model's background of training samples) and one contribution per feature the model reads, whose
 * sum is the output on the stated scale. The output is the model's own, before the probability floor and any calibration
 * map: a classifier's probabilities beside it are floored and calibrated.
 */
export interface Explanation {
  scale: OutputScale;
  method: ShapleyMethod;
  /** one per output explained: the positive class (binary), each class (more), or the one output */
  outputs: ExplainedOutput[];
}

export interface ExplainedOutput {
  /** classification: the class whose output this is */
  class?: string;
  /** the output on the scale: base + the contributions, to rounding */
  value: number;
  base: number;
  /** feature name -> contribution */
  contributions: Record<string, number>;
  /** `sampling` only: feature name -> standard error of its contribution */
  standardErrors?: Record<string, number>;
}
