import { bbcEstimate, Estimate, RepeatedEvaluator } from '../bbc';
import { probabilityFloor } from '../calibration';
import { inPieces, matrixOnPool } from '../compute';
import type { Configuration } from '../grid';
import { Rng } from '../rng';
import { selectorKey } from '../selection';
import { ModelKey, ModelsConsidered } from '../types';
import { ConfigurationCalibration } from './configuration-calibration';
import { inBagValues, sampleLogLoss, simplicityOrder, TieRule } from '../winner';
import type { CrossValidation } from './cross-validation';
import { AnalysisRun, BOOTSTRAPS, KeyedModel } from './run';

export type { ConfigurationCalibration } from './configuration-calibration';

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
  /** classification: the log loss of each one's probabilities on the same in-bag samples */
  inBagLoss?: Float64Array[];
  rule: TieRule;
  /** what the winner rule saw of each configuration not dropped, by configuration index (for the leaderboard) */
  standings: Map<number, RuleStanding>;
}

/** What the winner rule saw of one configuration. */
export interface RuleStanding {
  /** the standard error of the leader's lead over it (0 for the leader) */
  standardError: number;
  /** whether the leader's lead on the metric is at most one standard error */
  tiedOnMetric: boolean;
  /** classification: the log loss of its out-of-fold probabilities (those it gives: calibrated when it is) */
  logLoss?: number;
  /**
   * classification, tied on the metric: the standard error of its log loss's excess over the lowest of those tied on
   * the metric (0 for that one)
   */
  logLossStandardError?: number;
  /** tied with the leader: on the metric and, for classification, on the log loss */
  tied: boolean;
  /** its position in the simplicity order among the configurations not dropped (1 = simplest) */
  simplicityRank: number;
  /** an interpretable configuration, when the result has an `interpretable` model: the same against the best interpretable */
  interpretable?: { standardError: number; tied: boolean };
}

/** The primary metric of out-of-fold predictions (one array per repeat) on every sample, the mean over the repeats. */
export function pooledMetric(run: AnalysisRun, repeats: Float64Array[]): number {
  return new RepeatedEvaluator(run.metrics[0], repeats, run.ctx).evaluate(new Float64Array(run.prepared.n).fill(1));
}

/**
 * 2. Winners by the winner rule (winner.ts): the simplest configuration statistically tied with the leader, on the
 * primary metric and, for classification, on the log loss of the probabilities each gives.
 */
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
  const { y, classes, task } = run.prepared;
  const sampleLosses =
    task === 'classification' ? aliveList.map((c) => sampleLogLoss(cv.oof[c] as Float64Array[], y, classes.length)) : undefined;
  const loss = sampleLosses ? Float64Array.from(sampleLosses, (l) => l.reduce((s, v) => s + v, 0) / l.length) : undefined;
  const inBag = await inBagValues(
    cv.oof,
    aliveList,
    metrics[0],
    ctx,
    BOOTSTRAPS,
    new Rng(run.seed, 0xbbc, 0),
    sampleLosses,
    matrixOnPool(run.runner),
  );
  const rule = new TieRule(inBag.values, rank, inBag.losses);
  const everyPosition = aliveList.map((_, j) => j);
  const best = aliveList[rule.choose(pooled, undefined, loss)];
  const keyed: KeyedModel[] = [{ key: ModelKey.Best, config: configs[best], positions: everyPosition }];
  const interpPositions = everyPosition.filter((j) => configs[aliveList[j]].interpretable);
  const all = rule.standings(pooled, undefined, loss);
  const standings = new Map<number, RuleStanding>(
    aliveList.map((c, j) => [
      c,
      {
        standardError: all.standardErrors[j],
        tiedOnMetric: all.tiedOnMetric.includes(j),
        ...(loss ? { logLoss: loss[j] } : {}),
        ...(loss && Number.isFinite(all.lossStandardErrors[j]) ? { logLossStandardError: all.lossStandardErrors[j] } : {}),
        tied: all.tied.includes(j),
        simplicityRank: rank[j] + 1,
      },
    ]),
  );
  if (run.params.modelsConsidered === ModelsConsidered.All && !configs[best].interpretable && interpPositions.length > 0) {
    const ib = aliveList[rule.choose(pooled, interpPositions, loss)];
    keyed.push({ key: ModelKey.Interpretable, config: configs[ib], positions: interpPositions });
    const among = rule.standings(pooled, interpPositions, loss);
    for (const j of interpPositions)
      (standings.get(aliveList[j]) as RuleStanding).interpretable = {
        standardError: among.standardErrors[j],
        tied: among.tied.includes(j),
      };
  }
  return { keyed, aliveList, pooledOf, meanSize, inBag: inBag.values, inBagLoss: inBag.losses, rule, standings };
}

/**
 * 1b. Calibration of every configuration still evaluated (classification), before any choice is made: a configuration
 * whose cross-fitted calibrated probabilities (each fold's by a map fitted on the other folds') have a lower log loss
 * and a lower Brier score than its own (calibration.ts, chooseCalibration) gets the map fitted on all its out-of-fold
 * predictions, and those predictions through it replace its own. The winner rule, the leaderboard, BBC-CV's bootstraps,
 * the plots and the out-of-fold predictions then all read the probabilities each configuration's final model gives
 * (a bootstrap that picks another configuration scores it calibrated, as the winner is), and with two classes the map
 * is increasing, so the calibrated AUC is the uncalibrated one. The facts reported are those of the predictions shown
 * (the Calibration plot's); the decision compared cross-fitted scores, so that a map is kept only when it helps on
 * samples it was not fitted on. The configurations are calibrated side by side on the pool, CALIBRATION_PIECE to a
 * piece (each independently of the others: configuration-calibration.ts).
 */
export async function calibrateConfigurations(run: AnalysisRun, cv: CrossValidation): Promise<Map<number, ConfigurationCalibration>> {
  const calibrations = new Map<number, ConfigurationCalibration>();
  if (run.prepared.task !== 'classification') return calibrations;
  const { n, y, classes } = run.prepared;
  const K = classes.length;
  const floor = probabilityFloor(n);
  const alive = [...cv.alive].sort((a, b) => a - b);
  const pieces = await inPieces(alive.length, CALIBRATION_PIECE, (from, to) =>
    run.runner.compute('calibrateConfigurations', {
      configurations: alive.slice(from, to).map((c) => ({
        repeats: cv.oof[c] as Float64Array[],
        y,
        K,
        folds: run.plan.assignment,
        floor,
        metric: run.metrics[0],
        ctx: run.ctx,
      })),
    }),
  );
  pieces.flat().forEach(({ calibration, mapped }, j) => {
    calibrations.set(alive[j], calibration);
    if (mapped) cv.oof[alive[j]] = mapped;
  });
  return calibrations;
}

/** Configurations per piece of calibrateConfigurations' work on the pool. */
const CALIBRATION_PIECE = 8;

/** 3. BBC-CV estimates of each shown model, each bootstrap choosing by the same rule on its in-bag samples. */
export async function estimatePerformance(run: AnalysisRun, cv: CrossValidation, winners: Winners): Promise<Estimate[]> {
  const estimates: Estimate[] = [];
  for (const km of winners.keyed) {
    const choose = (values: Float64Array, b: number): number => winners.rule.choose(values, km.positions, winners.inBagLoss?.[b]);
    const rng = new Rng(run.seed, 0xbbc, 0);
    estimates.push(await bbcEstimate(cv.oof, winners.aliveList, run.metrics, run.ctx, BOOTSTRAPS, rng, { inBag: winners.inBag, choose }));
  }
  return estimates;
}
