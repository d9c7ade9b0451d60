import type { TaskResult, TaskSpec } from '../pipeline';
import { Selection, selectorKey } from '../selection';
import { AnalysisRun, selectionBatch } from './run';
import type { Winners } from './winners';

/** Each shown model's selection on all samples, and one refit per signature shown. */
export interface FinalModels {
  /** by shown model: its selection on all samples (reference signature first, then equivalents) */
  selections: Selection[];
  /** by shown model: the refit of each of its signatures, in the selection's order */
  refits: TaskResult[][];
}

/**
 * 4. Selection on all samples for each winner (with the equivalents of its members), then one refit on all samples
 * per signature shown, so that a prediction can use any of them.
 */
export async function refitOnAllSamples(run: AnalysisRun, winners: Winners): Promise<FinalModels> {
  const { keyed } = winners;
  const all = Int32Array.from({ length: run.prepared.n }, (_, i) => i);
  const shown = Math.max(1, run.params.maxVisualizedSignatureCount);
  const batch = selectionBatch(
    keyed.map((km) => km.config),
    all,
    'all',
    shown,
    0,
    true,
  );
  await run.runner.run(batch.specs, batch.collect);
  const selections = keyed.map((km) => batch.bySelector.get(selectorKey(km.config.selector)) as Selection);
  const specs: TaskSpec[] = [];
  const owner: number[] = [];
  keyed.forEach((km, i) =>
    selections[i].signatures.forEach((sig, s) => {
      owner.push(i);
      specs.push({
        id: specs.length,
        config: km.config,
        train: all,
        test: new Int32Array(0),
        seedIds: [km.config.index, 0x7fffff, s],
        fixedFeatures: sig,
        final: true,
      });
    }),
  );
  const results: TaskResult[] = [];
  await run.runner.run(specs, (res) => {
    results[res.id] = res;
  });
  run.progress.add(keyed.length);
  run.fits += specs.length;
  return { selections, refits: keyed.map((_, i) => results.filter((_, id) => owner[id] === i)) };
}
