import { MetricContext, RepeatedEvaluator } from '../bbc';
import { Calibration, calibrated, chooseCalibration, repeatedScores } from '../calibration';
import { sharedFloat64 } from '../shared-memory';
import type { CalibrationFacts } from '../types';

/** What calibration made of one configuration's probabilities. */
export interface ConfigurationCalibration {
  report: CalibrationFacts;
  /** the map of its probabilities, when they are calibrated (fitted on every out-of-fold prediction) */
  map?: Calibration;
  /** when calibrated: the pooled primary metric of its predictions before calibration */
  uncalibratedValue?: number;
}

/** One configuration's out-of-fold probabilities and what calibrating them reads. */
export interface ConfigurationCalibrationArgs {
  /** n x K probabilities, one array per repeat of the cross-validation */
  repeats: Float64Array[];
  /** class indices */
  y: Float64Array;
  K: number;
  /** each sample's fold, per repeat */
  folds: Int32Array[];
  floor: number;
  /** the primary metric, and what it reads */
  metric: string;
  ctx: MetricContext;
}

/**
 * The calibration of one configuration (winners.ts, calibrateConfigurations): the decision of chooseCalibration, and
 * when a map is kept, the probabilities through it (over SharedArrayBuffers: they go on to the pool's bootstraps).
 * A function of its arguments alone (compute.ts runs it on worker threads).
 */
export function calibrateConfiguration(a: ConfigurationCalibrationArgs): {
  calibration: ConfigurationCalibration;
  mapped?: Float64Array[];
} {
  const { repeats, y, K, floor } = a;
  const { before, map } = chooseCalibration(repeats, y, K, a.folds, floor);
  if (!map) return { calibration: { report: before } };
  const mapped = repeats.map((p) => calibrated(map, p, K, floor, sharedFloat64(p.length)));
  return {
    calibration: {
      report: { ...repeatedScores(mapped, y, K), method: map.method, uncalibrated: before },
      map,
      uncalibratedValue: new RepeatedEvaluator(a.metric, repeats, a.ctx).evaluate(new Float64Array(y.length).fill(1)),
    },
    mapped,
  };
}
