import { configurationsToDrop, OofMatrix, RepeatedEvaluator } from '../bbc';
import { matrixOnPool } from '../compute';
import { sharedFloat64 } from '../shared-memory';
import { foldRows } from '../folds';
import type { TaskResult, TaskSpec } from '../pipeline';
import type { Prefetch } from '../pool';
import { Rng } from '../rng';
import { Selection, selectorKey } from '../selection';
import { ModelsConsidered, type SearchFacts } from '../types';
import {
  AnalysisRun,
  DROP_BOOTSTRAPS,
  DROP_EARLY_SAMPLES,
  DROP_MIN_CONFIGURATIONS,
  DROP_THRESHOLD,
  SelectionBatch,
  selectionBatch,
} from './run';

/** What cross-validation leaves: every configuration's out-of-fold predictions and what BBCD-CV dropped. */
export interface CrossValidation {
  /** `oof[config][repeat]`: n x W predictions, null for a configuration dropped early or not tried (time limit) */
  oof: OofMatrix;
  /** the configurations tried to the end and not dropped */
  alive: Set<number>;
  /** the primary metric of each dropped configuration on the samples it was evaluated on (for the leaderboard) */
  droppedMetric: Map<number, number>;
  /** the reference signature of each selector setting on each training fold (signature sizes, stability) */
  foldSignatures: Map<string, number[][]>;
  /** how much of the grid was tried, and whether the time limit stopped the search */
  search: SearchFacts;
}

/** The most configurations of a round of a search with a time limit (searchRounds): one setting's share of the models. */
export const ROUND_MODELS = 16;
/** The least share of a time limit kept for the phase after the search (winners, estimates, final models, plots). */
export const FINAL_PHASE_SHARE = 0.25;

/**
 * 1. Cross-validation of every configuration on the same folds, fold by fold, with BBCD-CV dropping of the
 * configurations that lose with probability above DROP_THRESHOLD (grids of DROP_MIN_CONFIGURATIONS or more), from the
 * third fold of the first repeat on (from the second when it has DROP_EARLY_SAMPLES predictions: firstDropFold).
 *
 * With a time limit (timeLimitSeconds) the grid is tried in rounds (searchRounds), each on every fold of
 * every repeat before the next starts, and the search stops at its deadline (searchDeadline): a round starts only when
 * the time left is at least the last round's running time, and a round still running at the deadline is abandoned at
 * its next fold, its configurations discarded (none of them was evaluated on every fold). The first round always
 * completes. Without a limit there is one round of every configuration.
 */
export async function crossValidate(run: AnalysisRun): Promise<CrossValidation> {
  const { configs, plan, W } = run;
  const n = run.prepared.n;
  const limit = run.params.timeLimitSeconds;
  const cv: CrossValidation = {
    oof: configs.map(() => Array.from({ length: plan.repeats }, () => sharedFloat64(n * W))),
    alive: new Set(),
    droppedMetric: new Map(),
    foldSignatures: new Map(),
    search: {
      configurationsPlanned: configs.length,
      configurationsTried: 0,
      stoppedAtTimeLimit: false,
      ...(limit !== undefined ? { timeLimitSeconds: limit } : {}),
    },
  };
  const rounds = searchRounds(run);
  // the selections of each fold, kept for the rounds after the first (selection is once per selector setting and fold)
  const selections = rounds.length > 1 ? new Map<number, Map<string, Selection>>() : undefined;
  let deadline = Infinity;
  let lastRound = 0;
  const tried = new Set<number>();
  for (let i = 0; i < rounds.length; i++) {
    const began = run.now();
    if (i > 0 && began + lastRound > deadline) break;
    if (!(await searchRound(run, cv, rounds[i], selections, i > 0 ? deadline : Infinity))) break;
    lastRound = run.now() - began;
    rounds[i].forEach((c) => tried.add(c));
    if (i === 0 && limit !== undefined) {
      deadline = searchDeadline(run, limit, lastRound);
      if (rounds.length > 1 && run.now() > deadline) cv.search.firstRoundOverran = true;
    }
  }
  for (const c of configs.map((c) => c.index).filter((c) => !tried.has(c))) {
    cv.alive.delete(c);
    cv.droppedMetric.delete(c);
    cv.oof[c] = null;
  }
  cv.search.configurationsTried = tried.size;
  cv.search.stoppedAtTimeLimit = tried.size < configs.length;
  // the work of the configurations left untried is no longer planned
  run.progress.closePart(run.work.cv);
  return cv;
}

