import { Rng } from '../rng';
import { DecisionTree } from './cart';
import type { Design } from './common';
import { RandomForest } from './forest';

/** 200 rows of 4 features; the outcome depends on the first two. */
function data(): { X: Design; y: Float64Array; classes: Float64Array } {
  const rng = new Rng(5);
  const rows = 200;
  const X = new Float64Array(rows * 4);
  const y = new Float64Array(rows);
  const classes = new Float64Array(rows);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < 4; j++) X[i * 4 + j] = rng.normal();
    y[i] = X[i * 4] - 0.5 * X[i * 4 + 1] + 0.3 * rng.normal();
    classes[i] = y[i] < -0.5 ? 0 : y[i] < 0.5 ? 1 : 2;
  }
  return { X: { data: X, rows, cols: 4 }, y, classes };
}

/** The first 30 rows in blocks, column `column` set to each of `values` (by default 5, NaN among them: missing goes right). */
function blocks(X: Design, column: number, values = [-1, 0, 0.25, Number.NaN, 2]): Design {
  const m = 30;
  const out = new Float64Array(values.length * m * X.cols);
  values.forEach((v, b) => {
    for (let i = 0; i < m; i++) {
      out.set(X.data.subarray(i * X.cols, (i + 1) * X.cols), (b * m + i) * X.cols);
      out[(b * m + i) * X.cols + column] = v;
    }
  });
  return { data: out, rows: values.length * m, cols: X.cols };
}

describe('predictBlocks (Partial Dependence grids)', () => {
  const { X, y, classes } = data();
  const models = [
    ['classification forest', new RandomForest('classification', 30, 1, 1).fit(X, { y: classes, classCount: 3 }, new Rng(1))],
    ['regression forest', new RandomForest('regression', 30, 1, 1).fit(X, { y }, new Rng(2))],
    ['classification tree', new DecisionTree('classification', 6, 2).fit(X, { y: classes, classCount: 3 }, new Rng(3))],
  ] as const;
  it.each(models)('gives what predict gives, to the bit (%s)', (_name, model) => {
    for (const column of [0, 1, 3]) {
      const stacked = blocks(X, column);
      const varying = Uint8Array.from({ length: 4 }, (_, j) => (j === column ? 1 : 0));
      expect(Array.from(model.predictBlocks(stacked, 5, varying))).toEqual(Array.from(model.predict(stacked)));
    }
  });

  it.each(models.slice(0, 2))('gives what predict gives, to rounding, on an ascending grid of one column (%s)', (_name, model) => {
    for (const column of [0, 1, 3]) {
      const stacked = blocks(X, column, [-2, -0.5, 0, 0, 0.3, 1.5]);
      const varying = Uint8Array.from({ length: 4 }, (_, j) => (j === column ? 1 : 0));
      const expected = model.predict(stacked);
      const got = model.predictBlocks(stacked, 6, varying);
      expect(got).toHaveLength(expected.length);
      let worst = 0;
      for (let k = 0; k < got.length; k++) worst = Math.max(worst, Math.abs(got[k] - expected[k]));
      expect(worst).toBeLessThan(1e-12);
      // the grid changes the predictions: a wrong run of blocks would not go unseen
      expect(new Set(Array.from(expected).map((v) => v.toFixed(6))).size).toBeGreaterThan(10);
    }
  });
});
