import type { Task } from './metrics';
import { isInterpretable, MODEL_KINDS, ModelSpec, supports } from './models';
import { cross } from './models/kind';
import type { SelectorSpec } from './selection';
import { FeatureSelection, ModelsConsidered } from './types';
import type { AnalysisParameters, Thoroughness } from './types';

/**
 * THE CONFIGURATION GRID. Everything each thoroughness level tries is in this table: the selectors' settings are
 * GRID below, the models' are declared by each kind of model (`grid` of models/linear.ts, cart.ts, forest.ts, svm.ts;
 * the kinds are listed in models/index.ts); grid.spec.ts states the counts.
 * A configuration = preprocessing (always the same) -> feature selector -> model.
 * Configurations = selectors x models (models filtered by task and modelsConsidered).
 *
 * | level       | SES (maxK, alpha)                          | LASSO c (BIC-type)                   |
 * |-------------|--------------------------------------------|--------------------------------------|
 * | preliminary | (2, 0.05)                                  | 1                                    |
 * | typical     | (2, 0.05), (2, 0.1), (3, 0.05); wide data:  | 1.25, 1.5, 2; narrow data: 1 as well |
 * |             | (2, 0.01), (2, 0.05), (3, 0.01)            |                                      |
 * | extensive   | maxK 2, 3 x alpha 0.01, 0.05, 0.1          | 0.25, 0.5, 1, 1.5, 2                 |
 *
 * Models: what each kind tries per level is written beside the kind (linear.ts, cart.ts, forest.ts, svm.ts).
 *
 * Wide data (more than WIDE_FEATURES features) makes typical's SES stricter: among many candidates, chance passes
 * alpha = 0.05 often (200 x 1,000 noise features: a few noise features enter every signature), while on narrow data
 * a weak real feature costs more when missed (diabetes). LASSO's c below 1.25 (BIC's penalty or weaker) is tried by
 * typical only on narrow data (at most NARROW_FEATURES features), and by extensive: on breast_cancer (30 features)
 * c = 0.5 selects 20-25 of the features, c = 1 up to 12, for no better held-out AUC; with at most 10 candidates a
 * signature stays small whatever c is, and BIC's own c = 1 keeps a weak real predictor that c >= 1.25 drops (lung:
 * `sex` on one split, held-out concordance 0.563 without it, 0.633 with it). SES's test budget is 3 x the number of features with a floor of 10,000
 * tests (ses.ts), so that it bounds the work on wide data only.
 * Selectors: 2 / 6 / 11 per level (typical on narrow data: 7). Each runs once per training fold (LASSO settings share one path), and every
 * model of that selector reuses its signature. `featureSelection: mostRelevantOrAll` adds "no selection" as one
 * more selector when the dataset has at most maxSignatureSize features (otherwise a signature would exceed it).
 * The numbers of models and configurations per level and task are stated, and checked, in grid.spec.ts.
 */
export interface GridLevel {
  ses: { maxK: number; alpha: number }[];
  /** SES settings instead of `ses` for data with more than WIDE_FEATURES features */
  sesWide?: { maxK: number; alpha: number }[];
  lassoC: number[];
  /** LASSO settings instead of `lassoC` for data with at most NARROW_FEATURES features */
  lassoCNarrow?: number[];
}

export const GRID: Record<Thoroughness, GridLevel> = {
  preliminary: {
    ses: [{ maxK: 2, alpha: 0.05 }],
    lassoC: [1],
  },
  typical: {
    ses: [
      { maxK: 2, alpha: 0.05 },
      { maxK: 2, alpha: 0.1 },
      { maxK: 3, alpha: 0.05 },
    ],
    sesWide: [
      { maxK: 2, alpha: 0.01 },
      { maxK: 2, alpha: 0.05 },
      { maxK: 3, alpha: 0.01 },
    ],
    lassoC: [1.25, 1.5, 2],
    lassoCNarrow: [1, 1.25, 1.5, 2],
  },
  extensive: {
    ses: cross([2, 3], [0.01, 0.05, 0.1]).map(([maxK, alpha]) => ({ maxK, alpha })),
    lassoC: [0.25, 0.5, 1, 1.5, 2],
  },
};

export interface Configuration {
  index: number;
  selector: SelectorSpec;
  model: ModelSpec;
  interpretable: boolean;
}

/** Above this many features, typical thoroughness uses its stricter SES settings (`sesWide`). */
export const WIDE_FEATURES = 100;

/** At most this many features, typical thoroughness also tries LASSO with BIC's own penalty (`lassoCNarrow`). */
export const NARROW_FEATURES = 10;

export { MAX_KERNEL_SAMPLES } from './models/svm';

/** The models of a level for a task: every kind's (models/index.ts, MODEL_KINDS), in the kinds' order. */
function modelsFor(level: Thoroughness, task: Task, onlyInterpretable: boolean, sampleCount: number): ModelSpec[] {
  const models = MODEL_KINDS.flatMap((kind): ModelSpec[] => (kind.tasks.includes(task) ? kind.grid(level, task, sampleCount) : []));
  return models.filter((m) => supports(m, task) && (!onlyInterpretable || isInterpretable(m)));
}

/**
 * The selectors of a level for a dataset with `featureCount` features: SES settings (sesWide above WIDE_FEATURES),
 * LASSO settings (lassoCNarrow up to NARROW_FEATURES), then "all".
 */
export function selectorsFor(level: GridLevel, params: AnalysisParameters, featureCount: number): SelectorSpec[] {
  const out: SelectorSpec[] = [
    ...((featureCount > WIDE_FEATURES && level.sesWide) || level.ses).map(({ maxK, alpha }): SelectorSpec => ({
      kind: 'ses',
      maxK,
      alpha,
    })),
    ...((featureCount <= NARROW_FEATURES && level.lassoCNarrow) || level.lassoC).map((c): SelectorSpec => ({ kind: 'lasso', c })),
  ];
  if (params.featureSelection === FeatureSelection.MostRelevantOrAll && featureCount <= params.maxSignatureSize) out.push({ kind: 'all' });
  return out;
}

/**
 * Every configuration of an analysis, in a fixed order (the index is part of every task's random seed).
 * `sampleCount` above MAX_KERNEL_SAMPLES leaves out RBF SVMs and SVRs (models/svm.ts).
 */
export function buildGrid(params: AnalysisParameters, task: Task, featureCount: number, sampleCount = 0): Configuration[] {
  const models = modelsFor(params.thoroughness, task, params.modelsConsidered === ModelsConsidered.Interpretable, sampleCount);
  const configs: Configuration[] = [];
  for (const selector of selectorsFor(GRID[params.thoroughness], params, featureCount))
    for (const model of models) configs.push({ index: configs.length, selector, model, interpretable: isInterpretable(model) });
  return configs;
}