/**
 * The rounds of the search: without a time limit, one of every configuration; with one, rounds of one selector setting
 * and at most ROUND_MODELS of its models each: the models are shared out in q shares (every q-th model, so each share
 * has every kind), and the rounds take the first share with each setting in turn, then the second share, and so on.
 * The first round holds an interpretable configuration when the result will show an `interpretable` model. A round
 * computes the selections of its setting on every fold unless an earlier round did, so the first round, which always
 * completes, costs one setting's selections and a share of its model fits.
 */
export function searchRounds(run: Pick<AnalysisRun, 'configs' | 'params'>): number[][] {
  const { configs, params } = run;
  const all = configs.map((c) => c.index);
  if (params.timeLimitSeconds === undefined) return [all];
  const settings = new Map<string, number[]>();
  for (const c of configs) {
    const key = selectorKey(c.selector);
    settings.set(key, [...(settings.get(key) ?? []), c.index]);
  }
  const q = Math.ceil(Math.max(...[...settings.values()].map((m) => m.length)) / ROUND_MODELS);
  const rounds: number[][] = [];
  for (let share = 0; share < q; share++) for (const members of settings.values()) rounds.push(members.filter((_, m) => m % q === share));
  const found = rounds.filter((r) => r.length > 0);
  const first = selectorKey(configs[found[0][0]].selector);
  const interpretable = configs.find((c) => c.interpretable && selectorKey(c.selector) === first) ?? configs.find((c) => c.interpretable);
  if (params.modelsConsidered === ModelsConsidered.All && interpretable && !found[0].some((c) => configs[c].interpretable)) {
    const from = found.find((r) => r.includes(interpretable.index)) as number[];
    from.splice(from.indexOf(interpretable.index), 1);
    found[0].push(interpretable.index);
    found[0].sort((a, b) => a - b);
  }
  return found.filter((r) => r.length > 0);
}

/**
 * When the search must stop for the rest of the analysis to fit in the time limit: the limit, counted from
 * run.startedAt, less a reserve for the phase after the search (winners, estimates, final models, plots), the larger of
 * FINAL_PHASE_SHARE of the limit and the first round's running time (`firstRoundMs`). That phase took 0.3 to 0.7 times
 * the first round on breast_cancer, iris and diabetes at typical (2 threads, a loaded machine).
 */
export function searchDeadline(run: Pick<AnalysisRun, 'startedAt'>, limitSeconds: number, firstRoundMs: number): number {
  const limit = limitSeconds * 1000;
  return run.startedAt + limit - Math.max(FINAL_PHASE_SHARE * limit, firstRoundMs);
}

/**
 * One round of the search: the configurations `members` on every fold of every repeat. False when the round was
 * abandoned at `deadline` (checked after each fold), its configurations left partly evaluated.
 *
 * Pipelined: while a fold's models run, the next fold's selection runs in the same batch (ahead of them: selection
 * tasks are the long ones), and the selection of the fold after it is queued ahead (TaskRunner.prefetch) for threads
 * the batch leaves idle. After BBCD-CV drops, a fold's work is mostly one long SES task; with the fold after it
 * running beside it, both threads stay busy instead of one waiting fold after fold (10-class 1,800 x 64: the last
 * folds took one thread). A selection queued ahead is for the configurations alive when it was queued; one that no
 * configuration needs after a drop is left out if it has not started. Selection is once per (selector settings,
 * fold), shared by every model of that selector (and by the later rounds: `selections`). A model fit is once per
 * (model settings, signature, fold), shared by the selectors that found the same signature (modelTasks).
 */
