/**
 * The prices of an analysis's tasks in expected CPU seconds, fitted on the bench:speed shapes (cost.ts says how): what
 * the cost model adds up before an analysis runs, and what its progress counts a task done as (analysis/run.ts), so
 * that the fraction done is one of the work, not of the tasks: a selection on 20,000 features and a model fit on its
 * signature are not one unit each.
 */
import type { Task } from './metrics';

export const PER_FIT_CPU = 0.00243;
export const SAMPLES_EXP = 1.21;
export const WIDTH_EXP = 0.62;
export const SURVIVAL_FACTOR = 8.1;
export const PER_SELECTION_CPU = 0.103;

/** A model fit (and its predictions) on `rows` training samples: PER_FIT_CPU x (rows / 1000)^SAMPLES_EXP x width^WIDTH_EXP. */
export function fitCpu(rows: number, width: number, task: Task): number {
  return PER_FIT_CPU * (rows / 1000) ** SAMPLES_EXP * width ** WIDTH_EXP * (task === 'survival' ? SURVIVAL_FACTOR : 1);
}

/** A selection task on `rows` training samples of `features` features: PER_SELECTION_CPU x rows / 1000 x features / 1000 x width^WIDTH_EXP. */
export function selectionCpu(rows: number, features: number, width: number): number {
  return PER_SELECTION_CPU * (rows / 1000) * (features / 1000) * width ** WIDTH_EXP;
}
