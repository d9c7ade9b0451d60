import * as os from 'node:os';
import { CALIBRATION_THRESHOLD, calibrationReport, crossFitCalibration, fitCalibration, PlattCalibration } from './calibration';
import { bbcEstimate, configurationsToDrop, Estimate, MetricContext, OofMatrix, RepeatedEvaluator } from './bbc';
import { inBagValues, simplicityOrder, TieRule } from './winner';
import { prepareData } from './data';
import { EngineAbortError } from './errors';
import { foldRows, planFolds } from './folds';
import { buildGrid, Configuration } from './grid';
import { metricNames } from './metrics';
import { describeModel } from './models';
import { outputWidth, TaskData, TaskResult, TaskSpec } from './pipeline';
import { computePlots, plannedRefits } from './plots';
import { createRunner, TaskRunner } from './pool';
import { Preprocessor } from './preprocessing';
import { Rng } from './rng';
import { createSelector, Selection, SelectorSpec, selectorKey } from './selection';
import type {
  AnalysisOutput,
  AnalysisParameters,
  CalibrationFacts,
  ConfigurationSummary,
  EngineDataset,
  ModelPlots,
  ModelReport,
  OutOfFoldPredictions,
  RunOptions,
  SavedPipeline,
} from './types';
import { mlEngine } from './version';

/** Bootstraps for BBC-CV and the plot intervals. */
export const BOOTSTRAPS = 1000;
/** BBCD-CV: drop a configuration when it loses to the leader with a probability above this. */
export const DROP_THRESHOLD = 0.99;
/** BBCD-CV runs only on grids with at least this many configurations. */
export const DROP_MIN_CONFIGURATIONS = 20;
const DROP_BOOTSTRAPS = 200;
/** Folds of the feature-importance refits (repeat 0's folds merged): 5, fewer for large samples to bound the refits. */
export function plotFoldCount(n: number, k: number): number {
  return Math.min(k, n <= 1000 ? 5 : n <= 3000 ? 3 : 2);
}

/** Monotone progress: reported on results at most every 100 ms, and by a heartbeat every 500 ms. */
class Progress {
  private done = 0;
  private last = 0;
  private lastTime = 0;
  private readonly timer: NodeJS.Timeout | null;

