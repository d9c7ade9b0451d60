import type { Design } from '../models/common';
import { DecisionTree } from '../models/cart';
import { RandomForest } from '../models/forest';
import { Rng } from '../rng';
import { shapleyValues } from './shapley';
import { MASK_PLAYERS } from './tree-masks';
import { treeShapley } from './trees';
import type { Players } from './types';

/**
 * Rows of `players` players, the last one categorical over three design columns (one player), values on a coarse grid
 * so that background rows tie with the explained ones at many splits.
 */
function design(n: number, players: number, rng: Rng): { X: Design; of: Int32Array } {
  const cols = players + 2;
  const data = new Float64Array(n * cols);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < players - 1; j++) data[i * cols + j] = Math.round(4 * rng.normal()) / 4;
    data[i * cols + players - 1 + rng.int(3)] = 1;
  }
  const of = Int32Array.from({ length: cols }, (_, c) => Math.min(c, players - 1));
  return { X: { data, rows: n, cols }, of };
}

function outcome(X: Design, classes: number): Float64Array {
  return Float64Array.from({ length: X.rows }, (_, i) => {
    const r = X.data.subarray(i * X.cols, (i + 1) * X.cols);
    const s = r[0] - 0.7 * r[1] + r[2] * r[3] + (r[X.cols - 1] === 1 ? 0.8 : 0);
    return classes > 0 ? Math.min(classes - 1, Math.max(0, Math.floor(s + classes / 2))) : s;
  });
}

describe('interventional TreeSHAP leaf by leaf (tree-masks.ts) against the walk (trees.ts)', () => {
  const rng = new Rng(5);
  const players = 12;
  const train = design(300, players, rng);
  const explained = design(40, players, rng).X;
  const background: Design = { ...train.X, data: train.X.data.slice(0, 60 * train.X.cols), rows: 60 };
  const input = { X: explained, background, players: { of: train.of, count: players } };

  it('gives the same values, base and output to 1e-12 for a 4-class forest and a regression tree', () => {
    const forest = new RandomForest('classification', 30, 0.5, 1).fit(train.X, { y: outcome(train.X, 4), classCount: 4 }, new Rng(1, 2));
    const tree = new DecisionTree('regression', 12, 2).fit(train.X, { y: outcome(train.X, 0) }, new Rng(3));
    for (const form of [forest.shapleyForm(), tree.shapleyForm()]) {
      if (form.kind !== 'trees') throw new Error('a tree form expected');
      const byMasks = treeShapley(form.trees, form.columns, input);
      const walked = treeShapley(form.trees, form.columns, input, 0);
      let largest = 0;
      for (let k = 0; k < walked.values.length; k++) {
        expect(Math.abs(byMasks.values[k] - walked.values[k])).toBeLessThan(1e-12);
        largest = Math.max(largest, Math.abs(walked.values[k]));
      }
      expect(largest).toBeGreaterThan(0.01);
      expect(Array.from(byMasks.base)).toEqual(Array.from(walked.base));
      expect(Array.from(byMasks.output)).toEqual(Array.from(walked.output));
    }
  });

  it(`walks beyond ${MASK_PLAYERS} players, still adding up to each output`, () => {
    const wide = design(200, MASK_PLAYERS + 4, new Rng(9));
    const rows = design(10, MASK_PLAYERS + 4, new Rng(10)).X;
    const forest = new RandomForest('regression', 20, 1, 1).fit(wide.X, { y: outcome(wide.X, 0) }, new Rng(4));
    const ps: Players = { of: wide.of, count: MASK_PLAYERS + 4 };
    const sv = shapleyValues(forest.shapleyForm(), {
      X: rows,
      background: { ...wide.X, rows: 50, data: wide.X.data.slice(0, 50 * wide.X.cols) },
      players: ps,
    });
    const out = forest.predict(rows);
    for (let i = 0; i < rows.rows; i++) {
      let sum = sv.base[0];
      for (let p = 0; p < ps.count; p++) sum += sv.values[i * ps.count + p];
      expect(Math.abs(sum - out[i])).toBeLessThan(1e-9);
    }
    expect(sv.method).toBe('exactTree');
  });
});
