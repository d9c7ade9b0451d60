import { crossValidate } from './analysis/cross-validation';
import { explainOutOfFold } from './analysis/explanations';
import { refitOnAllSamples } from './analysis/final-models';
import { plotModels, plotOutOfFold } from './analysis/model-plots';
import { assembleOutput } from './analysis/output';
import { startRun } from './analysis/run';
import { calibrateConfigurations, chooseWinners, estimatePerformance } from './analysis/winners';
import { EngineAbortError } from './errors';
import type { AnalysisOutput, AnalysisParameters, EngineDataset, RunOptions } from './types';

/**
 * Runs an analysis as docs/engine.md's protocol says, one named step each (./analysis/*):
 * 1. every configuration of the grid through stratified, group-aware repeated K-fold cross-validation, with BBCD-CV
 *    dropping on larger grids (cross-validation.ts);
 * 2. the calibration of every configuration whose probabilities it improves (by log loss and Brier score), the winners
 *    by the winner rule (winner.ts), `best` and `interpretable`, and their BBC-CV estimates with 95% intervals for that
 *    rule (winners.ts);
 * 3. each winner's selection on all samples and one refit per signature shown (final-models.ts), while the plots of
 *    its out-of-fold predictions are drawn (model-plots.ts, plotOutOfFold);
 * 4. the out-of-fold explanations of each winner (explanations.ts), the plots that read its final selection
 *    (model-plots.ts), and the result (output.ts).
 */
export async function runAnalysis(dataset: EngineDataset, params: AnalysisParameters, options: RunOptions): Promise<AnalysisOutput> {
  if (options.signal?.aborted) throw new EngineAbortError();
  const run = startRun(dataset, params, options);
  try {
    const cv = await crossValidate(run);
    const calibrations = await calibrateConfigurations(run, cv);
    const winners = await chooseWinners(run, cv);
    // the selections on all samples start on the worker threads, the plots of the out-of-fold predictions behind them
    // (on a thread the selections leave free), while the estimates' bootstraps run on this one
    const refits = refitOnAllSamples(run, winners);
    refits.catch(() => undefined);
    const drawn = plotOutOfFold(run, cv, winners);
    drawn.catch(() => undefined);
    const estimates = await estimatePerformance(run, cv, winners);
    const finals = await refits;
    const explanations = await explainOutOfFold(run, winners, finals);
    const { plots, pooled } = await plotModels(run, cv, winners, finals, await drawn, { explanations, calibrations });
    const output = assembleOutput(run, { cv, winners, calibrations, estimates, pooled, finals, plots, explanations });
    run.progress.finish();
    return output;
  } finally {
    run.progress.stop();
    try {
      await run.runner.close();
    } catch {
      // workers already gone
    }
  }
}
