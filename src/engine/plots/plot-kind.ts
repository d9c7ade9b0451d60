import type { MatrixRunner, MetricContext, RepeatedEvaluator } from '../bbc';
import type { ShapleyMethod } from '../explain/types';
import type { OutputScale } from '../models/shapley-form';
import type { Task } from '../metrics';
import type { Rng } from '../rng';
import type { Selection } from '../selection';

/** A JSON schema (the OpenAPI document's dialect) of a plot's value, kept free of any OpenAPI library. */
export interface JsonSchema {
  type?: 'object' | 'array' | 'number' | 'integer' | 'string' | 'boolean';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  enum?: (string | number)[];
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  $ref?: string;
}

/** What decides whether a plot applies to a model. */
export interface PlotModel {
  task: Task;
  /** classes of a classification outcome (0 otherwise) */
  classCount: number;
}

/**
 * Everything a plot of one model (`best` or `interpretable`) may be computed from: the out-of-fold predictions of
 * the model's configuration (the ones its estimate comes from), the outcome, the final signature and selection, and
 * refits of the configuration on feature subsets.
 */
export interface PlotContext extends PlotModel {
  n: number;
  /** class labels (classification), in the order of the prediction columns */
  classes: string[];
  /** out-of-fold predictions of the configuration, one n x width array per repeat of the cross-validation */
  oof: Float64Array[];
  /** each sample's out-of-fold prediction averaged over the repeats (n x width) */
  predictions: Float64Array;
  /** the outcome and the units (groups) the bootstraps resample */
  metric: MetricContext;
  /** the metric that picks the winner */
  primaryMetric: string;
  bootstraps: number;
  /** the random generator of one stream of this model's plots (the same stream gives the same draws) */
  rng(stream: number): Rng;
  /**
   * the reference signature (feature indices) and the final selection on all samples (a promise while its equivalence
   * analysis runs beside the plots' work)
   */
  signature: number[];
  selection: Selection | PromiseLike<Selection>;
  /** the reference signature the selector setting chose on each training fold of the cross-validation */
  foldSignatures: number[][];
  featureName(feature: number): string;
  /**
   * Out-of-fold evaluators (primary metric) of the configuration refitted on each feature set, on the plot folds;
   * `setOffset` keeps the random streams of different calls apart.
   */
  refit(sets: number[][], setOffset: number): Promise<RepeatedEvaluator[]>;
  /** computes a value shared by several plots once per model */
  memo<T>(key: string, compute: () => Promise<T>): Promise<T>;
  /**
   * the out-of-fold explanations of the reference signature's refits on the plot folds (analysis/explanations.ts): a
   * promise while they run beside the other plots' work
   */
  explanation?: OutOfFoldExplanation | PromiseLike<OutOfFoldExplanation | undefined>;
  /** the final model of the reference signature, for partial dependence */
  finalModel?: FinalModelView;
  /** computes the bootstraps of refits (bootstrapValues): here when absent, the analysis's on its worker threads */
  matrix?: MatrixRunner;
}

/**
 * The Shapley values of every sample's prediction by the refit of the reference signature on the plot fold that held it
 * out (each fold's model against a background of its own training samples).
 */
export interface OutOfFoldExplanation {
  /** the players: the reference signature's features, by name */
  features: string[];
  scale: OutputScale;
  method: ShapleyMethod;
  /** classification: the class of each output explained (the positive class, or each class) */
  classes?: string[];
  heads: number;
  /** samples x heads x features */
  values: Float64Array;
  /** samples x heads: the base value of the sample's fold model, and its output (base + the contributions) */
  base: Float64Array;
  output: Float64Array;
  /** sampling only: samples x heads x features */
  standardErrors?: Float64Array;
  /** survival: the same refits' predicted survival of each sample at `times` (samples x times) */
  survival?: { times: number[]; values: Float64Array };
}

/**
 * The final model of the reference signature (refitted on every sample, its calibration applied), predicting the
 * analysed samples with some features set to other values.
 */
export interface FinalModelView {
  /** the features it reads (indices into the analysis's features), their names and kinds, and their levels */
  features: { feature: number; name: string; kind: 'numerical' | 'categorical'; levels: string[] }[];
  /** each analysed sample's value of a feature (numbers, or category codes into its levels; NaN missing) */
  column(feature: number): Float64Array;
  /**
   * For each grid, the outputs (samples x width: class probabilities, the prediction, or for survival the probability
   * of surviving past `survivalTime`) of the samples `rows` with the grid's feature set to each of its values (numbers
   * or category codes) in turn; computed on the analysis's worker threads when it has them.
   */
  predictGrids(rows: Int32Array, grids: { feature: number; values: number[] }[]): Promise<Float64Array[][]>;
  /** survival: the time of the predicted survival probabilities (the median of the observed times) */
  survivalTime?: number;
}

/**
 * One kind of plot: its name (as the plot routes list it), the models it applies to, how it is computed, and the
 * JSON schema of its value for the OpenAPI document. The registry (../plots.ts) lists every kind.
 */
export interface PlotKind<N extends string = string, V = unknown> {
  name: N;
  /** name of its schema among the OpenAPI document's components */
  schemaName: string;
  schema: JsonSchema;
  appliesTo(model: PlotModel): boolean;
  /** refits of the configuration it asks for (progress planning), for a signature of `size` features and `folds` plot folds */
  refits?(size: number, folds: number): number;
  /**
   * True when it reads the final selection on all samples or what is computed from it (`signature`, `selection`,
   * `foldSignatures`, `featureName`, `refit`, `memo`, `explanation`, `finalModel`); a kind without it reads the
   * out-of-fold predictions, the outcome and its random streams only, and is drawn while the final selection runs, on a
   * worker thread (plots.ts, outOfFoldPlots).
   */
  fromFinalSelection?: boolean;
  /** the value, or undefined when it cannot be drawn for these data (then the model does not list it) */
  compute(ctx: PlotContext): Promise<V | undefined>;
}

/** Declares a plot kind, keeping its name's literal type for the registry's `ModelPlots`. */
export function definePlot<const N extends string, V>(kind: PlotKind<N, V>): PlotKind<N, V> {
  return kind;
}

export const CIS_SCHEMA: JsonSchema = {
  type: 'array',
  items: { type: 'number' },
  minItems: 2,
  maxItems: 2,
  description: '95% interval (lower, upper)',
};
