import type { Task } from './metrics';
import { isInterpretable, ModelSpec, supports } from './models';
import type { SelectorSpec } from './selection';
import type { AnalysisParameters, Thoroughness } from './types';

/**
 * THE CONFIGURATION GRID. Everything each thoroughness level tries is in this table.
 * A configuration = preprocessing (always the same) -> feature selector -> model.
 * Configurations = selectors x models (models filtered by task and modelsConsidered).
 *
 * | level       | univariate filter sizes k (capped at maxSignatureSize and the feature count) | linear (ridge) lambdas | CART (depth x min leaf) | forests | SVM linear C | SVM RBF C x gamma factor |
 * |-------------|---------------------------------------------|--------------------|---------------|------------------------------------|-------------|--------|
 * | preliminary | 5, max                                      | 0.01, 0.1, 1       | 4 x 5         | 100 trees, mtry x1                 | 1           | 1 x 1  |
 * | typical     | 5, 10, 20, max                              | 8, 1e-4 to 3       | 4 trees       | 100 trees, mtry x0.5 / x1 / x2     | 0.1, 1      | 4 x 3  |
 * | extensive   | 1-6, 8, 10, 12, 15, 20, 25, 30, 40, 50, max | 20, 1e-5 to 30     | 5 x 5         | 500 trees, 3 mtry x 3 min leaf     | 4 values    | 8 x 6  |
 *
 * Above MAX_KERNEL_SAMPLES samples the RBF SVMs and the SVRs are left out (their solvers are quadratic in n).
 * Survival uses the ridge Cox model (linear lambdas) and the random survival forest (its own forest list).
 * `featureSelection: mostRelevantOrAll` adds "no selection" as a selector when the dataset has at most
 * maxSignatureSize features (otherwise a signature would exceed maxSignatureSize); the filter with k = all
 * features is then replaced by it. Sizes for 30 features and maxSignatureSize 25: classification preliminary 14,
 * typical 116, extensive 1272; regression 14 / 140 / 1944 (SVR: epsilons x C x gamma <= 1); survival (ridge Cox and
 * random survival forest only) 10 / 68 / 420. Small feature counts merge filter sizes: iris (4 features) typical
 * has 7 / 29 configurations (preliminary / typical), lung (7 features) 10 / 34, diabetes (10 features) 14 / 70.
 */
export interface GridLevel {
  filterSizes: (number | 'max')[];
  lambdas: number[];
  trees: { maxDepth: number; minLeaf: number }[];
  forests: { trees: number; mtryFactor: number; minLeaf: number }[];
  survivalForests: { trees: number; mtryFactor: number; minLeaf: number }[];
  svmLinearC: number[];
  svmRbf: { C: number; gammaFactor: number }[];
  svrEpsilons: number[];
}

const cross = <A, B>(as: A[], bs: B[]): [A, B][] => as.flatMap((a) => bs.map((b): [A, B] => [a, b]));

export const GRID: Record<Thoroughness, GridLevel> = {
  preliminary: {
    filterSizes: [5, 'max'],
    lambdas: [0.01, 0.1, 1],
    trees: [{ maxDepth: 4, minLeaf: 5 }],
    forests: [{ trees: 100, mtryFactor: 1, minLeaf: 1 }],
    survivalForests: [
      { trees: 100, mtryFactor: 1, minLeaf: 15 },
      { trees: 100, mtryFactor: 1, minLeaf: 30 },
    ],
    svmLinearC: [1],
    svmRbf: [{ C: 1, gammaFactor: 1 }],
    svrEpsilons: [0.1],
  },
  typical: {
    filterSizes: [5, 10, 20, 'max'],
    lambdas: [1e-4, 1e-3, 0.01, 0.03, 0.1, 0.3, 1, 3],
    trees: [
      { maxDepth: 3, minLeaf: 5 },
      { maxDepth: 5, minLeaf: 5 },
      { maxDepth: 8, minLeaf: 3 },
      { maxDepth: 5, minLeaf: 20 },
    ],
    forests: [
      { trees: 100, mtryFactor: 0.5, minLeaf: 1 },
      { trees: 100, mtryFactor: 1, minLeaf: 1 },
      { trees: 100, mtryFactor: 2, minLeaf: 1 },
    ],
    survivalForests: cross([0.5, 1, 2], [5, 15, 30]).map(([m, l]) => ({ trees: 100, mtryFactor: m, minLeaf: l })),
    svmLinearC: [0.1, 1],
    svmRbf: cross([0.3, 1, 3, 10], [0.5, 1, 2]).map(([C, g]) => ({ C, gammaFactor: g })),
    svrEpsilons: [0.1, 0.5],
  },
  extensive: {
    filterSizes: [1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 'max'],
    lambdas: [1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 2e-3, 3e-3, 6e-3, 0.01, 0.02, 0.03, 0.06, 0.1, 0.2, 0.3, 0.6, 1, 3, 10, 30],
    trees: cross([2, 3, 4, 6, 8], [1, 3, 5, 10, 20]).map(([d, l]) => ({ maxDepth: d, minLeaf: l })),
    forests: cross([0.5, 1, 2], [1, 3, 5]).map(([m, l]) => ({ trees: 500, mtryFactor: m, minLeaf: l })),
    survivalForests: cross([0.5, 1, 2], [3, 5, 10, 15, 30]).map(([m, l]) => ({ trees: 500, mtryFactor: m, minLeaf: l })),
    svmLinearC: [0.01, 0.1, 1, 10],
    svmRbf: cross([0.03, 0.1, 0.3, 1, 3, 10, 30, 100], [0.1, 0.3, 0.5, 1, 2, 4]).map(([C, g]) => ({ C, gammaFactor: g })),
    svrEpsilons: [0.05, 0.1, 0.5],
  },
};

