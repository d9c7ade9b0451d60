/**
 * The plot registry: every kind of plot a model can have, in the order the plot routes list them. Everything else
 * reads this list: which plots an analysis computes for a model (and the progress it plans for them), the names and
 * order `availablePlots` answers, and the schemas of the OpenAPI document (src/plots/dto/plot.dto.ts: `Plot`, each
 * kind's schema a component under its schemaName). A new kind of plot is one new module
 * (./plots/plot-kind.ts says what it declares) and one entry here.
 */
import { FEATURE_IMPORTANCE } from './plots/feature-importance';
import { FEATURE_STABILITY } from './plots/feature-stability';
import type { FinalModelView, OutOfFoldExplanation, PlotContext, PlotKind, PlotModel } from './plots/plot-kind';
import { PROGRESSIVE_FEATURE_IMPORTANCE } from './plots/progressive-feature-importance';
import { ROC_CURVE } from './plots/roc-curve';
import { CALIBRATION } from './plots/calibration';
import { PREDICTED_VS_ACTUAL } from './plots/predicted-vs-actual';
import { KAPLAN_MEIER_BY_RISK_GROUP } from './plots/kaplan-meier';
import { PROBABILITIES } from './plots/probabilities';
import { CONFUSION_MATRIX } from './plots/confusion-matrix';
import { FEATURE_CONTRIBUTIONS } from './plots/feature-contributions';
import { PARTIAL_DEPENDENCE } from './plots/partial-dependence';
import { PRECISION_RECALL_CURVE } from './plots/precision-recall';
import { THRESHOLD_TABLE } from './plots/threshold-table';
import { TIME_DEPENDENT_AUC } from './plots/time-dependent-auc';
import { BRIER_SCORE } from './plots/brier-score';
import { Rng } from './rng';
import type { Selection } from './selection';

export const PLOT_KINDS = [
  FEATURE_IMPORTANCE,
  PROGRESSIVE_FEATURE_IMPORTANCE,
  FEATURE_STABILITY,
  FEATURE_CONTRIBUTIONS,
  PARTIAL_DEPENDENCE,
  ROC_CURVE,
  PRECISION_RECALL_CURVE,
  THRESHOLD_TABLE,
  CALIBRATION,
  CONFUSION_MATRIX,
  PROBABILITIES,
  PREDICTED_VS_ACTUAL,
  KAPLAN_MEIER_BY_RISK_GROUP,
  TIME_DEPENDENT_AUC,
  BRIER_SCORE,
] as const;

type Kind = (typeof PLOT_KINDS)[number];
export type PlotName = Kind['name'];

/** The plots of one model, by name: each kind's value type. */
export type ModelPlots = { [K in Kind as K['name']]?: K extends PlotKind<string, infer V> ? V : never };

/** Every plot name, in the order clients see them. */
export const PLOT_NAMES: readonly string[] = PLOT_KINDS.map((k) => k.name);

/** The kinds that apply to a model. */
export function plotKindsFor(model: PlotModel): Kind[] {
  return PLOT_KINDS.filter((k) => k.appliesTo(model));
}

/** Refits the plots of a model ask for, for a signature of `size` features on `folds` plot folds (progress planning). */
export function plannedRefits(model: PlotModel, size: number, folds: number): number {
  return plotKindsFor(model).reduce((s, k) => s + (k.refits?.(size, folds) ?? 0), 0);
}

/**
 * Every plot that applies to the model, in the registry's order (plots that cannot be drawn are left out). The kinds
 * are computed side by side: while one waits for its refits on the worker threads, another's bootstraps run on this
 * thread (each kind draws from its own random stream, so the values do not depend on the interleaving). `given`: the
 * values of kinds already computed (outOfFoldPlots), by name (undefined: cannot be drawn).
 */
export async function computePlots(ctx: PlotContext, given: Map<string, unknown> = new Map()): Promise<ModelPlots> {
  const kinds = plotKindsFor(ctx);
  const values = await Promise.all(
    kinds.map(async (kind) => {
      if (given.has(kind.name)) return given.get(kind.name);
      // the bootstraps run on this thread: the progress heartbeat gets its turn between kinds
      await new Promise<void>((resolve) => setImmediate(resolve));
      return kind.compute(ctx);
    }),
  );
  const plots: ModelPlots = {};
  kinds.forEach((kind, i) => {
    if (values[i] !== undefined) Object.assign(plots, { [kind.name]: values[i] });
  });
  return plots;
}

/** What the kinds drawn from the out-of-fold predictions alone read of a model: its PlotContext without the final selection. */
export type OutOfFoldPlotData = Omit<
  PlotContext,
  'rng' | 'signature' | 'selection' | 'foldSignatures' | 'featureName' | 'refit' | 'memo' | 'matrix' | 'explanation' | 'finalModel'
> & {
  /** the random streams: Rng(seed, stream, model) */
  seed: number;
  model: number;
};

/**
 * The plots of the kinds that do not read the final selection (PlotKind.fromFinalSelection), as [name, value] (value
 * undefined: cannot be drawn): a worker thread draws them while the final selection runs (compute.ts), the same values
 * as computePlots'.
 */
export async function outOfFoldPlots(data: OutOfFoldPlotData): Promise<[string, unknown][]> {
  const missing = (what: string) => (): never => {
    throw new Error(`a plot drawn from the out-of-fold predictions read ${what}: its kind needs fromFinalSelection`);
  };
  const ctx: PlotContext = {
    ...data,
    rng: (stream) => new Rng(data.seed, stream, data.model),
    get signature(): number[] {
      return missing('the signature')();
    },
    get selection(): Selection {
      return missing('the selection')();
    },
    get foldSignatures(): number[][] {
      return missing('the fold signatures')();
    },
    featureName: missing('feature names'),
    refit: missing('refits'),
    memo: missing('memo'),
    get explanation(): OutOfFoldExplanation | undefined {
      return missing('the explanations')();
    },
    get finalModel(): FinalModelView | undefined {
      return missing('the final model')();
    },
  };
  const out: [string, unknown][] = [];
  for (const kind of plotKindsFor(ctx).filter((k) => !k.fromFinalSelection)) out.push([kind.name, await kind.compute(ctx)]);
  return out;
}

/** The names present in a model's stored plots, in the registry's order (unknown names last, as stored). */
export function orderedPlotNames(plots: object): string[] {
  const rank = (name: string): number => (PLOT_NAMES.indexOf(name) + 1 || PLOT_NAMES.length + 1) - 1;
  const present = Object.keys(plots).filter((k) => (plots as Record<string, unknown>)[k] !== undefined);
  return present.sort((a, b) => rank(a) - rank(b));
}

export type { JsonSchema, PlotContext, PlotKind, PlotModel } from './plots/plot-kind';
