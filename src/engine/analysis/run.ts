import * as os from 'node:os';
import type { MetricContext } from '../bbc';
import { prepareData, PreparedData } from '../data';
import { FoldPlan, planFolds } from '../folds';
import { buildGrid, Configuration } from '../grid';
import { metricNames, type Task } from '../metrics';
import { outputWidth, TaskData, TaskResult, TaskSpec } from '../pipeline';
import { plannedRefits, PlotModel } from '../plots';
import { createRunner, TaskRunner } from '../pool';
import { Selection, SelectorSpec, selectorKey } from '../selection';
import { fitCpu, selectionCpu } from '../task-cost';
import { ModelsConsidered } from '../types';
import type { AnalysisParameters, EngineDataset, RunOptions } from '../types';

/** Bootstraps for BBC-CV and the plot intervals. */
export const BOOTSTRAPS = 1000;
/** BBCD-CV: drop a configuration when it loses to the leader with a probability above this. */
export const DROP_THRESHOLD = 0.99;
/** BBCD-CV runs only on grids with at least this many configurations. */
export const DROP_MIN_CONFIGURATIONS = 20;
export const DROP_BOOTSTRAPS = 200;
/**
 * BBCD-CV drops after the third fold of the first repeat, or already after the second when the first two folds hold at
 * least this many samples (large data: on 1,800 samples the third fold evaluated every configuration of the grid, a
 * quarter of the cross-validation's work, to decide what 360 predictions per configuration already decide).
 */
export const DROP_EARLY_SAMPLES = 300;

/** Folds of the feature-importance refits (repeat 0's folds merged): 5, fewer for large samples to bound the refits. */
export function plotFoldCount(n: number, k: number): number {
  return Math.min(k, n <= 1000 ? 5 : n <= 3000 ? 3 : 2);
}

/**
 * Monotone progress: the fraction of the planned work done, reported on results at most every 100 ms and by a heartbeat
 * every 500 ms. Work that leaves the plan (the tasks of configurations BBCD-CV drops, or a time limit leaves untried)
 * is taken out of it rather than counted as done, so that the fraction stays the share of the work that is done of
 * the work that will be: the status's measured estimate (src/analyses/estimate.ts) divides the time run by it.
 */
export class Progress {
  private done = 0;
  /** planned units that left the plan (negative when the work done outgrew its part of the plan) */
  private removed = 0;
  private last = 0;
  private lastTime = 0;
  private readonly timer: NodeJS.Timeout | null;

  /**
   * `clock` (with a time limit): the fraction is at least the share of the limit used, so that an analysis the limit
   * ends with a small part of its grid tried still moves towards 1 at the pace it will end at.
   */
  constructor(
    private total: number,
    private readonly report?: (fraction: number) => void,
    private readonly clock?: { now: () => number; startedAt: number; limitMs: number },
  ) {
    this.timer = report ? setInterval(() => this.emit(true), 500) : null;
    this.timer?.unref();
  }

  add(k: number): void {
    this.done += k;
  }

  setTotal(total: number): void {
    this.total = total;
  }

  /** `k` planned units will not be done (their configurations were dropped): they leave the plan. */
  remove(k: number): void {
    this.removed += k;
  }

  /**
   * The first `planned` units of the plan are over (the cross-validation, which comes first): whatever of them was not
   * done leaves the plan, and work done beyond them (a time limit's rounds split the selection tasks) joins it, so that
   * what is left is the plan's later parts.
   */
  closePart(planned: number): void {
    this.removed = planned - this.done;
  }

  emit(force = false): void {
    if (!this.report) return;
    const now = Date.now();
    if (!force && now - this.lastTime < 100) return;
    const planned = this.total - this.removed;
    const used = this.clock ? (this.clock.now() - this.clock.startedAt) / this.clock.limitMs : 0;
    const f = Math.max(this.last, Math.min(0.999, Math.max(used, planned > 0 ? this.done / planned : 0)));
    this.last = f;
    this.lastTime = now;
    this.report(f);
  }

