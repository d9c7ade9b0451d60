import type { Estimate } from '../bbc';
import type { Configuration } from '../grid';
import { describeModel } from '../models';
import type { TaskData } from '../pipeline';
import { Preprocessor } from '../preprocessing';
import { createSelector } from '../selection';
import type {
  AnalysisOutput,
  ConfigurationSummary,
  EngineDataset,
  ModelPlots,
  ModelReport,
  OutOfFoldPredictions,
  SavedPipeline,
} from '../types';
import type { OutOfFoldExplanation } from '../plots/plot-kind';
import { isModelKey } from '../types';
import { mlEngine } from '../version';
import type { CrossValidation } from './cross-validation';
import type { FinalModels } from './final-models';
import { AnalysisRun, KeyedModel, meanOverRepeats } from './run';
import { familyOf, flexibility } from '../winner';
import { ConfigurationCalibration, RuleStanding, Winners } from './winners';
import { FEATURE_STABILITY } from '../plots/feature-stability';

const CONSTANT_MODEL = {
  classification: 'the class proportions of the training samples',
  regression: 'the mean of the training samples',
  survival: 'the same risk for every sample',
} as const;

/** Everything the steps computed, for the output. */
export interface AnalysisSteps {
  cv: CrossValidation;
  winners: Winners;
  /** by configuration index */
  calibrations: Map<number, ConfigurationCalibration>;
  estimates: Estimate[];
  /** each shown model's pooled out-of-fold performance */
  pooled: Estimate[];
  finals: FinalModels;
  plots: Record<string, ModelPlots>;
  /** by shown model, in winners.keyed's order */
  explanations?: OutOfFoldExplanation[];
}

/**
 * 6. The result: each shown model's report (its pipeline in words, estimates with intervals, signatures, stability,
 * model facts), its saved pipelines (one per signature), the leaderboard and the out-of-fold predictions.
 */
export function assembleOutput(run: AnalysisRun, steps: AnalysisSteps): AnalysisOutput {
  const { cv, winners, calibrations, estimates, pooled, finals, plots } = steps;
  const { task, classes, features } = run.prepared;
  const K = classes.length;
  const models: Record<string, ModelReport> = {};
  const pipelines: Record<string, SavedPipeline[]> = {};
  winners.keyed.forEach((km, i) => {
    const [f] = finals.refits[i];
    const selection = finals.selections[i];
    const empty = selection.signatures[0].length === 0;
    const report: ModelReport = {
      preprocessing: Preprocessor.describe(),
      featureSelection: `${createSelector(km.config.selector).describe(task)}; at most ${run.params.maxSignatureSize} features`,
      model: empty
        ? `No feature is associated with the outcome: constant model (${CONSTANT_MODEL[task]})`
        : describeModel(km.config.model, task, K) +
          (f.modelView ? '; coefficients on standardized features' : '') +
          (f.rules ? `: ${f.rules}` : ''),
      signatures: selection.signatures.map((sig) => sig.map((j) => features[j].name)),
      signatureCount: selection.signatureCount,
      performance: estimates[i].estimate,
      performanceCis: estimates[i].cis,
      pooledPerformance: pooled[i].estimate,
      pooledPerformanceCis: pooled[i].cis,
      stability: Object.fromEntries((plots[km.key][FEATURE_STABILITY.name] ?? []).map((e) => [e.name, e.value])),
      ...(task === 'classification' ? { classes: [...classes], ...(K === 2 ? { positiveClass: classes[1] } : {}) } : {}),
      ...(calibrations.has(km.config.index) ? { calibration: calibrations.get(km.config.index)?.report } : {}),
    };
    if (f.modelView && !empty) report.modelView = f.modelView;
    models[km.key] = report;
    const map = calibrations.get(km.config.index)?.map;
    pipelines[km.key] = finals.refits[i].map((res) => ({
      ...(res.pipeline as SavedPipeline),
      ...(map && !empty ? { calibration: map } : {}),
      engine: mlEngine(),
    }));
  });
  const { configs, metrics, plan } = run;
  return {
    mlEngine: mlEngine(),
    models,
    plots,
    pipelines,
    configurations: leaderboard(
      configs.filter((c) => cv.alive.has(c.index) || cv.droppedMetric.has(c.index)),
      { ...winners, droppedMetric: cv.droppedMetric, calibrations },
      metrics[0],
      task,
      K,
    ),
    outOfFold: Object.fromEntries(winners.keyed.map((km, i) => [km.key, outOfFold(run, cv, km, steps.explanations?.[i])])),
    stats: {
      configurations: configs.length,
      fits: run.fits,
      folds: plan.k,
      repeats: plan.repeats,
      dropped: cv.droppedMetric.size,
      search: cv.search,
    },
  };
}

