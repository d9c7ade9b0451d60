import { estimateCost } from '../engine';
import type { AnalysisShape, CostInterval } from '../engine';
import type { Feature } from '../datasets/dto/dataset.dto';
import type { StoredParameters } from './analysis-parameters';
import { AnalysisEstimate, EstimateBasis } from './dto/analysis.dto';

/**
 * What an analysis will cost, as its create answer and status say it (docs/api-guide.md, "Running time and time
 * limit"). Before it runs: the engine's cost model (src/engine/cost.ts) on the dataset's shape as the stored features
 * describe it (no data is read). While it runs, once MEASURED_FROM of its planned work is done: the time it has run
 * divided by the fraction done (the progress the engine reports, in planned tasks), with an interval about the time
 * left that narrows as the work left shrinks. The shape alone can be 7 times off (a 10-class digits-like shape: 31.7 s
 * predicted, 221 s measured); the measured rate carries what the shape does not see (the data's difficulty, a machine
 * shared with other work).
 */

/** The fraction of planned work done from which the status's estimate is measured rather than predicted. */
export const MEASURED_FROM = 0.05;
/**
 * The factor either side of the time left at MEASURED_FROM; it falls to 1 as the work left does (the square root of the
 * share of the measured part's work still left): the tasks still to run are not those already timed (model fits against
 * selections, the final phase's refits and plots).
 */
const MEASURED_FACTOR = 1.5;

const MIB = 2 ** 20;

/** The estimate before the analysis runs: the cost model on the dataset's shape, parameters and cores. */
export function shapeEstimate(parameters: StoredParameters, sampleCount: number, features: Feature[]): AnalysisEstimate {
  const o = parameters.outcome;
  const outcomeNames =
    'classification' in o ? [o.classification] : 'regression' in o ? [o.regression] : [o.survival.event, o.survival.timeToEvent];
  const task: AnalysisShape['task'] = 'classification' in o ? 'classification' : 'regression' in o ? 'regression' : 'survival';
  const byName = new Map(features.map((f) => [f.name, f]));
  const outcome = byName.get(outcomeNames[0]);
  // the model inputs: numerical and categorical features other than the outcome and the grouping feature
  const inputs = features.filter((f) => !outcomeNames.includes(f.name) && f.name !== parameters.groupingFeature && f.type !== 'identifier');
  const grouping = parameters.groupingFeature !== undefined ? byName.get(parameters.groupingFeature) : undefined;
  const cost = estimateCost({
    samples: sampleCount - (outcome?.missingCount ?? 0),
    features: inputs.length,
    classes: task === 'classification' ? outcome?.distinctCount : undefined,
    task,
    thoroughness: parameters.thoroughness,
    cores: parameters.coreCount,
    modelsConsidered: parameters.modelsConsidered,
    maxSignatureSize: parameters.maxSignatureSize,
    units: grouping?.distinctCount,
  });
  return {
    basis: EstimateBasis.Shape,
    executionTimeInSeconds: seconds(cost.seconds, parameters.timeLimitSeconds),
    peakMemoryInBytes: {
      expected: Math.round(cost.peakMemoryMb.expected * MIB),
      low: Math.round(cost.peakMemoryMb.low * MIB),
      high: Math.round(cost.peakMemoryMb.high * MIB),
    },
  };
}

/**
 * The estimate a status shows: the stored one (made at creation) unless the analysis runs and has done MEASURED_FROM
 * of its planned work, when its running time is measured: `elapsed` seconds so far over `progress` of the work.
 */
export function currentEstimate(
  stored: AnalysisEstimate,
  status: { state: string; executionTimeInSeconds?: number; progress?: number },
  timeLimitSeconds?: number,
): AnalysisEstimate {
  const { state, executionTimeInSeconds: elapsed, progress } = status;
  if (state !== 'running' || elapsed === undefined || progress === undefined || progress < MEASURED_FROM || elapsed <= 0) return stored;
  const left = (elapsed * (1 - progress)) / progress;
  const factor = 1 + (MEASURED_FACTOR - 1) * Math.sqrt(Math.max(0, 1 - progress) / (1 - MEASURED_FROM));
  const time = { expected: elapsed + left, low: elapsed + left / factor, high: elapsed + left * factor };
  // an analysis past its limit (its first round always completes) is not said to end before now
  return {
    ...stored,
    basis: EstimateBasis.Measured,
    executionTimeInSeconds: seconds(time, timeLimitSeconds === undefined ? undefined : Math.max(timeLimitSeconds, elapsed)),
  };
}

/** An interval of seconds to the tenth, none of it beyond `limit` (the time limit, when there is one). */
function seconds(interval: CostInterval, limit?: number): CostInterval {
  const at = (v: number) => Math.round(Math.min(v, limit ?? Infinity) * 10) / 10;
  return { expected: at(interval.expected), low: at(interval.low), high: at(interval.high) };
}
