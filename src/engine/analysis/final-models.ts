import type { TaskResult, TaskSpec } from '../pipeline';
import { Selection, selectorKey } from '../selection';
import { AnalysisRun, KeyedModel, selectionBatch } from './run';
import type { Winners } from './winners';

/** Each shown model's selection on all samples, and one refit per signature shown. */
export interface FinalModels {
  /** by shown model: its selection on all samples (reference signature first, then equivalents) */
  selections: Selection[];
  /** by shown model: the refit of each of its signatures, in the selection's order */
  refits: TaskResult[][];
}

/** Each shown model's reference signature on all samples and its refit: what the explanations and most plots read. */
export interface ReferenceModels {
  signatures: number[][];
  refits: TaskResult[];
}

/** Step 4 under way: the reference models as soon as they are fitted, the whole final models after. */
export interface FinalRun {
  reference: Promise<ReferenceModels>;
  finals: Promise<FinalModels>;
}

/**
 * 4. Selection on all samples for each winner (with the equivalents of its members), then one refit on all samples
 * per signature shown, so that a prediction can use any of them.
 *
 * A LASSO setting's equivalence analysis (equivalents.ts) is the long part, and its reference signature does not wait
 * for it: the signature without its copies, which cross-validation evaluated on every fold (selection.ts). So the
 * selections run twice side by side: without equivalents, giving every reference signature and its refit at once
 * (`reference`: the explanations and the plots start from it), and LASSO's with them, queued first, after which the
 * equivalents' refits run (`finals`). A SES selection finds its equivalents in the first run. The reference signature
 * is the first of the selection with equivalents (the same step on the same test budget): checked.
 */
export function refitOnAllSamples(run: AnalysisRun, winners: Winners): FinalRun {
  const { keyed } = winners;
  const all = Int32Array.from({ length: run.prepared.n }, (_, i) => i);
  const shown = Math.max(1, run.params.maxVisualizedSignatureCount);
  const lasso = keyed.filter((km) => km.config.selector.kind === 'lasso').map((km) => km.config);
  const withEquivalents = lasso.length > 0 ? selectionBatch(lasso, all, 'all', shown, 0, true) : undefined;
  const equivalents = withEquivalents ? run.runner.run(withEquivalents.specs, withEquivalents.collect) : Promise.resolve();
  equivalents.catch(() => undefined);
  const first = selectionBatch(
    keyed.map((km) => km.config),
    all,
    'all',
    shown,
    0,
  );
  const selected = run.runner.run(first.specs, first.collect);
  const reference = selected.then(async (): Promise<ReferenceModels> => {
    const signatures = keyed.map((km) => (first.bySelector.get(selectorKey(km.config.selector)) as Selection).signatures[0]);
    const refits = await refit(
      run,
      keyed.map((km, i) => ({ km, signature: signatures[i], position: 0 })),
    );
    return { signatures, refits };
  });
  const finals = Promise.all([reference, equivalents]).then(async ([ref]): Promise<FinalModels> => {
    const selections = keyed.map((km) => {
      const key = selectorKey(km.config.selector);
      return (withEquivalents?.bySelector.get(key) ?? first.bySelector.get(key)) as Selection;
    });
    selections.forEach((sel, i) => {
      if (sel.signatures[0]?.join() !== ref.signatures[i]?.join())
        throw new Error('The final selection with equivalents does not start with the reference signature');
    });
    const others = keyed.flatMap((km, i) =>
      selections[i].signatures.slice(1).map((signature, s) => ({ km, signature, position: s + 1, i })),
    );
    const refits = await refit(run, others);
    run.progress.add(keyed.length * (run.work.refit + run.work.finalSelection));
    return { selections, refits: keyed.map((_, i) => [ref.refits[i], ...refits.filter((_, k) => others[k].i === i)]) };
  });
  return { reference, finals };
}

/** Refits on all samples of the given signatures, each the `position`-th of its model's selection (its seeds). */
async function refit(run: AnalysisRun, fits: { km: KeyedModel; signature: number[]; position: number }[]): Promise<TaskResult[]> {
  const all = Int32Array.from({ length: run.prepared.n }, (_, i) => i);
  const specs = fits.map(({ km, signature, position }, id): TaskSpec => ({
    id,
    config: km.config,
    train: all,
    test: new Int32Array(0),
    seedIds: [km.config.index, 0x7fffff, position],
    fixedFeatures: signature,
    final: true,
  }));
  const results: TaskResult[] = [];
  await run.runner.run(specs, (res) => {
    results[res.id] = res;
  });
  run.fits += specs.length;
  return results;
}
