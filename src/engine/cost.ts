/**
 * What an analysis will cost, said before it starts (issue 40): from the data's shape, the thoroughness and the cores,
 * its expected running time and peak memory, each with an interval. The model counts the cross-validation's tasks as
 * the analysis plans them (the grid of grid.ts, the folds and repeats of folds.ts) and prices a task by the samples,
 * the classes (the width of a prediction) and the features, with coefficients calibrated on the shapes of
 * bench/speed.bench.ts (which prints each shape's prediction beside what it measured). A prediction, not a bound: the
 * data's own difficulty (how many features SES keeps, how long SMO takes to converge) moves the real figure within the
 * interval, and a machine shared with other work moves it beyond.
 */
import { cvWork } from './analysis/run';
import { foldCounts } from './folds';
import { buildGrid } from './grid';
import type { Task } from './metrics';
import { AnalysisParameters, FeatureSelection, ModelsConsidered, Thoroughness } from './types';

/** The shape of an analysis: what the cost model reads. */
export interface AnalysisShape {
  samples: number;
  /** features (columns other than the outcome and the grouping feature) */
  features: number;
  /** classes of a classification outcome (ignored for the other tasks) */
  classes?: number;
  task: Task;
  thoroughness: Thoroughness;
  /** worker threads (coreCount) */
  cores: number;
  /** default ModelsConsidered.All */
  modelsConsidered?: ModelsConsidered;
  /** default 25 */
  maxSignatureSize?: number;
  /** units the folds split (groups of the grouping feature); default every sample its own */
  units?: number;
}

/** An expected value and the interval the real value is expected in. */
export interface CostInterval {
  expected: number;
  low: number;
  high: number;
}

export interface CostEstimate {
  /** running time, wall-clock seconds */
  seconds: CostInterval;
  /** CPU seconds over every thread (expected) */
  cpuSeconds: number;
  /** peak resident memory of the analysis's process, MiB */
  peakMemoryMb: CostInterval;
  /** the cross-validation's planned tasks (a model fit or a selection on one fold) */
  tasks: number;
}

/**
 * CPU seconds over every thread: FIXED_CPU (the process, the threads, the result), then each model fit of the
 * cross-validation at task-cost.ts's fitCpu (PER_FIT_CPU x (n / 1000)^SAMPLES_EXP x width^WIDTH_EXP, x SURVIVAL_FACTOR
 * for survival), then each selection task at its selectionCpu (PER_SELECTION_CPU x (n / 1000) x (p / 1000) x
 * width^WIDTH_EXP). Fitted by least squares on relative CPU errors over the nine bench:speed shapes (2026-11-29,
 * refitted after that day's speed-ups, 2 threads): eight within 0.87-1.26 of their CPU, digits70 0.39 (0.48 after the
 * sixth session's speed-ups; a random forest on a 25-feature signature wins there, and its plots and explanations
 * grow with it, which the shape does not show: docs/api-guide.md). Left out of the
 * first fit one at a time, iris (the smallest: the fixed part) came out 3.3 times too high and 200 x 20,000 (the only
 * wide shape) 0.37 times, the others within 0.82-1.19: the model interpolates between the shapes it was fitted on.
 */
const FIXED_CPU = 3.84;
/** CPU / wall over the cores that the analyses keep (bench:speed on a quiet machine: 1.85-1.96 on 2 threads) */
const PARALLEL_EFFICIENCY = 0.93;
/** the intervals: a factor either side of the expected value */
const TIME_FACTOR = 1.5;
const MEMORY_FACTOR = 1.35;
/**
 * Peak memory: BASE_MB, MB_PER_PREDICTION_MB per MiB of out-of-fold predictions (configurations x repeats x n x width,
 * with the selections and models that made them), MB_PER_DATA_MB per MiB of the data matrix (its copies and the
 * selection's caches); least squares over the same shapes: within 0.82-1.33 of each.
 */
const BASE_MB = 180;
const MB_PER_PREDICTION_MB = 8.66;
const MB_PER_DATA_MB = 17.5;

export function estimateCost(shape: AnalysisShape): CostEstimate {
  const n = Math.max(1, shape.samples);
  const p = Math.max(1, shape.features);
  const K = shape.task === 'classification' ? Math.max(2, shape.classes ?? 2) : 0;
  const width = K > 0 ? K : 1;
  const units = shape.units ?? n;
  // strata: the classes (balanced), the event status, or the outcome's quintiles
  const strata = K > 0 ? K : shape.task === 'survival' ? 2 : 5;
  const { k, repeats } = foldCounts(units, Math.floor(units / strata));
  // what the grid reads of the parameters (the outcome's name is not read)
  const params: AnalysisParameters = {
    outcome: { classification: '' },
    thoroughness: shape.thoroughness,
    modelsConsidered: shape.modelsConsidered ?? ModelsConsidered.All,
    featureSelection: FeatureSelection.MostRelevant,
    maxSignatureSize: shape.maxSignatureSize ?? 25,
    coreCount: shape.cores,
    maxVisualizedSignatureCount: 5,
  };
  const configs = buildGrid(params, shape.task, p, n);
  const cv = cvWork(configs, k, repeats, n, p, width, shape.task);
  const cpuSeconds = FIXED_CPU + cv.cpu;
  const cores = Math.max(1, shape.cores);
  const seconds = cpuSeconds / (cores === 1 ? 1 : cores * PARALLEL_EFFICIENCY);
  const mib = (values: number): number => (values * 8) / 2 ** 20;
  const memory = BASE_MB + MB_PER_PREDICTION_MB * mib(configs.length * repeats * n * width) + MB_PER_DATA_MB * mib(n * p);
  return {
    seconds: { expected: seconds, low: seconds / TIME_FACTOR, high: seconds * TIME_FACTOR },
    cpuSeconds,
    peakMemoryMb: { expected: memory, low: memory / MEMORY_FACTOR, high: memory * MEMORY_FACTOR },
    tasks: cv.tasks,
  };
}
