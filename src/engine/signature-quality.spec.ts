/**
 * Signatures cost almost nothing in accuracy (issue 10): on breast_cancer, the best model of a typical analysis
 * (SES / LASSO signatures) has a reference signature of at most 10 features, and its AUC on held-out samples stays
 * within 0.01 of the model allowed to use every feature (mostRelevantOrAll with room for all 30) on the same split.
 * Uses worker threads: needs the compiled engine (npm run build, as `npm test` does first).
 */
import { heldOutPerformance, holdout, loadShared, parameters } from '../../bench/engine-datasets';
import { runAnalysis } from './index';

jest.setTimeout(300_000);

it('breast_cancer: a signature of at most 10 features, held-out AUC within 0.01 of all features', async () => {
  const outcome = { classification: 'diagnosis' };
  const { train, test } = holdout(loadShared('breast_cancer'), outcome, 0.3, 1);
  const selected = await runAnalysis(train, parameters(outcome, 'typical'), { seed: 7, threads: 2 });
  const all = await runAnalysis(
    train,
    { ...parameters(outcome, 'typical'), featureSelection: 'mostRelevantOrAll', maxSignatureSize: 30 },
    { seed: 7, threads: 2 },
  );
  const reference = selected.models.best.signatures[0];
  expect(reference.length).toBeGreaterThan(0);
  expect(reference.length).toBeLessThanOrEqual(10);
  const aucSelected = heldOutPerformance(selected.pipelines.best[0], test, outcome);
  const aucAll = heldOutPerformance(all.pipelines.best[0], test, outcome);
  expect(aucSelected).toBeGreaterThanOrEqual(aucAll - 0.01);
});
