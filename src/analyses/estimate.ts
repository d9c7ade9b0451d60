import { estimateCost } from '../engine';
import type { AnalysisShape, CostInterval } from '../engine';
import type { Feature } from '../datasets/dto/dataset.dto';
import type { StoredParameters } from './analysis-parameters';
import { AnalysisEstimate, EstimateBasis } from './dto/analysis.dto';

/**
 * What an analysis will cost, as its create answer and status say it (docs/api-guide.md, "Running time and time
 * limit"). Before it runs: the engine's cost model (src/engine/cost.ts) on the dataset's shape as the stored features
 * describe it (no data is read). While it runs, from MEASURED_FROM of its planned work on: the time left measured (the
 * time run over the fraction done, of the engine's planned work, times the fraction left), blended with the shape's
 * time left in proportion to the work done until FULLY_MEASURED_AT, wholly measured after. The shape alone can be 7
 * times off (a 10-class digits-like shape: 31.7 s of CPU predicted, 221 s measured); the measured rate carries what it
 * does not see (the data's difficulty, a machine shared with other work), but early on it is high: the first tasks run
 * with every configuration alive, before BBCD-CV drops most of them (measured time left over actual, as the
 * estimate of the whole time: 2.7-4.5 at 0.05 of the work, 1.2-1.75 at 0.3, 0.64-1.12 from 0.7 on; breast_cancer,
 * diabetes and iris at typical, 2026-11-29).
 */

/** The fraction of planned work done from which the status's estimate is measured rather than predicted. */
export const MEASURED_FROM = 0.05;
/** From this fraction of the work done on, the time left is the measured one alone. */
export const FULLY_MEASURED_AT = 0.3;
/** The factor either side of the shape's time (cost.ts's TIME_FACTOR). */
const SHAPE_FACTOR = 1.5;
/** The factor either side of the measured time left at a fraction `p` done: 1.67 at 0.3, 1.25 at 0.9 (the ratios above). */
const measuredFactor = (p: number): number => 1 + 0.8 * Math.sqrt(Math.max(0, 1 - p));

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
 * of its planned work, when the time left is that measured (`elapsed` seconds so far over `progress` of the work, times
 * the work left) blended with the shape's (its expected time times the work left): their geometric mean weighted by
 * progress / FULLY_MEASURED_AT, the measured one alone from there on; the interval about the time left likewise.
 */
export function currentEstimate(
  stored: AnalysisEstimate,
  status: { state: string; executionTimeInSeconds?: number; progress?: number },
  timeLimitSeconds?: number,
): AnalysisEstimate {
  const { state, executionTimeInSeconds: elapsed, progress: p } = status;
  if (state !== 'running' || elapsed === undefined || p === undefined || p < MEASURED_FROM || elapsed <= 0) return stored;
  const w = Math.min(1, p / FULLY_MEASURED_AT);
  const measured = (elapsed * (1 - p)) / p;
  const shape = stored.executionTimeInSeconds.expected * (1 - p);
  const left = shape > 0 ? shape ** (1 - w) * measured ** w : measured;
  const factor = SHAPE_FACTOR ** (1 - w) * measuredFactor(p) ** w;
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