  finish(): void {
    this.last = 1;
    this.report?.(1);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}

/** What every step of an analysis reads: the prepared data, the grid, the folds, the task runner and the progress. */
export interface AnalysisRun {
  dataset: EngineDataset;
  params: AnalysisParameters;
  seed: number;
  prepared: PreparedData;
  /** output width of a prediction (classes, or 1) */
  W: number;
  /** the metrics reported, the primary first */
  metrics: string[];
  configs: Configuration[];
  plan: FoldPlan;
  /** what the metrics and bootstraps read: the outcome and the units (groups) bootstraps resample */
  ctx: MetricContext;
  runner: TaskRunner;
  progress: Progress;
  /** the model facts the plot registry chooses plots by */
  plotModel: PlotModel;
  plotFolds: number;
  /** cross-validation tasks planned (models and selections, every fold) */
  cvTasks: number;
  /**
   * What the progress counts a task done as: its price in expected CPU seconds (task-cost.ts) of a model fit of the
   * cross-validation, of a selection task on a fold, of a refit on all or most samples (the final models', the plots'
   * and the explanations'), and of a final selection on all samples; and the cross-validation's planned work in them.
   */
  work: { fit: number; selection: number; refit: number; finalSelection: number; cv: number };
  /** the work planned after the cross-validation (in `work`'s units) for shown models with signatures of these sizes */
  finalWork: (sizes: number[]) => number;
  /** the shown models planned (best and interpretable, or interpretable alone) */
  keysPlanned: number;
  /** the clock of the time limit (milliseconds), and when the limit started counting on it */
  now: () => number;
  startedAt: number;
  /** model fits so far (for the result's stats) */
  fits: number;
}

/** A model the result shows (`best`, `interpretable`): its configuration and the positions the winner rule chose among. */
export interface KeyedModel {
  /** best or interpretable (ModelKey) in an analysis; benchmarks key other refits by their own names */
  key: string;
  config: Configuration;
  /** positions (in the surviving configurations) the winner rule chooses among */
  positions: number[];
}

/** Prepares the data, the grid and the folds, plans the progress and starts the task runner. */
export function startRun(dataset: EngineDataset, params: AnalysisParameters, options: RunOptions): AnalysisRun {
  const threads = Math.max(0, Math.floor(options.threads ?? params.coreCount ?? os.cpus().length));
  const seed = options.seed;
  const prepared = prepareData(dataset, params, threads > 0);
  const { task, n, classes } = prepared;
  const K = classes.length;
  const configs = buildGrid(params, task, prepared.features.length, n);
  const plan = planFolds(prepared, seed);
  const units = prepared.groups ?? Int32Array.from({ length: n }, (_, i) => i);
  const data: TaskData = {
    task,
    n,
    features: prepared.features,
    X: prepared.X,
    y: prepared.y,
    event: prepared.event,
    classes,
    maxSignatureSize: params.maxSignatureSize,
    seed,
  };
  const plotFolds = plotFoldCount(n, plan.k);
  const maxSig = Math.min(params.maxSignatureSize, prepared.features.length);
  const work = taskWork(prepared, configs, plan, outputWidth(prepared));
  const keysPlanned = params.modelsConsidered === ModelsConsidered.Interpretable ? 1 : 2;
  // (the plots' refits are planned for the largest signature until the first fold's selections tell its size)
  const finalWork = (sizes: number[]): number =>
    sizes.reduce(
      (s, size) => s + work.refit + work.finalSelection + work.refit * plannedRefits(plotModel, Math.min(size, maxSig), plotFolds),
      0,
    );
  const plotModel: PlotModel = { task, classCount: task === 'classification' ? K : 0 };
  const now = options.now ?? Date.now;
  const startedAt = options.startedAt ?? now();
  const limitMs = params.timeLimitSeconds === undefined ? undefined : params.timeLimitSeconds * 1000;
  return {
    dataset,
    params,
    seed,
    prepared,
    W: outputWidth(prepared),
    metrics: metricNames(task, K),
    configs,
    plan,
    ctx: {
      outcome: { y: prepared.y, event: prepared.event },
      classCount: K,
      units,
      unitCount: units.reduce((m, u) => Math.max(m, u + 1), 0),
    },
    runner: createRunner(data, threads, options.signal),
    progress: new Progress(
      work.cv + finalWork(Array<number>(keysPlanned).fill(maxSig)),
      options.onProgress,
      limitMs === undefined ? undefined : { now, startedAt, limitMs },
    ),
    plotModel,
    plotFolds,
    cvTasks: work.tasks,
    work,
    finalWork,
    keysPlanned,
    now,
    startedAt,
    fits: 0,
  };
}

/** The prices of the analysis's tasks (AnalysisRun.work), and the cross-validation's tasks planned. */
function taskWork(
  prepared: PreparedData,
  configs: Configuration[],
  plan: FoldPlan,
  width: number,
): AnalysisRun['work'] & { tasks: number } {
  const { n, task } = prepared;
  const p = prepared.features.length;
  const cv = cvWork(configs, plan.k, plan.repeats, (n * (plan.k - 1)) / plan.k, p, width, task);
  return {
    fit: cv.fit,
    selection: cv.selection,
    refit: fitCpu(n, width, task),
    finalSelection: selectionCpu(n, p, width),
    cv: cv.cpu,
    tasks: cv.tasks,
  };
}

/**
 * The cross-validation's planned tasks (plannedCvTasks), the price of a model fit and of a selection task on `rows`
 * training samples (task-cost.ts), and all of them in CPU seconds: what the cost model adds up before a run
 * (cost.ts) and what the progress plans (taskWork).
 */
export function cvWork(
  configs: Configuration[],
  k: number,
  repeats: number,
  rows: number,
  features: number,
  width: number,
  task: Task,
): { tasks: number; fit: number; selection: number; cpu: number } {
  const tasks = plannedCvTasks(configs, k, repeats);
  const fits = configs.length * k * repeats;
  const fit = fitCpu(rows, width, task);
  const selection = selectionCpu(rows, features, width);
  return { tasks, fit, selection, cpu: fits * fit + (tasks - fits) * selection };
}

/** The cross-validation's tasks (a model fit per configuration and a selection per selectionTasks group, every fold). */
export function plannedCvTasks(configs: Configuration[], k: number, repeats: number): number {
  const selectionGroups = selectionTasks([...new Map(configs.map((c) => [selectorKey(c.selector), c.selector])).values()]).length;
  return (configs.length + selectionGroups) * k * repeats;
}

/** Each sample's prediction averaged over the repeats of the cross-validation. */
export function meanOverRepeats(repeats: Float64Array[]): Float64Array {
  const mean = new Float64Array(repeats[0].length);
  for (const r of repeats) for (let i = 0; i < mean.length; i++) mean[i] += r[i] / repeats.length;
  return mean;
}

/** The selection tasks of one set of rows, and where their results go (bySelector, once `collect`ed). */
export interface SelectionBatch {
  specs: TaskSpec[];
  collect: (res: TaskResult) => void;
  bySelector: Map<string, Selection>;
}

/**
 * The selection tasks of `configs`' distinct selector settings on `rows` (selectionTasks' groups), with task ids
 * from `firstId` on (so that they can share a batch with model tasks, whose ids are configuration indices).
 */
export function selectionBatch(
  configs: Configuration[],
  rows: Int32Array,
  cacheKey: string,
  signatureLimit: number,
  firstId: number,
  equivalents = false,
): SelectionBatch {
  const distinct = new Map<string, Configuration>();
  for (const c of configs) if (!distinct.has(selectorKey(c.selector))) distinct.set(selectorKey(c.selector), c);
  const groups = selectionTasks([...distinct.values()].map((c) => c.selector));
  const bySelector = new Map<string, Selection>();
  return {
    specs: groups.map((select, j) => ({
      id: firstId + j,
      config: distinct.get(selectorKey(select[0])) as Configuration,
      train: rows,
      test: new Int32Array(0),
      seedIds: [],
      select,
      signatureLimit,
      cacheKey,
      equivalents,
    })),
    collect: (res) => groups[res.id - firstId].forEach((spec, j) => bySelector.set(selectorKey(spec), (res.selections as Selection[])[j])),
    bySelector,
  };
}

/**
 * Selector settings grouped into tasks: the SES settings share one task (and the results of their tests), the LASSO
 * settings another (one path); "all" is a task of its own.
 */
function selectionTasks(specs: SelectorSpec[]): SelectorSpec[][] {
  const groups = [specs.filter((s) => s.kind === 'ses'), specs.filter((s) => s.kind === 'all'), specs.filter((s) => s.kind === 'lasso')];
  return groups.filter((g) => g.length > 0);
}
