/**
 * What the tree grower (cart.ts) asks of a split criterion: the Gini and squared-error rules live beside the grower,
 * the log-rank rule in survival-tree.ts; both import this contract from here.
 */

/** A split of a node: rows with `feature <= threshold` go left. */
export interface Split {
  feature: number;
  threshold: number;
  score: number;
}

/**
 * What a criterion decides at a node: the leaf's values and the best split. The tree grower calls it with
 * its row buffer and the node's range [lo, hi) in it (rows may repeat, as in a bootstrap), and the features
 * drawn for the node. The grower keeps every node's rows in the order it was given them (partitions are stable).
 */
export interface NodeRule {
  /** numbers per leaf */
  width: number;
  leafValue(rows: Int32Array, lo: number, hi: number, out: number[]): void;
  bestSplit(rows: Int32Array, lo: number, hi: number, features: Int32Array): Split | null;
}
