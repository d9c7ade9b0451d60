import { Estimate, RepeatedEvaluator } from '../bbc';
import type { Calibration } from '../calibration';
import { ComputeRunner, inPieces, matrixOnPool } from '../compute';
import { sharedFloat64 } from '../shared-memory';
import type { PreparedData } from '../data';
import { POOLED_BOOTSTRAP_STREAM } from '../plots/bootstrap';
import type { TaskSpec } from '../pipeline';
import { computePlots } from '../plots';
import type { FinalModelView, OutOfFoldExplanation } from '../plots/plot-kind';
import { Rng } from '../rng';
import { Selection, selectorKey } from '../selection';
import type { ModelPlots, SavedPipeline } from '../types';
import type { CrossValidation } from './cross-validation';
import type { ReferenceModels } from './final-models';
import { GridArgs, gridOutputs } from './partial-dependence-grid';
import { AnalysisRun, BOOTSTRAPS, KeyedModel, meanOverRepeats } from './run';
import type { ConfigurationCalibration, Winners } from './winners';

/** The plots drawn from the out-of-fold predictions alone, and the pooled performance, of each shown model. */
export interface OutOfFoldPlots {
  /** by shown model: the values of the kinds drawn (undefined: cannot be drawn), by name */
  given: Map<string, unknown>[];
  pooled: Estimate[];
}

/**
 * 4b. While the final selections run: the plots of each shown model that read its out-of-fold predictions alone
 * (plots.ts, outOfFoldPlots: every kind without PlotKind.fromFinalSelection) and its pooled out-of-fold performance (the
 * same predictions, the same bootstraps as its ROC Curve, Calibration and Confusion Matrix), on the worker threads.
 */
export async function plotOutOfFold(run: AnalysisRun, cv: CrossValidation, winners: Winners): Promise<OutOfFoldPlots> {
  const { prepared, plotModel, metrics } = run;
  const [given, pooled] = await Promise.all([
    Promise.all(
      winners.keyed.map(async (km, i) => {
        const repeats = cv.oof[km.config.index] as Float64Array[];
        const drawn = await run.runner.compute('outOfFoldPlots', {
          ...plotModel,
          n: prepared.n,
          classes: prepared.classes,
          oof: repeats,
          predictions: meanOverRepeats(repeats),
          metric: run.ctx,
          primaryMetric: metrics[0],
          bootstraps: BOOTSTRAPS,
          seed: run.seed,
          model: i,
        });
        return new Map(drawn);
      }),
    ),
    Promise.all(
      winners.keyed.map((km, i) =>
        run.runner.compute('pooledPerformance', {
          predictions: meanOverRepeats(cv.oof[km.config.index] as Float64Array[]),
          metrics,
          ctx: run.ctx,
          B: BOOTSTRAPS,
          rng: new Rng(run.seed, POOLED_BOOTSTRAP_STREAM, i).position,
        }),
      ),
    ),
  ]);
  return { given, pooled };
}

/**
 * 5. The plots of each shown model (the registry in ../plots): those drawn from its out-of-fold predictions alone
 * (`drawn`, plotOutOfFold), and those that read the final selection, from refits of the configuration on subsets of
 * its reference signature (on the plot folds: repeat 0's folds merged), their bootstraps on the worker threads.
 */