/** The out-of-fold predictions a model's estimate was computed from (mean over repeats), with the sample ids. */
function outOfFold(run: AnalysisRun, cv: CrossValidation, km: KeyedModel, e: OutOfFoldExplanation | undefined): OutOfFoldPredictions {
  const { prepared } = run;
  const repeats = cv.oof[km.config.index] as Float64Array[];
  const ids = sampleIds(run.dataset);
  return {
    rows: Array.from(prepared.rows),
    ...(ids ? { sampleIds: Array.from(prepared.rows, (r) => ids[r]) } : {}),
    width: run.W,
    repeats: repeats.length,
    values: Array.from(meanOverRepeats(repeats)),
    y: Array.from(prepared.y),
    ...(prepared.event ? { event: Array.from(prepared.event) } : {}),
    ...(e
      ? {
          explanation: {
            features: e.features,
            scale: e.scale,
            method: e.method,
            ...(e.classes ? { classes: e.classes } : {}),
            heads: e.heads,
            values: Array.from(e.values),
            base: Array.from(e.base),
            output: Array.from(e.output),
            ...(e.standardErrors ? { standardErrors: Array.from(e.standardErrors) } : {}),
          },
        }
      : {}),
  };
}

/** What the leaderboard shows of each configuration's evaluation. */
interface Evaluated {
  /** pooled out-of-fold primary metric of the configurations not dropped, as the winner rule compared them */
  pooledOf: Map<number, number>;
  /** of those BBCD-CV dropped, on the samples evaluated when dropped */
  droppedMetric: Map<number, number>;
  /** the configurations' calibrations */
  calibrations: Map<number, ConfigurationCalibration>;
  meanSize: (c: Configuration) => number;
  keyed: KeyedModel[];
  standings: Map<number, RuleStanding>;
}

/**
 * Every configuration tried (a time limit may leave some untried), with the rows the winner rule chose: first those evaluated to the end, from the
 * highest pooled out-of-fold primary metric to the lowest (a calibrated model: that of its calibrated predictions, with
 * the value it was chosen by as `uncalibratedValue`); then those BBCD-CV dropped, by their metric on the samples
 * evaluated when dropped (a value from fewer samples, often higher by chance, never ranks above a full evaluation).
 */
function leaderboard(
  configs: Configuration[],
  evaluated: Evaluated,
  metric: string,
  task: TaskData['task'],
  K: number,
): ConfigurationSummary[] {
  const { pooledOf, droppedMetric, calibrations, meanSize, keyed, standings } = evaluated;
  const rows = configs.map((c): ConfigurationSummary => {
    const dropped = droppedMetric.has(c.index);
    const key = keyed.find((km) => km.config.index === c.index)?.key;
    const calibration = calibrations.get(c.index);
    const standing = standings.get(c.index);
    return {
      configuration: c.index,
      featureSelection: createSelector(c.selector).describe(task),
      model: describeModel(c.model, task, K),
      interpretable: c.interpretable,
      metric,
      value: (dropped ? droppedMetric.get(c.index) : pooledOf.get(c.index)) as number,
      ...(calibration?.map && calibration.report.method !== 'isotonic'
        ? { uncalibratedValue: calibration.uncalibratedValue, calibration: calibration.report.method }
        : {}),
      signatureSize: meanSize(c),
      droppedEarly: dropped,
      ...(standing
        ? {
            standardError: standing.standardError,
            tied: standing.tied,
            tiedOnMetric: standing.tiedOnMetric,
            ...(standing.logLoss !== undefined ? { logLoss: standing.logLoss } : {}),
            ...(standing.logLossStandardError !== undefined ? { logLossStandardError: standing.logLossStandardError } : {}),
            simplicity: { features: Math.round(meanSize(c)), family: familyOf(c.model), flexibility: flexibility(c.model) },
            simplicityRank: standing.simplicityRank,
            ...(standing.interpretable
              ? { interpretableStandardError: standing.interpretable.standardError, interpretableTied: standing.interpretable.tied }
              : {}),
          }
        : {}),
      ...(key && isModelKey(key) ? { modelKey: key } : {}),
    };
  });
  return rows.sort(leaderboardOrder);
}

/**
 * The leaderboard's order: the configurations evaluated to the end before those BBCD-CV dropped early; within each,
 * the higher primary metric first (a metric that could not be computed last), then the lower grid index.
 */
export function leaderboardOrder(a: ConfigurationSummary, b: ConfigurationSummary): number {
  const value = (r: ConfigurationSummary): number => (Number.isFinite(r.value) ? r.value : -Infinity);
  return Number(a.droppedEarly) - Number(b.droppedEarly) || value(b) - value(a) || a.configuration - b.configuration;
}

/** The values of the dataset's identifier column (the first), when it has one. */
function sampleIds(data: EngineDataset): string[] | undefined {
  const id = data.columns.find((c) => c.type === 'identifier');
  if (!id || !('codes' in id)) return undefined;
  return Array.from(id.codes, (c) => (c < 0 ? '' : id.levels[c]));
}