  constructor(
    private total: number,
    private readonly report?: (fraction: number) => void,
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

  emit(force = false): void {
    if (!this.report) return;
    const now = Date.now();
    if (!force && now - this.lastTime < 100) return;
    const f = Math.max(this.last, Math.min(0.999, this.total > 0 ? this.done / this.total : 0));
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

interface KeyedModel {
  key: string;
  config: Configuration;
  /** positions (in the surviving configurations) the winner rule chooses among */
  positions: number[];
}

/**
 * Runs an analysis: every configuration of the grid through stratified, group-aware repeated K-fold CV
 * (BBCD-CV dropping on larger grids), the winner rule (winner.ts), BBC-CV estimates and intervals for that rule,
 * final refits on all samples, the stability of each feature over the folds, and the feature-importance plots.
 */
export async function runAnalysis(dataset: EngineDataset, params: AnalysisParameters, options: RunOptions): Promise<AnalysisOutput> {
  const threads = Math.max(0, Math.floor(options.threads ?? params.coreCount ?? os.cpus().length));
  const signal = options.signal;
  if (signal?.aborted) throw new EngineAbortError();
  const seed = options.seed;
  const prepared = prepareData(dataset, params, threads > 0);
  const { task, n, classes } = prepared;
  const K = classes.length;
  const W = outputWidth(prepared);
  const metrics = metricNames(task, K);
  const configs = buildGrid(params, task, prepared.features.length, n);
  const plan = planFolds(prepared, seed);
  const units = prepared.groups ?? Int32Array.from({ length: n }, (_, i) => i);
  const ctx: MetricContext = {
    outcome: { y: prepared.y, event: prepared.event },
    classCount: K,
    units,
    unitCount: units.reduce((m, u) => Math.max(m, u + 1), 0),
  };
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
  const selectionGroups = selectionTasks([...new Map(configs.map((c) => [selectorKey(c.selector), c.selector])).values()]).length;
  const cvTasks = (configs.length + selectionGroups) * plan.k * plan.repeats;
  const keysPlanned = params.modelsConsidered === 'interpretable' ? 1 : 2;
  const plotModel = { task, classCount: task === 'classification' ? K : 0 };
  const progress = new Progress(cvTasks + keysPlanned * (1 + plannedRefits(plotModel, maxSig, plotFolds)), options.onProgress);
  const runner = createRunner(data, threads, signal);
  let fits = 0;
  try {
    // 1. Cross-validation of every configuration, fold by fold, with BBCD-CV dropping.
    const oof: OofMatrix = configs.map(() => Array.from({ length: plan.repeats }, () => new Float64Array(n * W)));
    const alive = new Set(configs.map((c) => c.index));
    const interpretableAll = configs.filter((c) => c.interpretable).map((c) => c.index);
    const dropping = configs.length >= DROP_MIN_CONFIGURATIONS;
    const droppedMetric = new Map<number, number>();
    // the reference signature of each selector setting on each training fold (signature sizes, stability)
    const foldSignatures = new Map<string, number[][]>();
    // Fold after fold, pipelined: the selection of the next fold runs in the same batch as the models of this one,
    // so the pool's threads stay busy while a long selection task (SES on wide data) runs, instead of one thread
    // waiting for it fold after fold. Selection is once per (selector settings, fold), shared by every model of
    // that selector; the next fold's selection is for the configurations alive before this fold's dropping.
    const folds = Array.from({ length: plan.repeats * plan.k }, (_, f) => ({ r: Math.floor(f / plan.k), k: f % plan.k }));
    const selectionOf = (f: number): SelectionBatch =>
      selectionBatch(
        [...alive].map((c) => configs[c]),
        foldRows(plan, folds[f].r, folds[f].k).train,
        `cv:${folds[f].r}:${folds[f].k}`,
        1,
        configs.length,
      );
    let chosen = selectionOf(0);
    await runner.run(chosen.specs, (res) => {
      chosen.collect(res);
      progress.add(1);
    });
    for (let f = 0; f < folds.length; f++) {
      const { r, k } = folds[f];
      const { train, test } = foldRows(plan, r, k);
      for (const [key, sel] of chosen.bySelector) {
        if (!foldSignatures.has(key)) foldSignatures.set(key, []);
        (foldSignatures.get(key) as number[][]).push(sel.signatures[0]);
      }
      const bySelector = chosen.bySelector;
      const specs: TaskSpec[] = [...alive].map((c) => ({
        id: c,
        config: configs[c],
        train,
        test,
        seedIds: [c, r * plan.k + k],
        fixedFeatures: (bySelector.get(selectorKey(configs[c].selector)) as Selection).signatures[0],
      }));
      const next = f + 1 < folds.length ? selectionOf(f + 1) : null;
      await runner.run([...(next?.specs ?? []), ...specs], (res) => {
        if (next && res.id >= configs.length) next.collect(res);
        else {
          const dst = (oof[res.id] as Float64Array[])[r];
          for (let i = 0; i < test.length; i++) dst.set(res.predictions.subarray(i * W, (i + 1) * W), test[i] * W);
        }
        progress.add(1);
        progress.emit();
      });
      fits += specs.length;
      if (dropping && r === 0 && k >= 2 && (k < plan.k - 1 || plan.repeats > 1)) {
        const rows = Int32Array.from(Array.from(plan.assignment[0]).flatMap((fold, i) => (fold <= k ? [i] : [])));
        const pools = [[...alive]];
        const interp = interpretableAll.filter((c) => alive.has(c));
        if (interp.length > 0 && interp.length < alive.size) pools.push(interp);
        const drop = await configurationsToDrop(
          oof,
          pools,
          metrics[0],
          ctx,
          rows,
          DROP_BOOTSTRAPS,
          DROP_THRESHOLD,
          new Rng(seed, 0xbbcd, k),
        );
        for (const c of [...drop].sort((a, b) => a - b)) {
          // its metric on the samples it was evaluated on, for the leaderboard
          droppedMetric.set(
            c,
            new RepeatedEvaluator(metrics[0], [(oof[c] as Float64Array[])[0]], ctx, rows).evaluate(new Float64Array(rows.length).fill(1)),
          );
          alive.delete(c);
          oof[c] = null;
          progress.add(plan.k - 1 - k + (plan.repeats - 1) * plan.k);
        }
      }
      if (next) chosen = next;
    }

    // 2. Winners by the winner rule: the simplest configuration statistically tied with the leader (winner.ts).
    const ones = new Float64Array(n).fill(1);
    const aliveList = [...alive].sort((a, b) => a - b);
    const pooled = Float64Array.from(aliveList, (c) => new RepeatedEvaluator(metrics[0], oof[c] as Float64Array[], ctx).evaluate(ones));
    const pooledOf = new Map(aliveList.map((c, j) => [c, pooled[j]]));
    const meanSize = (c: Configuration): number => {
      const sigs = foldSignatures.get(selectorKey(c.selector)) ?? [];
      return sigs.length > 0 ? sigs.reduce((s, sig) => s + sig.length, 0) / sigs.length : 0;
    };
    const simplest = [...aliveList].sort((a, b) =>
      simplicityOrder(configs[a], configs[b], meanSize, (c) => pooledOf.get(c.index) as number),
    );
    const rank = new Int32Array(aliveList.length);
    simplest.forEach((c, r) => (rank[aliveList.indexOf(c)] = r));
    const inBag = await inBagValues(oof, aliveList, metrics[0], ctx, BOOTSTRAPS, new Rng(seed, 0xbbc, 0));
    const rule = new TieRule(inBag, rank);
    const everyPosition = aliveList.map((_, j) => j);
    const best = aliveList[rule.choose(pooled)];
    const keyed: KeyedModel[] = [{ key: 'best', config: configs[best], positions: everyPosition }];
    const interpPositions = everyPosition.filter((j) => configs[aliveList[j]].interpretable);
    if (params.modelsConsidered === 'all' && !configs[best].interpretable && interpPositions.length > 0) {
      const ib = aliveList[rule.choose(pooled, interpPositions)];
      keyed.push({ key: 'interpretable', config: configs[ib], positions: interpPositions });
    }

    // 2b. Calibration: a winner whose out-of-fold probabilities are poorly calibrated gets Platt scaling, fitted inside
    // the cross-validation (each fold's predictions calibrated by a map fitted on the other folds'): its column of
    // the out-of-fold matrix becomes the calibrated predictions, so the estimates, the plots and the out-of-fold
    // predictions are those of the calibrated model; the final map is fitted on every out-of-fold prediction.
    const calibrations = new Map<string, { report: CalibrationFacts; map?: PlattCalibration }>();
    if (task === 'classification') {
      for (const km of keyed) {
        const repeats = oof[km.config.index] as Float64Array[];
        const before = calibrationReport(meanOverRepeats(repeats), prepared.y, K);
        let entry: { report: CalibrationFacts; map?: PlattCalibration } = { report: before };
        if (before.ece > CALIBRATION_THRESHOLD) {
          const crossFitted = repeats.map((p, r) => crossFitCalibration(p, prepared.y, K, plan.assignment[r]));
          const after = calibrationReport(meanOverRepeats(crossFitted), prepared.y, K);
          if (after.ece < before.ece) {
            const pooledY = Float64Array.from({ length: n * repeats.length }, (_, i) => prepared.y[i % n]);
            const all = new Float64Array(n * W * repeats.length);
            repeats.forEach((p, r) => all.set(p, r * n * W));
            entry = { report: { ...after, method: 'platt', uncalibrated: before }, map: fitCalibration(all, pooledY, K) };
            oof[km.config.index] = crossFitted;
          }
        }
        calibrations.set(km.key, entry);
      }
    }

    // 3. BBC-CV estimates, each bootstrap choosing by the same rule on its in-bag samples.
    const estimates: Estimate[] = [];
    for (const km of keyed) {
      const choose = (values: Float64Array): number => rule.choose(values, km.positions);
      estimates.push(await bbcEstimate(oof, aliveList, metrics, ctx, BOOTSTRAPS, new Rng(seed, 0xbbc, 0), { inBag, choose }));
    }

    // 4. Selection on all samples for each winner, then one refit per signature shown (each can be used to predict).
    const all = Int32Array.from({ length: n }, (_, i) => i);
    const shown = Math.max(1, params.maxVisualizedSignatureCount);
    const finalSelection = await select(
      runner,
      keyed.map((km) => km.config),
      all,
      'all',
      shown,
      true,
    );
    const selections = keyed.map((km) => finalSelection.bySelector.get(selectorKey(km.config.selector)) as Selection);
    const finalSpecs: TaskSpec[] = [];
    const owner: number[] = [];
    keyed.forEach((km, i) =>
      selections[i].signatures.forEach((sig, s) => {
        owner.push(i);
        finalSpecs.push({
          id: finalSpecs.length,
          config: km.config,
          train: all,
          test: new Int32Array(0),
          seedIds: [km.config.index, 0x7fffff, s],
          fixedFeatures: sig,
          final: true,
        });
      }),
    );
    const finalResults: TaskResult[] = [];
    await runner.run(finalSpecs, (res) => {
      finalResults[res.id] = res;
    });
    const finals = keyed.map((_, i) => finalResults.filter((_, id) => owner[id] === i));
    progress.add(keyed.length);
    fits += finalSpecs.length;

    // 5. Plots (the registry in ./plots), from the configuration's out-of-fold predictions and refits on subsets.
    const signatures = selections.map((sel) => sel.signatures[0]);
    progress.setTotal(cvTasks + keyed.length + signatures.reduce((s, sig) => s + plannedRefits(plotModel, sig.length, plotFolds), 0));
    const plotFold = Int32Array.from(plan.assignment[0], (f) => f % plotFolds);
    const plotRows = Array.from({ length: plotFolds }, (_, p) => ({
      train: Int32Array.from(all.filter((i) => plotFold[i] !== p)),
      test: Int32Array.from(all.filter((i) => plotFold[i] === p)),
    }));
    const oofOfSets = async (km: KeyedModel, sets: number[][], setOffset: number): Promise<RepeatedEvaluator[]> => {
      const preds = sets.map(() => new Float64Array(n * W));
      const specs: TaskSpec[] = [];
      sets.forEach((features, s) =>
        plotRows.forEach((rows, p) =>
          specs.push({
            id: s * plotFolds + p,
            config: km.config,
            train: rows.train,
            test: rows.test,
            seedIds: [km.config.index, 0x9100 + p, setOffset + s],
            fixedFeatures: features,
          }),
        ),
      );
      await runner.run(specs, (res) => {
        const s = Math.floor(res.id / plotFolds);
        const test = plotRows[res.id % plotFolds].test;
        for (let i = 0; i < test.length; i++) preds[s].set(res.predictions.subarray(i * W, (i + 1) * W), test[i] * W);
        progress.add(1);
        progress.emit();
      });
      fits += specs.filter((s) => (s.fixedFeatures as number[]).length > 0).length;
      return preds.map((p) => new RepeatedEvaluator(metrics[0], [p], ctx));
    };
    const plots: Record<string, ModelPlots> = {};
    for (const [i, km] of keyed.entries()) {
      const repeats = oof[km.config.index] as Float64Array[];
      const memo = new Map<string, Promise<unknown>>();
      plots[km.key] = await computePlots({
        ...plotModel,
        n,
        classes,
        oof: repeats,
        predictions: meanOverRepeats(repeats),
        metric: ctx,
        primaryMetric: metrics[0],
        bootstraps: BOOTSTRAPS,
        rng: (stream) => new Rng(seed, stream, i),
        signature: signatures[i],
        selection: selections[i],
        foldSignatures: foldSignatures.get(selectorKey(km.config.selector)) ?? [],
        featureName: (f) => prepared.features[f].name,
        refit: (sets, setOffset) => oofOfSets(km, sets, setOffset),
        memo: <T>(key: string, compute: () => Promise<T>): Promise<T> => {
          if (!memo.has(key)) memo.set(key, compute());
          return memo.get(key) as Promise<T>;
        },
      });
    }

    // 6. Reports.
    const models: Record<string, ModelReport> = {};
    const pipelines: Record<string, SavedPipeline[]> = {};
    keyed.forEach((km, i) => {
      const [f] = finals[i];
      const empty = signatures[i].length === 0;
      const report: ModelReport = {
        preprocessing: Preprocessor.describe(),
        featureSelection: `${createSelector(km.config.selector).describe(task)}; at most ${params.maxSignatureSize} features`,
        model: empty
          ? `No feature is associated with the outcome: constant model (${CONSTANT_MODEL[task]})`
          : describeModel(km.config.model, task, K) +
            (f.modelView ? '; coefficients on standardized features' : '') +
            (f.rules ? `: ${f.rules}` : ''),
        signatures: selections[i].signatures.map((sig) => sig.map((j) => prepared.features[j].name)),
        signatureCount: selections[i].signatureCount,
        performance: estimates[i].estimate,
        performanceCis: estimates[i].cis,
        stability: Object.fromEntries((plots[km.key]['Feature Stability'] ?? []).map((e) => [e.name, e.value])),
        ...(task === 'classification' ? { classes: [...classes], ...(K === 2 ? { positiveClass: classes[1] } : {}) } : {}),
        ...(calibrations.has(km.key) ? { calibration: calibrations.get(km.key)?.report } : {}),
      };
      if (f.modelView && !empty) report.modelView = f.modelView;
      models[km.key] = report;
      const map = calibrations.get(km.key)?.map;
      pipelines[km.key] = finals[i].map((res) => ({
        ...(res.pipeline as SavedPipeline),
        ...(map && !empty ? { calibration: map } : {}),
        engine: mlEngine(),
      }));
    });
    const configurations = leaderboard(configs, pooledOf, droppedMetric, meanSize, keyed, metrics[0], task, K);
    const ids = sampleIds(dataset);
    const outOfFold = Object.fromEntries(
      keyed.map((km): [string, OutOfFoldPredictions] => {
        const repeats = oof[km.config.index] as Float64Array[];
        return [
          km.key,
          {
            rows: Array.from(prepared.rows),
            ...(ids ? { sampleIds: Array.from(prepared.rows, (r) => ids[r]) } : {}),
            width: W,
            repeats: repeats.length,
            values: Array.from(meanOverRepeats(repeats)),
            y: Array.from(prepared.y),
            ...(prepared.event ? { event: Array.from(prepared.event) } : {}),
          },
        ];
      }),
    );
    progress.finish();
    return {
      mlEngine: mlEngine(),
      models,
      plots,
      pipelines,
      configurations,
      outOfFold,
      stats: { configurations: configs.length, fits, folds: plan.k, repeats: plan.repeats, dropped: configs.length - alive.size },
    };
  } finally {
    progress.stop();
    await closeQuietly(runner);
  }
}

/**
 * Every configuration evaluated, from the highest pooled out-of-fold primary metric to the lowest (those BBCD-CV
 * dropped: their metric on the samples evaluated when dropped), with the rows the winner rule chose.
 */
function leaderboard(
  configs: Configuration[],
  pooledOf: Map<number, number>,
  droppedMetric: Map<number, number>,
  meanSize: (c: Configuration) => number,
  keyed: KeyedModel[],
  metric: string,
  task: TaskData['task'],
  K: number,
): ConfigurationSummary[] {
  const rows = configs.map((c): ConfigurationSummary => {
    const dropped = droppedMetric.has(c.index);
    const key = keyed.find((km) => km.config.index === c.index)?.key;
    return {
      configuration: c.index,
      featureSelection: createSelector(c.selector).describe(task),
      model: describeModel(c.model, task, K),
      interpretable: c.interpretable,
      metric,
      value: (dropped ? droppedMetric.get(c.index) : pooledOf.get(c.index)) as number,
      signatureSize: meanSize(c),
      droppedEarly: dropped,
      ...(key ? { modelKey: key } : {}),
    };
  });
  const value = (r: ConfigurationSummary): number => (Number.isFinite(r.value) ? r.value : -Infinity);
  return rows.sort((a, b) => value(b) - value(a) || a.configuration - b.configuration);
}

/** The values of the dataset's identifier column (the first), when it has one. */
function sampleIds(data: EngineDataset): string[] | undefined {
  const id = data.columns.find((c) => c.type === 'identifier');
  if (!id || !('codes' in id)) return undefined;
  return Array.from(id.codes, (c) => (c < 0 ? '' : id.levels[c]));
}

/** Each sample's prediction averaged over the repeats of the cross-validation. */
function meanOverRepeats(repeats: Float64Array[]): Float64Array {
  const mean = new Float64Array(repeats[0].length);
  for (const r of repeats) for (let i = 0; i < mean.length; i++) mean[i] += r[i] / repeats.length;
  return mean;
}

async function closeQuietly(runner: TaskRunner): Promise<void> {
  try {
    await runner.close();
  } catch {
    // workers already gone
  }
}

const CONSTANT_MODEL = {
  classification: 'the class proportions of the training samples',
  regression: 'the mean of the training samples',
  survival: 'the same risk for every sample',
} as const;

/** Signatures of each distinct selector of `configs` on `rows`: one selection task per selector setting. */
/** The selection tasks of one set of rows, and where their results go (bySelector, once `collect`ed). */
interface SelectionBatch {
  specs: TaskSpec[];
  collect: (res: TaskResult) => void;
  bySelector: Map<string, Selection>;
}

/**
 * The selection tasks of `configs`' distinct selector settings on `rows` (selectionTasks' groups), with task ids
 * from `firstId` on (so that they can share a batch with model tasks, whose ids are configuration indices).
 */
function selectionBatch(
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

async function select(
  runner: TaskRunner,
  configs: Configuration[],
  rows: Int32Array,
  cacheKey: string,
  signatureLimit: number,
  equivalents = false,
): Promise<{ bySelector: Map<string, Selection>; tasks: number }> {
  const batch = selectionBatch(configs, rows, cacheKey, signatureLimit, 0, equivalents);
  await runner.run(batch.specs, batch.collect);
  return { bySelector: batch.bySelector, tasks: batch.specs.length };
}

/**
 * Selector settings grouped into tasks: the SES settings share one task (and the results of their tests), the LASSO
 * settings another (one path); "all" is a task of its own.
 */
function selectionTasks(specs: SelectorSpec[]): SelectorSpec[][] {
  const groups = [specs.filter((s) => s.kind === 'ses'), specs.filter((s) => s.kind === 'all'), specs.filter((s) => s.kind === 'lasso')];
  return groups.filter((g) => g.length > 0);
}
