/**
 * What the tree grower (cart.ts) asks of a split criterion: the Gini and squared-error rules live beside the grower,
 * the log-rank rule in survival-tree.ts; both import this contract from here.
 */

/** A split of a node: rows with `feature <= threshold` go left. */
export interface Split {
  feature: number;
  threshold: number;
  score: number;
  /** the feature's rank of every row, when the rule has them: the rows going left are those of rank <= `below` */
  ranks?: { rank: Int32Array; below: number };
}

/**
 * What a criterion decides at a node: the leaf's values and the best split. The tree grower calls it with
 * its row buffer and the node's range [lo, hi) in it (rows may repeat, as in a bootstrap), and the features
 * drawn for the node. The grower keeps every node's rows in the order it was given them (partitions are stable).
 */
export interface NodeRule {
  /** numbers per leaf */
  width: number;
  leafValue(rows: Int32Array, lo: number, hi: number, out: NumberList): void;
  bestSplit(rows: Int32Array, lo: number, hi: number, features: Int32Array): Split | null;
}

/** A list of numbers that grows in a Float64Array (a tree's leaf values, built node by node). */
export class NumberList {
  data = new Float64Array(256);
  length = 0;

  push(v: number): void {
    if (this.length === this.data.length) {
      const grown = new Float64Array(2 * this.length);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = v;
  }
}

/** A fitted tree in flat arrays; node 0 is the root, `feature[k] < 0` marks a leaf. */
export interface TreeArrays {
  feature: Int32Array;
  threshold: Float64Array;
  left: Int32Array;
  right: Int32Array;
  /** `width` numbers per node (class proportions, mean, or survival mortality) */
  value: Float64Array;
  width: number;
}
