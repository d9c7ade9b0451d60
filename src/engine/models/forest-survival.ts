import type { TreeArrays } from './cart';
import type { Design, SurvivalCurve, Target } from './common';
import { firstAtOrAfter } from './survival-tree';

/**
 * A random survival forest's survival curves (Ishwaran et al. 2008, as scikit-survival computes them): each leaf keeps
 * the Nelson-Aalen cumulative hazard of the rows its tree was grown on, the forest's hazard H(t) is the mean over its
 * trees of the hazard of the leaf a sample falls in, and its survival S(t) = exp(-H(t)). The leaves' hazards are kept
 * as steps on one grid of times shared by the forest, at most SURVIVAL_GRID_MAX long.
 */

/**
 * At most this many times on the grid of a random survival forest's hazard curves: beyond it, the grid keeps evenly
 * ranked event times (the last among them), so that a saved forest stays small however many distinct times the data has.
 */
export const SURVIVAL_GRID_MAX = 200;

/**
 * The times of a forest's hazard curves: the distinct training event times, or SURVIVAL_GRID_MAX of them at evenly
 * spaced ranks, the last always included (a step of the hazard at an event time between two grid times is then taken
 * at the next grid time).
 */
export function survivalGrid(eventTimes: Float64Array, max = SURVIVAL_GRID_MAX): Float64Array {
  const e = eventTimes.length;
  if (e <= max) return Float64Array.from(eventTimes);
  return Float64Array.from({ length: max }, (_, k) => eventTimes[Math.ceil(((k + 1) * e) / max) - 1]);
}

/**
 * The Nelson-Aalen cumulative hazard of each leaf of a tree, as steps on a grid of times: for node k, entries
 * `start[k] .. start[k + 1])`, one per distinct time of the leaf's rows with an event, ascending, each at grid position
 * `index` with its `deaths` among the rows still `atRisk` (the hazard rises by deaths / atRisk there). Whole numbers:
 * exact, and about a third of the size of the steps written as decimals. Nodes that are not leaves, and leaves without
 * an event, have none.
 */
export interface LeafHazards {
  start: Int32Array;
  index: Int32Array;
  deaths: Int32Array;
  atRisk: Int32Array;
}

/** The node of `tree` that row i of X falls in. */
export function leafOf(tree: TreeArrays, X: Design, i: number): number {
  const d = X.cols;
  let k = 0;
  while (tree.feature[k] >= 0) k = X.data[i * d + tree.feature[k]] <= tree.threshold[k] ? tree.left[k] : tree.right[k];
  return k;
}

/**
 * Each leaf's Nelson-Aalen cumulative hazard from the rows the tree was grown on (`rows`, sorted by time; a row drawn
 * twice counts twice, as in leafMortality): at each distinct time t of a leaf with d events among the Y rows still at
 * risk (time >= t), the hazard rises by d / Y, at the first grid time at or after t (t itself unless the grid is cut).
 */
export function leafHazards(tree: TreeArrays, X: Design, target: Target, rows: Int32Array, grid: Float64Array): LeafHazards {
  const nodes = tree.feature.length;
  const { y } = target;
  const ev = target.event as Float64Array;
  // the rows of each leaf, in time order (a counting sort by leaf keeps the order within one)
  const leaf = Int32Array.from(rows, (r) => leafOf(tree, X, r));
  const first = new Int32Array(nodes + 1);
  for (const k of leaf) first[k + 1]++;
  for (let k = 0; k < nodes; k++) first[k + 1] += first[k];
  const fill = first.slice(0, nodes);
  const byLeaf = new Int32Array(rows.length);
  rows.forEach((r, m) => (byLeaf[fill[leaf[m]]++] = r));

  const start = new Int32Array(nodes + 1);
  const index: number[] = [];
  const deathsAt: number[] = [];
  const atRiskAt: number[] = [];
  for (let k = 0; k < nodes; k++) {
    start[k] = index.length;
    const hi = first[k + 1];
    let atRisk = hi - first[k];
    for (let m = first[k]; m < hi;) {
      const t = y[byLeaf[m]];
      let deaths = 0;
      let j = m;
      for (; j < hi && y[byLeaf[j]] === t; j++) if (ev[byLeaf[j]]) deaths++;
      if (deaths > 0) {
        index.push(firstAtOrAfter(grid, t));
        deathsAt.push(deaths);
        atRiskAt.push(atRisk);
      }
      atRisk -= j - m;
      m = j;
    }
  }
  start[nodes] = index.length;
  return { start, index: Int32Array.from(index), deaths: Int32Array.from(deathsAt), atRisk: Int32Array.from(atRiskAt) };
}

/** What a random survival forest keeps for its survival curves (none for forests saved before they did). */
export interface ForestSurvival {
  grid: Float64Array;
  /** per tree, in the forest's order */
  hazards: LeafHazards[];
  /** the quartiles of the training times: the default times of survival predictions */
  timeQuartiles: number[];
}

/**
 * Each row's survival S(t) = exp(-H(t)) at `times` (H: the mean over the trees of their leaf's hazard, 0 before the
 * first grid time), and its median survival time: the first grid time at which S falls to 0.5 or below.
 */
export function forestSurvival(trees: TreeArrays[], kept: ForestSurvival, X: Design, times: readonly number[]): SurvivalCurve[] {
  const G = kept.grid.length;
  const H = new Float64Array(G);
  // the last grid time at or before each time (-1: before the first, where H is 0)
  const at = times.map((t) => firstAtOrAfter(kept.grid, t, 'after') - 1);
  const curves: SurvivalCurve[] = [];
  for (let i = 0; i < X.rows; i++) {
    H.fill(0);
    trees.forEach((tree, t) => {
      const { start, index, deaths, atRisk } = kept.hazards[t];
      const k = leafOf(tree, X, i);
      for (let s = start[k]; s < start[k + 1]; s++) H[index[s]] += deaths[s] / atRisk[s];
    });
    let sum = 0;
    let median: number | undefined;
    for (let g = 0; g < G; g++) {
      H[g] = sum += H[g] / trees.length;
      // S <= 0.5  <=>  H >= ln 2 (a hair below it, for sums of steps that reach it exactly)
      if (median === undefined && H[g] >= Math.LN2 * (1 - 1e-12)) median = kept.grid[g];
    }
    const survival = at.map((g) => (g < 0 ? 1 : Math.exp(-H[g])));
    curves.push(median === undefined ? { survival } : { survival, median });
  }
  return curves;
}

export function leafHazardsToJSON(h: LeafHazards): Record<string, number[]> {
  return { start: Array.from(h.start), index: Array.from(h.index), deaths: Array.from(h.deaths), atRisk: Array.from(h.atRisk) };
}

export function leafHazardsFromJSON(j: Record<string, number[]>): LeafHazards {
  return {
    start: Int32Array.from(j.start),
    index: Int32Array.from(j.index),
    deaths: Int32Array.from(j.deaths),
    atRisk: Int32Array.from(j.atRisk),
  };
}
