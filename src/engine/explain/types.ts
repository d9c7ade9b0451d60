import type { Design } from '../models/common';
import type { OutputScale } from '../models/shapley-form';

/**
 * The players of the Shapley games: the features a pipeline reads. A numerical feature is one design column; a
 * categorical one is all its one-hot columns together (one player), so its contribution is that of its category.
 */
export interface Players {
  /** for each design column, its player */
  of: Int32Array;
  count: number;
}

/**
 * How the values were computed:
 * - `closedForm`: linear outputs, w_j (x_j - background mean of column j) summed over a player's columns;
 * - `exactTree`: interventional TreeSHAP (every tree, every background row, exactly);
 * - `exactKernel`: RBF kernel machines, exactly through the product form of the kernel (see rbf.ts);
 * - `enumeration`: every coalition of players evaluated against every background row;
 * - `sampling`: permutations sampled in antithetic pairs, with each value's standard error.
 */
export type ShapleyMethod = 'closedForm' | 'exactTree' | 'exactKernel' | 'enumeration' | 'sampling';

/**
 * Interventional Shapley values of some rows (Janzing et al. 2020; Lundberg et al. 2020): the value of a coalition S of
 * players for row x is the mean, over the background rows b, of the output at x on S's columns and b elsewhere. The
 * base value is the mean output over the background (the empty coalition); base + the values of a row's players =
 * its output (the full coalition), exactly (to rounding) for every method, sampling included.
 */
export interface ShapleyValues {
  scale: OutputScale;
  method: ShapleyMethod;
  heads: number;
  players: number;
  /** per head: the mean output over the background */
  base: Float64Array;
  /** rows x heads x players */
  values: Float64Array;
  /** rows x heads: the output explained, as the model computes it */
  output: Float64Array;
  /** sampling only: the standard error of each value (rows x heads x players) */
  standardErrors?: Float64Array;
}

/** What each method computes: base values, the values, and the output they add up to. */
export type ExplainedRows = Pick<ShapleyValues, 'base' | 'values' | 'output'>;

/** Options of the computation. */
export interface ShapleyOptions {
  /** the random stream of sampling (a fixed one by default, so that the same rows get the same values) */
  seed?: number;
  /**
   * Enumeration evaluates the output at 2^players x background rows per row explained: it is used up to this many
   * players (default ENUMERATION_MAX_PLAYERS), sampling beyond.
   */
  maxEnumeratedPlayers?: number;
}

/** A design matrix with one row per explained row, and the background rows. */
export interface ShapleyInput {
  X: Design;
  background: Design;
  players: Players;
}
