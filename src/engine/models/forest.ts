import { Rng } from '../rng';
import { accumulateForestBlocks } from './tree-blocks';
import { accumulateTree, cartRule, Criterion, growTree, NodeLists, SharedTreeScratch, TreeArrays, treeFromJSON, treeToJSON } from './cart';
import { Design, Model, OnnxOutputs, SurvivalCurve, SurvivalCurves, Target } from './common';
import type { GraphBuilder } from '../onnx/graph';
import { forestSurvivalGraph, treesGraph } from '../onnx/model-graphs';
import { explainedClasses, ShapleyForm } from './shapley-form';
import { rankColumns } from './rank-order';
import { ForestSurvival, forestSurvival, leafHazards, leafHazardsFromJSON, leafHazardsToJSON, survivalGrid } from './forest-survival';
import { distinctEventTimes, sortByTime, timeQuartiles } from './survival-tree';
import type { Task } from '../metrics';
import { cross, defineModelKind } from './kind';

/**
 * A bootstrap sample of n rows drawn with `rng`, sorted ascending (survival: by `time`, sortByTime), with `counts` (n
 * zeros, left zeroed) as scratch: the sorted sample is each row as many times as it was drawn.
 */
function bootstrap(n: number, rng: Rng, counts: Int32Array, time?: Float64Array): Int32Array {
  const idx = new Int32Array(n);
  for (let i = 0; i < n; i++) idx[i] = rng.int(n);
  if (time) return sortByTime(idx, time);
  for (let i = 0; i < n; i++) counts[idx[i]]++;
  let at = 0;
  for (let row = 0; row < n; row++) {
    for (let c = counts[row]; c > 0; c--) idx[at++] = row;
    counts[row] = 0;
  }
  return idx;
}

export type ForestTask = 'classification' | 'regression' | 'survival';

/**
 * Random forest (Breiman): bootstrap samples, `mtry` random features per node, fully grown trees
 * down to `minLeaf`. Classification averages leaf class proportions, regression leaf means; the random
 * survival forest (Ishwaran et al. 2008) splits by the log-rank statistic over `nsplit` random thresholds
 * and predicts ensemble mortality (summed Nelson-Aalen hazard) as the risk score, and survival curves from the
 * same leaves' hazards (forest-survival.ts).
 */
export class RandomForest implements Model {
  outputWidth = 1;
  trees: TreeArrays[] = [];
  /** survival: what the survival curves need (undefined for forests saved before they were kept) */
  survivalKept?: ForestSurvival;

  constructor(
    readonly task: ForestTask,
    readonly treeCount: number,
    /** features per node as a multiple of the default (sqrt(d) for classification and survival, d/3 for regression) */
    readonly mtryFactor: number,
    readonly minLeaf: number,
  ) {}

  mtry(d: number): number {
    const base = this.task === 'regression' ? d / 3 : Math.sqrt(d);
    return Math.max(1, Math.min(d, Math.round(base * this.mtryFactor)));
  }

  fit(X: Design, target: Target, rng: Rng): this {
    const n = X.rows;
    const criterion: Criterion = this.task === 'classification' ? 'gini' : this.task === 'regression' ? 'mse' : 'logrank';
    const params = { maxDepth: 1000, minLeaf: this.minLeaf, mtry: this.mtry(X.cols), nsplit: 10 };
    const eventTimes: Float64Array | undefined =
      this.task === 'survival' ? distinctEventTimes(target.y, target.event as Float64Array) : undefined;
    const seed = Math.floor(rng.next() * 4294967296);
    const shared: SharedTreeScratch = {
      cart: criterion === 'logrank' ? undefined : cartRule(X, target, criterion, this.minLeaf, n, rankColumns(X)),
      nodes: new NodeLists(),
    };
    const counts = new Int32Array(n);
    this.trees = [];
    const grid = eventTimes && survivalGrid(eventTimes);
    this.survivalKept = grid && { grid, hazards: [], timeQuartiles: timeQuartiles(target.y) };
    for (let t = 0; t < this.treeCount; t++) {
      const treeRng = new Rng(seed, t);
      const idx = bootstrap(n, treeRng, counts, this.task === 'survival' ? target.y : undefined);
      const tree = growTree(X, target, idx, criterion, params, treeRng, eventTimes, shared);
      this.trees.push(tree);
      this.survivalKept?.hazards.push(leafHazards(tree, X, target, idx, this.survivalKept.grid));
    }
    this.outputWidth = this.trees[0]?.width ?? 1;
    return this;
  }

  /** Whether the forest predicts survival curves (a survival forest saved before they were kept does not). */
  hasSurvival(): boolean {
    return this.survivalKept !== undefined;
  }

  /** The default times of survival predictions: the quartiles of the training times. */
  get timeQuartiles(): number[] {
    return this.survivalKept?.timeQuartiles ?? [];
  }

  /** Each row's predicted survival at `times` and its median survival time (forest-survival.ts). */
  survival(X: Design, times: readonly number[]): SurvivalCurve[] {
    if (!this.survivalKept) throw new Error('this forest keeps no survival curves');
    return forestSurvival(this.trees, this.survivalKept, X, times);
  }

  predict(X: Design): Float64Array {
    const out = new Float64Array(X.rows * this.outputWidth);
    for (const t of this.trees) accumulateTree(t, X, out, 1 / this.trees.length);
    return out;
  }

  predictBlocks(X: Design, blocks: number, varying: Uint8Array): Float64Array {
    const out = new Float64Array(X.rows * this.outputWidth);
    accumulateForestBlocks(this.trees, X, blocks, varying, out, 1 / this.trees.length);
    return out;
  }