async function searchRound(
  run: AnalysisRun,
  cv: CrossValidation,
  members: number[],
  selections: Map<number, Map<string, Selection>> | undefined,
  deadline: number,
): Promise<boolean> {
  const { configs, plan, progress, W } = run;
  members.forEach((c) => cv.alive.add(c));
  // this round's configurations still evaluated
  const round = new Set(members);
  const folds = Array.from({ length: plan.repeats * plan.k }, (_, f) => ({ r: Math.floor(f / plan.k), k: f % plan.k }));
  const known = (f: number): Map<string, Selection> => selections?.get(f) ?? new Map<string, Selection>();
  const selectionOf = (f: number): SelectionBatch =>
    selectionBatch(
      [...round].map((c) => configs[c]).filter((c) => !known(f).has(selectorKey(c.selector))),
      foldRows(plan, folds[f].r, folds[f].k).train,
      `cv:${folds[f].r}:${folds[f].k}`,
      1,
      configs.length,
    );
  const firstDrop = firstDropFold(plan.assignment[0]);
  const collectFrom = (batch: SelectionBatch) => (res: TaskResult) => {
    batch.collect(res);
    progress.add(run.work.selection);
    progress.emit();
  };
  /** fold f's selection, queued ahead: it runs on a thread that the current batch leaves idle */
  const ahead = (f: number): { batch: SelectionBatch; queued: Prefetch } | null => {
    if (f >= folds.length) return null;
    const batch = selectionOf(f);
    return { batch, queued: run.runner.prefetch(batch.specs, collectFrom(batch)) };
  };
  let chosen = selectionOf(0);
  let next = ahead(1);
  await run.runner.run(chosen.specs, collectFrom(chosen));
  const aliveSelectors = (): Set<string> => new Set([...round].map((c) => selectorKey(configs[c].selector)));
  // a fold's signatures are recorded for the selectors alive when the previous fold began (those of the configurations
  // dropped after it included): whether a queued selection of a dropped configuration ran depends on timing
  let recorded = aliveSelectors();
  for (let f = 0; f < folds.length; f++) {
    const { r, k } = folds[f];
    const { train, test } = foldRows(plan, r, k);
    const aliveNow = aliveSelectors();
    // the selections computed in this round (those of earlier rounds were recorded there)
    for (const [key, sel] of chosen.bySelector) {
      if (!recorded.has(key)) continue;
      if (!cv.foldSignatures.has(key)) cv.foldSignatures.set(key, []);
      (cv.foldSignatures.get(key) as number[][]).push(sel.signatures[0]);
    }
    const bySelector = new Map([...known(f), ...chosen.bySelector]);
    // the plan's final part for the largest signature of the first fold, not for the largest allowed
    if (f === 0 && bySelector.size > 0)
      progress.setTotal(
        run.work.cv +
          run.finalWork(Array<number>(run.keysPlanned).fill(Math.max(...[...bySelector.values()].map((s) => s.signatures[0].length)))),
      );
    selections?.set(f, bySelector);
    const signatureOf = (c: number): number[] => (bySelector.get(selectorKey(configs[c].selector)) as Selection).signatures[0];
    const { specs, members: shares } = modelTasks(run, round, signatureOf, { train, test }, r * plan.k + k);
    const after = ahead(f + 2);
    await Promise.all([
      next?.queued.done(),
      run.runner.run(specs, (res) => {
        const shared = shares.get(res.id) as number[];
        for (const c of shared) {
          const dst = (cv.oof[c] as Float64Array[])[r];
          for (let i = 0; i < test.length; i++) dst.set(res.predictions.subarray(i * W, (i + 1) * W), test[i] * W);
        }
        progress.add(shared.length * run.work.fit);
        progress.emit();
      }),
    ]);
    run.fits += specs.length;
    if (f < folds.length - 1 && run.now() >= deadline) {
      after?.queued.drop(() => true);
      return false;
    }
    if (configs.length >= DROP_MIN_CONFIGURATIONS && r === 0 && k >= firstDrop && (k < plan.k - 1 || plan.repeats > 1)) {
      await dropLosers(run, cv, round, k);
      const needed = new Set([...round].map((c) => selectorKey(configs[c].selector)));
      after?.queued.drop((t) => !(t.select ?? []).some((s) => needed.has(selectorKey(s))));
    }
    if (next) chosen = next.batch;
    next = after;
    recorded = aliveNow;
  }
  return true;
}