export interface Configuration {
  index: number;
  selector: SelectorSpec;
  model: ModelSpec;
  interpretable: boolean;
}

/** Above this many samples, kernel SVMs and SVRs (quadratic in n) are left out of the grid. */
export const MAX_KERNEL_SAMPLES = 5000;

function modelsFor(level: GridLevel, task: Task, onlyInterpretable: boolean, sampleCount: number): ModelSpec[] {
  const kernels = sampleCount <= MAX_KERNEL_SAMPLES;
  const models: ModelSpec[] = level.lambdas.map((lambda) => ({ kind: 'linear', lambda }));
  if (task !== 'survival') models.push(...level.trees.map((t): ModelSpec => ({ kind: 'tree', ...t })));
  const forests = task === 'survival' ? level.survivalForests : level.forests;
  const forestLeaf = (l: number): number => (task === 'regression' ? Math.max(l, 5) : l);
  models.push(...forests.map((f): ModelSpec => ({ kind: 'forest', ...f, minLeaf: forestLeaf(f.minLeaf) })));
  if (task === 'classification') {
    models.push(...level.svmLinearC.map((C): ModelSpec => ({ kind: 'svm', kernel: 'linear', C, gammaFactor: 1, epsilon: 0 })));
    if (kernels) models.push(...level.svmRbf.map((s): ModelSpec => ({ kind: 'svm', kernel: 'rbf', C: s.C, gammaFactor: s.gammaFactor, epsilon: 0 })));
  } else if (task === 'regression' && kernels) {
    const rbf = level.svmRbf.filter((s) => s.gammaFactor <= 1);
    for (const epsilon of level.svrEpsilons) {
      models.push(...level.svmLinearC.map((C): ModelSpec => ({ kind: 'svm', kernel: 'linear', C, gammaFactor: 1, epsilon })));
      models.push(...rbf.map((s): ModelSpec => ({ kind: 'svm', kernel: 'rbf', C: s.C, gammaFactor: s.gammaFactor, epsilon })));
    }
  }
  return models.filter((m) => supports(m, task) && (!onlyInterpretable || isInterpretable(m)));
}

/** The selectors of a level for a dataset with `featureCount` features. */
export function selectorsFor(level: GridLevel, params: AnalysisParameters, featureCount: number): SelectorSpec[] {
  const cap = Math.min(params.maxSignatureSize, featureCount);
  const sizes = [...new Set(level.filterSizes.map((k) => (k === 'max' ? cap : Math.min(k, cap))))].sort((a, b) => a - b);
  const allowAll = params.featureSelection === 'mostRelevantOrAll' && featureCount <= params.maxSignatureSize;
  const out: SelectorSpec[] = sizes.filter((k) => !(allowAll && k === featureCount)).map((k) => ({ kind: 'filter', k }));
  if (allowAll) out.push({ kind: 'all' });
  return out;
}

/**
 * Every configuration of an analysis, in a fixed order (the index is part of every task's random seed).
 * `sampleCount` above MAX_KERNEL_SAMPLES leaves out RBF SVMs and SVRs.
 */
export function buildGrid(params: AnalysisParameters, task: Task, featureCount: number, sampleCount = 0): Configuration[] {
  const level = GRID[params.thoroughness];
  const models = modelsFor(level, task, params.modelsConsidered === 'interpretable', sampleCount);
  const configs: Configuration[] = [];
  for (const selector of selectorsFor(level, params, featureCount))
    for (const model of models) configs.push({ index: configs.length, selector, model, interpretable: isInterpretable(model) });
  return configs;
}
