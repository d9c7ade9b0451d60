import * as fs from 'node:fs';
import * as path from 'node:path';
import { Rng } from '../rng';
import { DecisionTree } from './cart';
import { Design, Target } from './common';
import { RandomForest } from './forest';

// Predictions saved from the tree code before the survival forest's rules moved out of cart.ts and the two
// node growers became one (fixtures/tree-predictions.json). Any change to what a tree or forest learns from
// the same data and seed shows here as a difference, down to the last bit.
const FIXTURE = path.join(__dirname, 'fixtures', 'tree-predictions.json');

/** A design of `rows` x 4 with ties (column 2 takes 5 values) and a constant-free noise column, from `seed`. */
function data(
  rows: number,
  seed: number,
): { X: Design; classes: Float64Array; value: Float64Array; time: Float64Array; event: Float64Array } {
  const rng = new Rng(seed);
  const X = new Float64Array(rows * 4);
  const classes = new Float64Array(rows);
  const value = new Float64Array(rows);
  const time = new Float64Array(rows);
  const event = new Float64Array(rows);
  for (let i = 0; i < rows; i++) {
    const a = rng.next() * 10;
    const b = rng.next() * 2 - 1;
    const c = Math.floor(rng.next() * 5);
    const noise = rng.next();
    X.set([a, b, c, noise], i * 4);
    classes[i] = a + 3 * b + noise > 6 ? 2 : c >= 2 ? 1 : 0;
    value[i] = 0.5 * a - 2 * b + c + noise;
    // times rounded to whole days so several samples share a time
    time[i] = Math.round(50 + 40 * Math.exp(-0.2 * a + b) * (0.5 + noise));
    event[i] = rng.next() < 0.7 ? 1 : 0;
  }
  return { X: { data: X, rows, cols: 4 }, classes, value, time, event };
}

/** Every model's predictions on held-out rows, fitted on training rows with fixed seeds. */
function predictions(): Record<string, number[]> {
  const train = data(80, 11);
  const test = data(25, 12);
  const classTarget: Target = { y: train.classes, classCount: 3 };
  const valueTarget: Target = { y: train.value };
  const survivalTarget: Target = { y: train.time, event: train.event };
  const out: Record<string, number[]> = {};
  out.treeClassification = Array.from(new DecisionTree('classification', 4, 3).fit(train.X, classTarget, new Rng(1)).predict(test.X));
  out.treeRegression = Array.from(new DecisionTree('regression', 5, 2).fit(train.X, valueTarget, new Rng(2)).predict(test.X));
  out.forestClassification = Array.from(new RandomForest('classification', 15, 1, 1).fit(train.X, classTarget, new Rng(3)).predict(test.X));
  out.forestRegression = Array.from(new RandomForest('regression', 15, 1, 3).fit(train.X, valueTarget, new Rng(4)).predict(test.X));
  out.survivalForest = Array.from(new RandomForest('survival', 15, 1, 3).fit(train.X, survivalTarget, new Rng(5)).predict(test.X));
  return out;
}

describe('trees and forests predict exactly as the saved reference', () => {
  const saved = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as Record<string, number[]>;
  const now = predictions();

  it.each(['treeClassification', 'treeRegression', 'forestClassification', 'forestRegression', 'survivalForest'])('%s', (name) => {
    expect(saved[name].length).toBeGreaterThanOrEqual(25);
    expect(now[name]).toEqual(saved[name]);
  });

  it('the reference is not degenerate: predictions vary across rows', () => {
    for (const values of Object.values(saved)) expect(new Set(values).size).toBeGreaterThan(3);
  });
});