  /** The mean of the trees' leaf values: class probabilities (before calibration), the prediction, or the risk. */
  shapleyForm(): ShapleyForm {
    const scale = this.task === 'classification' ? 'probability' : this.task === 'regression' ? 'prediction' : 'risk';
    return { kind: 'trees', scale, trees: this.trees, columns: this.task === 'classification' ? explainedClasses(this.outputWidth) : [0] };
  }

  /** From the leaves' Nelson-Aalen hazards (undefined for a forest saved before it kept them, and for other tasks). */
  survivalCurves(X: Design, _risk: Float64Array, times?: readonly number[]): SurvivalCurves | undefined {
    if (!this.hasSurvival()) return undefined;
    const at = times ?? this.timeQuartiles;
    return { times: at, rows: this.survival(X, at) };
  }

  /** Its ONNX part: the mean of the trees' leaf values; a survival forest's risk and survival at the training times' quartiles. */
  onnx(g: GraphBuilder, X: string): OnnxOutputs {
    const mean = treesGraph(g, X, this.trees, this.trees.length);
    if (this.task === 'classification') return { probabilities: mean };
    if (this.task === 'regression') return { value: mean };
    const kept = this.survivalKept;
    if (!kept) return { risk: mean };
    return { risk: mean, survival: forestSurvivalGraph(g, X, this.trees, kept, kept.timeQuartiles), survivalTimes: kept.timeQuartiles };
  }

  /** A survival forest's trees carry their leaves' hazards (`hazard`), beside the grid and the default times. */
  toJSON(): Record<string, unknown> {
    const kept = this.survivalKept;
    return {
      type: 'forest',
      task: this.task,
      treeCount: this.treeCount,
      mtryFactor: this.mtryFactor,
      minLeaf: this.minLeaf,
      trees: this.trees.map((t, k) => (kept ? { ...treeToJSON(t), hazard: leafHazardsToJSON(kept.hazards[k]) } : treeToJSON(t))),
      ...(kept ? { survivalGrid: Array.from(kept.grid), timeQuartiles: kept.timeQuartiles } : {}),
    };
  }

  static fromJSON(json: Record<string, unknown>): RandomForest {
    const m = new RandomForest(json.task as ForestTask, json.treeCount as number, json.mtryFactor as number, json.minLeaf as number);
    const trees = json.trees as Record<string, unknown>[];
    m.trees = trees.map(treeFromJSON);
    m.outputWidth = m.trees[0]?.width ?? 1;
    if (json.survivalGrid) {
      m.survivalKept = {
        grid: Float64Array.from(json.survivalGrid as number[]),
        hazards: trees.map((t) => leafHazardsFromJSON(t.hazard as Record<string, number[]>)),
        timeQuartiles: json.timeQuartiles as number[],
      };
    }
    return m;
  }
}

/** Forests each thoroughness tries, and random survival forests (more leaf sizes: survival data wants larger leaves). */
const FORESTS = {
  preliminary: [{ trees: 100, mtryFactor: 1, minLeaf: 1 }],
  typical: [
    { trees: 100, mtryFactor: 0.5, minLeaf: 1 },
    { trees: 100, mtryFactor: 1, minLeaf: 1 },
    { trees: 100, mtryFactor: 2, minLeaf: 1 },
  ],
  extensive: cross([0.5, 1, 2], [1, 3, 5]).map(([mtryFactor, minLeaf]) => ({ trees: 500, mtryFactor, minLeaf })),
};
const SURVIVAL_FORESTS = {
  preliminary: [
    { trees: 100, mtryFactor: 1, minLeaf: 15 },
    { trees: 100, mtryFactor: 1, minLeaf: 30 },
  ],
  typical: cross([0.5, 1, 2], [5, 15, 30]).map(([mtryFactor, minLeaf]) => ({ trees: 100, mtryFactor, minLeaf })),
  extensive: cross([0.5, 1, 2], [3, 5, 10, 15, 30]).map(([mtryFactor, minLeaf]) => ({ trees: 500, mtryFactor, minLeaf })),
};

export type ForestSpec = { kind: 'forest'; trees: number; mtryFactor: number; minLeaf: number };

/** Random forests (classification, regression) and random survival forests. */
export const FOREST = defineModelKind({
  kind: 'forest',
  classes: { forest: RandomForest },
  interpretable: false,
  tasks: ['classification', 'regression', 'survival'],
  grid(level, task): ForestSpec[] {
    // regression leaves of at least 5 samples (as scikit-learn's and R's defaults for regression forests)
    const leaf = (l: number): number => (task === 'regression' ? Math.max(l, 5) : l);
    return (task === 'survival' ? SURVIVAL_FORESTS : FORESTS)[level].map((f) => ({ kind: 'forest', ...f, minLeaf: leaf(f.minLeaf) }));
  },
  families: { forest: 3 },
  family: () => 'forest',
  flexibility: (s: ForestSpec) => s.mtryFactor * 1000 - s.minLeaf,
  create: (s: ForestSpec, task: Task) => new RandomForest(task, s.trees, s.mtryFactor, s.minLeaf),
  describe: (s: ForestSpec, task: Task) =>
    task === 'survival'
      ? `Random survival forest (${s.trees} trees, log-rank splits, mtry = ${s.mtryFactor} x sqrt(features), at least ${s.minLeaf} samples per leaf)`
      : `Random forest (${s.trees} trees, mtry = ${s.mtryFactor} x ${task === 'classification' ? 'sqrt(features)' : 'features / 3'}, at least ${s.minLeaf} samples per leaf)`,
});
