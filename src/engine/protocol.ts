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
 * 4. the out-of-fold explanations of each winner (explanations.ts) beside the plots that read its final selection
 *    (model-plots.ts; those that read the explanations wait for them), and the result (output.ts).
 */
export async function runAnalysis(dataset: EngineDataset, params: AnalysisParameters, options: RunOptions): Promise<AnalysisOutput> {
  if (options.signal?.aborted) throw new EngineAbortError();
  const run = startRun(dataset, params, options);
  const step = options.onStep ?? ((): void => undefined);
  try {
    step('cross-validation');
    const cv = await crossValidate(run);
    step('calibration');
    const calibrations = await calibrateConfigurations(run, cv);
    step('winners');
    const winners = await chooseWinners(run, cv);
    // the selections on all samples start on the worker threads, the plots of the out-of-fold predictions behind them
    // (on a thread the selections leave free), while the estimates' bootstraps run on this one
    const { reference, finals: final } = refitOnAllSamples(run, winners);
    reference.catch(() => undefined);
    final.catch(() => undefined);
    const drawn = plotOutOfFold(run, cv, winners);
    drawn.catch(() => undefined);
    step('estimates');
    const estimates = await estimatePerformance(run, cv, winners);
    step('final models');
    const references = await reference;
    // the explanations' refits on the worker threads beside the plots' (the plots that read them wait for them), and
    // both beside the equivalence analysis of a LASSO selection
    const explained = explainOutOfFold(run, winners, references);
    explained.explanations.catch(() => undefined);
    for (const p of explained.predictions) p.catch(() => undefined);
    const selections = final.then((f) => f.selections);
    selections.catch(() => undefined);
    step('plots and explanations');
    const { plots, pooled } = await plotModels(run, cv, winners, references, selections, await drawn, {
      ...explained,
      calibrations,
    });
    const explanations = await explained.explanations;
    step('final selections');
    const finals = await final;
    step('result');
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