export async function plotModels(
  run: AnalysisRun,
  cv: CrossValidation,
  winners: Winners,
  reference: ReferenceModels,
  selections: Promise<Selection[]>,
  drawn: OutOfFoldPlots,
  explained: {
    explanations?: Promise<OutOfFoldExplanation[]>;
    /** by shown model: the explanations' refits' out-of-fold predictions (explanations.ts), those of its reference signature */
    predictions?: Promise<Float64Array>[];
    calibrations?: Map<number, ConfigurationCalibration>;
  } = {},
): Promise<{ plots: Record<string, ModelPlots>; pooled: Estimate[] }> {
  const { prepared, plotFolds, plotModel, progress, metrics, W } = run;
  const { n, classes } = prepared;
  const { signatures } = reference;
  progress.setTotal(run.work.cv + run.finalWork(signatures.map((sig) => sig.length)));
  const plotFold = Int32Array.from(run.plan.assignment[0], (f) => f % plotFolds);
  const all = Int32Array.from({ length: n }, (_, i) => i);
  const plotRows = Array.from({ length: plotFolds }, (_, p) => ({
    train: Int32Array.from(all.filter((i) => plotFold[i] !== p)),
    test: Int32Array.from(all.filter((i) => plotFold[i] === p)),
  }));
  /** Out-of-fold predictions of the configuration on each feature set, as evaluators of the primary metric. */
  const oofOfSets = async (km: KeyedModel, i: number, sets: number[][], setOffset: number): Promise<RepeatedEvaluator[]> => {
    // the reference signature's refits with the seeds of set 0 at offset 0 are the explanations' (explanations.ts):
    // their predictions are taken from there
    const given = setOffset === 0 && sets.length > 0 && sets[0].join() === signatures[i].join() ? explained.predictions?.[i] : undefined;
    // shared: their bootstraps read them on the worker threads
    const preds = sets.map(() => sharedFloat64(n * W));
    const specs: TaskSpec[] = [];
    sets.forEach((features, s) =>
      (given && s === 0 ? [] : plotRows).forEach((rows, p) =>
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
    await run.runner.run(specs, (res) => {
      const s = Math.floor(res.id / plotFolds);
      const test = plotRows[res.id % plotFolds].test;
      for (let i = 0; i < test.length; i++) preds[s].set(res.predictions.subarray(i * W, (i + 1) * W), test[i] * W);
      progress.add(run.work.refit);
      progress.emit();
    });
    run.fits += specs.filter((s) => (s.fixedFeatures as number[]).length > 0).length;
    if (given) {
      preds[0].set(await given);
      progress.add(run.work.refit * plotFolds);
      progress.emit();
    }
    return preds.map((p) => new RepeatedEvaluator(metrics[0], [p], run.ctx));
  };
  // the models' plots side by side too (their refits share the pool; each draws from its own random streams)
  const matrix = matrixOnPool(run.runner);
  const computed = await Promise.all(
    winners.keyed.map((km, i) => {
      const repeats = cv.oof[km.config.index] as Float64Array[];
      const memo = new Map<string, Promise<unknown>>();
      return computePlots(
        {
          ...plotModel,
          n,
          classes,
          oof: repeats,
          predictions: meanOverRepeats(repeats),
          metric: run.ctx,
          primaryMetric: metrics[0],
          bootstraps: BOOTSTRAPS,
          rng: (stream) => new Rng(run.seed, stream, i),
          signature: signatures[i],
          selection: awaited(selections.then((s) => s[i])),
          foldSignatures: cv.foldSignatures.get(selectorKey(km.config.selector)) ?? [],
          featureName: (f) => prepared.features[f].name,
          refit: (sets, setOffset) => oofOfSets(km, i, sets, setOffset),
          explanation: explained.explanations && awaited(explained.explanations.then((e) => e[i])),
          finalModel: finalModelView(
            prepared,
            reference.refits[i]?.pipeline,
            explained.calibrations?.get(km.config.index)?.map,
            run.runner,
          ),
          memo: <T>(key: string, compute: () => Promise<T>): Promise<T> => {
            if (!memo.has(key)) memo.set(key, compute());
            return memo.get(key) as Promise<T>;
          },
          matrix,
        },
        drawn.given[i],
      );
    }),
  );
  const plots: Record<string, ModelPlots> = {};
  winners.keyed.forEach((km, i) => (plots[km.key] = computed[i]));
  return { plots, pooled: drawn.pooled };
}

/**
 * The final model of a reference signature (its calibration map applied) over the analysed samples, for partial
 * dependence: its grids predicted by gridOutputs, on the runner's worker threads when it has them (the grids in
 * pieces, about two per thread, put back in order), else here.
 */
export function finalModelView(
  prepared: PreparedData,
  saved: SavedPipeline | undefined,
  calibration?: Calibration,
  runner?: ComputeRunner,
): FinalModelView | undefined {
  if (!saved) return undefined;
  const pipeline: SavedPipeline = { ...saved, ...(calibration ? { calibration } : {}) };
  const n = prepared.n;
  const byName = new Map(prepared.features.map((f, j) => [f.name, j]));
  const features = saved.featureNames.map((name) => {
    const feature = byName.get(name) as number;
    const meta = prepared.features[feature];
    return { feature, name, kind: meta.kind, levels: meta.levels };
  });
  const column = (feature: number): Float64Array => prepared.X.subarray(feature * n, (feature + 1) * n);
  const survivalTime = prepared.task === 'survival' ? medianOf(prepared.y) : undefined;
  return {
    features,
    column,
    survivalTime,
    async predictGrids(rows, grids) {
      const args: GridArgs = {
        pipeline,
        features,
        columns: features.map((f) => Float64Array.from(rows, (r) => column(f.feature)[r])),
        ...(survivalTime !== undefined ? { survivalTime } : {}),
        grids,
      };
      const workers = runner?.liveWorkers ?? 0;
      if (!runner || workers === 0) return gridOutputs(args);
      const size = Math.max(1, Math.ceil(grids.length / (2 * workers)));
      const pieces = await inPieces(grids.length, size, (from, to) =>
        runner.compute('partialDependenceGrids', { ...args, grids: grids.slice(from, to) }),
      );
      return pieces.flat();
    },
  };
}

/**
 * A promise a plot may never read (when another plot fails first): its failure is the analysis's through the promise
 * it came from, not an unhandled rejection.
 */
function awaited<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

/** The median of the values (R's quantile type 7). */
function medianOf(values: Float64Array): number {
  const sorted = Float64Array.from(values).sort();
  const pos = (sorted.length - 1) / 2;
  return (sorted[Math.floor(pos)] + sorted[Math.ceil(pos)]) / 2;
}
