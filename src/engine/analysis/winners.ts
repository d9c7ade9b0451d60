import { bbcEstimate, Estimate, RepeatedEvaluator } from '../bbc';
import {
  Calibration,
  CALIBRATION_METHODS,
  CALIBRATION_THRESHOLD,
  CalibrationMethod,
  calibrationReport,
  CalibrationReport,
  crossFitCalibration,
  fitCalibration,
} from '../calibration';
import type { Configuration } from '../grid';
import { Rng } from '../rng';
import { selectorKey } from '../selection';
import type { CalibrationFacts } from '../types';
import { inBagValues, simplicityOrder, TieRule } from '../winner';
import type { CrossValidation } from './cross-validation';
import { AnalysisRun, BOOTSTRAPS, KeyedModel, meanOverRepeats } from './run';

/** The models the result shows, and what the winner rule chose them with. */
export interface Winners {
  /** `best`, and `interpretable` when the best is not */
  keyed: KeyedModel[];
  /** the configurations not dropped, ascending (the winner rule's positions) */
  aliveList: number[];
  /** the pooled out-of-fold primary metric of each configuration not dropped */
  pooledOf: Map<number, number>;
  /** the mean reference-signature size of a configuration's selector over the folds */
  meanSize: (c: Configuration) => number;
  /** the primary metric of each surviving configuration on each BBC-CV bootstrap's in-bag samples */
  inBag: Float64Array[];
  rule: TieRule;
}

/** The primary metric of out-of-fold predictions (one array per repeat) on every sample, the mean over the repeats. */
export function pooledMetric(run: AnalysisRun, repeats: Float64Array[]): number {
  return new RepeatedEvaluator(run.metrics[0], repeats, run.ctx).evaluate(new Float64Array(run.prepared.n).fill(1));
}

/** 2. Winners by the winner rule: the simplest configuration statistically tied with the leader (winner.ts). */
export async function chooseWinners(run: AnalysisRun, cv: CrossValidation): Promise<Winners> {
  const { configs, metrics, ctx } = run;
  const aliveList = [...cv.alive].sort((a, b) => a - b);
  const pooled = Float64Array.from(aliveList, (c) => pooledMetric(run, cv.oof[c] as Float64Array[]));
  const pooledOf = new Map(aliveList.map((c, j) => [c, pooled[j]]));
  const meanSize = (c: Configuration): number => {
    const sigs = cv.foldSignatures.get(selectorKey(c.selector)) ?? [];
    return sigs.length > 0 ? sigs.reduce((s, sig) => s + sig.length, 0) / sigs.length : 0;
  };
  const simplest = [...aliveList].sort((a, b) => simplicityOrder(configs[a], configs[b], meanSize, (c) => pooledOf.get(c.index) as number));
  const rank = new Int32Array(aliveList.length);
  simplest.forEach((c, r) => (rank[aliveList.indexOf(c)] = r));
  const inBag = await inBagValues(cv.oof, aliveList, metrics[0], ctx, BOOTSTRAPS, new Rng(run.seed, 0xbbc, 0));
  const rule = new TieRule(inBag, rank);
  const everyPosition = aliveList.map((_, j) => j);
  const best = aliveList[rule.choose(pooled)];
  const keyed: KeyedModel[] = [{ key: 'best', config: configs[best], positions: everyPosition }];
  const interpPositions = everyPosition.filter((j) => configs[aliveList[j]].interpretable);
  if (run.params.modelsConsidered === 'all' && !configs[best].interpretable && interpPositions.length > 0) {
    const ib = aliveList[rule.choose(pooled, interpPositions)];
    keyed.push({ key: 'interpretable', config: configs[ib], positions: interpPositions });
  }
  return { keyed, aliveList, pooledOf, meanSize, inBag, rule };
}

/** A model's calibration facts, and the map its predictions go through when it was calibrated. */
export interface Calibrated {
  report: CalibrationFacts;
  map?: Calibration;
}

/**
 * 2b. Calibration: a winner whose out-of-fold probabilities have an expected calibration error above
 * CALIBRATION_THRESHOLD is calibrated by the first of CALIBRATION_METHODS (isotonic regression, then Platt scaling)
 * that lowers it, each fitted inside the cross-validation (each fold's predictions calibrated by a map fitted on the
 * other folds'). Its column of the out-of-fold matrix then becomes those predictions, so the estimates, the plots and
 * the out-of-fold predictions are those of the calibrated model; the final map is fitted on every out-of-fold
 * prediction.
 */
export function calibrateWinners(run: AnalysisRun, cv: CrossValidation, winners: Winners): Map<string, Calibrated> {
  const calibrations = new Map<string, Calibrated>();
  if (run.prepared.task !== 'classification') return calibrations;
  const { n, y, classes } = run.prepared;
  const K = classes.length;
  for (const km of winners.keyed) {
    const repeats = cv.oof[km.config.index] as Float64Array[];
    const before = calibrationReport(meanOverRepeats(repeats), y, K);
    let entry: Calibrated = { report: before };
    if (before.ece > CALIBRATION_THRESHOLD) {
      let chosen: { method: CalibrationMethod; crossFitted: Float64Array[]; after: CalibrationReport } | undefined;
      for (const method of CALIBRATION_METHODS) {
        const crossFitted = repeats.map((p, r) => crossFitCalibration(p, y, K, run.plan.assignment[r], method));
        const after = calibrationReport(meanOverRepeats(crossFitted), y, K);
        if (after.ece < before.ece) {
          chosen = { method, crossFitted, after };
          break;
        }
      }
      if (chosen) {
        const pooledY = Float64Array.from({ length: n * repeats.length }, (_, i) => y[i % n]);
        const all = new Float64Array(n * run.W * repeats.length);
        repeats.forEach((p, r) => all.set(p, r * n * run.W));
        entry = {
          report: { ...chosen.after, method: chosen.method, uncalibrated: before },
          map: fitCalibration(all, pooledY, K, undefined, chosen.method),
        };
        cv.oof[km.config.index] = chosen.crossFitted;
      }
    }
    calibrations.set(km.key, entry);
  }
  return calibrations;
}

/** 3. BBC-CV estimates of each shown model, each bootstrap choosing by the same rule on its in-bag samples. */
export async function estimatePerformance(run: AnalysisRun, cv: CrossValidation, winners: Winners): Promise<Estimate[]> {
  const estimates: Estimate[] = [];
  for (const km of winners.keyed) {
    const choose = (values: Float64Array): number => winners.rule.choose(values, km.positions);
    const rng = new Rng(run.seed, 0xbbc, 0);
    estimates.push(await bbcEstimate(cv.oof, winners.aliveList, run.metrics, run.ctx, BOOTSTRAPS, rng, { inBag: winners.inBag, choose }));
  }
  return estimates;
}