/**
 * The first fold of the first repeat after which BBCD-CV may drop: the third (k = 2), or the second when the first
 * two hold at least DROP_EARLY_SAMPLES samples. `assignment`: each sample's fold in that repeat.
 */
export function firstDropFold(assignment: ArrayLike<number>): number {
  let early = 0;
  for (let i = 0; i < assignment.length; i++) if (assignment[i] <= 1) early++;
  return early >= DROP_EARLY_SAMPLES ? 1 : 2;
}

/**
 * The model tasks of fold `fold` for the configurations `alive`: configurations that share a model and whose
 * selectors found the same signature on the fold are one fit, whose predictions all of them take (`members`: the
 * configurations of each task id). A task's random seed depends on the model settings and the fold, not on the
 * selector, so such fits would be identical anyway.
 */
function modelTasks(
  run: AnalysisRun,
  alive: Set<number>,
  signatureOf: (c: number) => number[],
  rows: { train: Int32Array; test: Int32Array },
  fold: number,
): { specs: TaskSpec[]; members: Map<number, number[]> } {
  const modelIndex = new Map<string, number>();
  for (const c of run.configs) {
    const key = JSON.stringify(c.model);
    if (!modelIndex.has(key)) modelIndex.set(key, modelIndex.size);
  }
  const byKey = new Map<string, number[]>();
  for (const c of alive) {
    const key = `${modelIndex.get(JSON.stringify(run.configs[c].model))}|${signatureOf(c).join(',')}`;
    const group = byKey.get(key);
    if (group) group.push(c);
    else byKey.set(key, [c]);
  }
  const members = new Map<number, number[]>();
  const specs: TaskSpec[] = [];
  for (const group of byKey.values()) {
    const c = group[0];
    members.set(c, group);
    specs.push({
      id: c,
      config: run.configs[c],
      ...rows,
      seedIds: [modelIndex.get(JSON.stringify(run.configs[c].model)) as number, fold],
      fixedFeatures: signatureOf(c),
    });
  }
  return { specs, members };
}

/**
 * BBCD-CV after fold k of the first repeat: on the samples predicted so far, the configurations that lose to the
 * leader of every pool they are in (all configurations; the interpretable ones) with probability above DROP_THRESHOLD
 * are dropped, and their remaining tasks leave the progress plan.
 */
async function dropLosers(run: AnalysisRun, cv: CrossValidation, round: Set<number>, k: number): Promise<void> {
  const { configs, plan, ctx, metrics } = run;
  const rows = Int32Array.from(Array.from(plan.assignment[0]).flatMap((fold, i) => (fold <= k ? [i] : [])));
  const pools = [[...cv.alive]];
  const interp = configs.filter((c) => c.interpretable && cv.alive.has(c.index)).map((c) => c.index);
  if (interp.length > 0 && interp.length < cv.alive.size) pools.push(interp);
  const rng = new Rng(run.seed, 0xbbcd, k);
  const drop = await configurationsToDrop(
    cv.oof,
    pools,
    metrics[0],
    ctx,
    rows,
    DROP_BOOTSTRAPS,
    DROP_THRESHOLD,
    rng,
    matrixOnPool(run.runner),
  );
  for (const c of [...drop].filter((c) => round.has(c)).sort((a, b) => a - b)) {
    const predicted = new RepeatedEvaluator(metrics[0], [(cv.oof[c] as Float64Array[])[0]], ctx, rows);
    cv.droppedMetric.set(c, predicted.evaluate(new Float64Array(rows.length).fill(1)));
    cv.alive.delete(c);
    round.delete(c);
    cv.oof[c] = null;
    run.progress.remove((plan.k - 1 - k + (plan.repeats - 1) * plan.k) * run.work.fit);
  }
}
