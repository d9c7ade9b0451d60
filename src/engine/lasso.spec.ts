import * as fs from 'node:fs';
import * as path from 'node:path';
import { TEST_DATA as DATA, TEST_REFERENCES } from '../../test/data';
import { datasetFromCsv } from '../../bench/csv-dataset';
import { chooseLambda, LassoFamily, LassoPath, lassoPath, LassoSelector } from './lasso';
import type { Task } from './metrics';
import type { Design, Target } from './models/common';
import { Rng } from './rng';
import type { SelectionInput } from './selection-types';
import type { EngineColumn } from './types';

interface At {
  lambda: number;
  intercept?: number;
  coefficients?: Record<string, number>;
  classes?: Record<string, { intercept: number; coefficients: Record<string, number> }>;
}
interface Reference {
  features: string[];
  lambda_max: number;
  lambda_path_first5?: number[];
  path_length: number;
  at: At[];
}
const REF = JSON.parse(fs.readFileSync(path.join(TEST_REFERENCES, 'lasso-glmnet.json'), 'utf8')) as Record<string, Reference>;

/** The named columns of a shared dataset as a design, the rows with every column present when `complete`. */
function load(
  file: string,
  features: string[],
  outcome: string,
  complete = false,
): { X: Design; y: Float64Array; column: (name: string) => EngineColumn; rows: number[] } {
  const ds = datasetFromCsv(fs.readFileSync(path.join(DATA, file), 'utf8'));
  const column = (name: string): EngineColumn => ds.columns.find((c) => c.name === name) as EngineColumn;
  const value = (c: EngineColumn, i: number): number => ('codes' in c ? c.codes[i] : c.values[i]);
  const present = (c: EngineColumn, i: number): boolean => ('codes' in c ? c.codes[i] >= 0 : !Number.isNaN(c.values[i]));
  let rows = Array.from({ length: ds.sampleCount }, (_, i) => i);
  if (complete) rows = rows.filter((i) => ds.columns.every((c) => present(c, i)));
  const p = features.length;
  const data = new Float64Array(rows.length * p);
  rows.forEach((r, i) => features.forEach((f, j) => (data[i * p + j] = value(column(f), r))));
  return { X: { data, rows: rows.length, cols: p }, y: Float64Array.from(rows, (r) => value(column(outcome), r)), column, rows };
}

/** glmnet's tolerance for the reference values: 1e-4 relative or 1e-6 absolute. */
function expectClose(actual: number, expected: number): void {
  const tolerance = Math.max(1e-6, 1e-4 * Math.abs(expected));
  if (!(Math.abs(actual - expected) <= tolerance)) throw new Error(`${actual} differs from ${expected} by more than ${tolerance}`);
}

/** The index of a listed lambda in the path (the listed lambdas are points of glmnet's path). */
function pointOf(fit: LassoPath, lambda: number): number {
  const m = fit.lambdas.findIndex((l) => Math.abs(l - lambda) <= 1e-6 * lambda);
  expect(m).toBeGreaterThanOrEqual(0);
  return m;
}

describe('lassoPath against glmnet 4.1-6 (references/lasso-glmnet.json)', () => {
  it('gaussian, diabetes: lambda_max, the first lambdas, the path length, intercepts and coefficients', () => {
    const ref = REF.gaussian_diabetes;
    const { X, y } = load('diabetes.csv', ref.features, 'progression');
    const fit = lassoPath(X, { y }, 'gaussian');
    expect(Math.abs(fit.lambdas[0] / ref.lambda_max - 1)).toBeLessThan(1e-6);
    (ref.lambda_path_first5 as number[]).forEach((l, m) => expect(Math.abs(fit.lambdas[m] / l - 1)).toBeLessThan(1e-6));
    expect(fit.lambdas.length).toBe(ref.path_length);
    for (const at of ref.at) {
      const m = pointOf(fit, at.lambda);
      expectClose(fit.intercepts[m][0], at.intercept as number);
      ref.features.forEach((f, j) => expectClose(fit.coefficients[m][j], (at.coefficients as Record<string, number>)[f]));
    }
  });

  it('binomial, breast_cancer (malignant = class 1)', () => {
    const ref = REF.binomial_breast_cancer;
    const { X, y: codes, column } = load('breast_cancer.csv', ref.features, 'diagnosis');
    // glmnet's class 1 is malignant; the dataset's own codes follow the file's order of first appearance
    const levels = (column('diagnosis') as { levels: string[] }).levels;
    const y = codes.map((c) => (levels[c] === 'malignant' ? 1 : 0));
    const fit = lassoPath(X, { y, classCount: 2 }, 'binomial');
    expect(Math.abs(fit.lambdas[0] / ref.lambda_max - 1)).toBeLessThan(1e-6);
    expect(fit.lambdas.length).toBe(ref.path_length);
    for (const at of ref.at) {
      const m = pointOf(fit, at.lambda);
      expectClose(fit.intercepts[m][0], at.intercept as number);
      ref.features.forEach((f, j) => expectClose(fit.coefficients[m][j], (at.coefficients as Record<string, number>)[f]));
    }
  });

  it('multinomial ("ungrouped"), iris: every class intercept and coefficient', () => {
    const ref = REF.multinomial_iris;
    const { X, y, column } = load('iris.csv', ref.features, 'species');
    const levels = (column('species') as { levels: string[] }).levels;
    const fit = lassoPath(X, { y, classCount: 3 }, 'multinomial');
    expect(Math.abs(fit.lambdas[0] / ref.lambda_max - 1)).toBeLessThan(1e-6);
    expect(fit.lambdas.length).toBe(ref.path_length);
    const p = ref.features.length;
    for (const at of ref.at) {
      const m = pointOf(fit, at.lambda);
      levels.forEach((level, k) => {
        const cls = (at.classes as Record<string, { intercept: number; coefficients: Record<string, number> }>)[level];
        expectClose(fit.intercepts[m][k], cls.intercept);
        ref.features.forEach((f, j) => expectClose(fit.coefficients[m][k * p + j], cls.coefficients[f]));
      });
    }
  });

  it('cox (Breslow ties), lung complete cases: lambda_max, path length 50, coefficients', () => {
    const ref = REF.cox_lung;
    const { X, y, column, rows } = load('lung.csv', ref.features, 'time', true);
    expect(rows.length).toBe(168);
    const status = column('status') as { values: Float64Array };
    const event = Float64Array.from(rows, (r) => (status.values[r] === 1 ? 1 : 0));
    const fit = lassoPath(X, { y, event }, 'cox');
    expect(Math.abs(fit.lambdas[0] / ref.lambda_max - 1)).toBeLessThan(1e-6);
    expect(fit.lambdas.length).toBe(ref.path_length);
    for (const at of ref.at) {
      const m = pointOf(fit, at.lambda);
      ref.features.forEach((f, j) => expectClose(fit.coefficients[m][j], (at.coefficients as Record<string, number>)[f]));
    }
  });

  it('df counts the non-zero coefficients and the deviance falls from the null deviance', () => {
    const ref = REF.gaussian_diabetes;
    const { X, y } = load('diabetes.csv', ref.features, 'progression');
    const fit = lassoPath(X, { y }, 'gaussian');
    fit.coefficients.forEach((c, m) => expect(fit.df[m]).toBe(c.filter((b) => b !== 0).length));
    expect(fit.deviance[0]).toBeCloseTo(fit.nullDeviance, 6);
    expect(fit.deviance[fit.deviance.length - 1]).toBeLessThan(0.6 * fit.nullDeviance);
  });
});

/** A selection input whose columns are all numeric features, one column each. */
function numericInput(X: Design, target: Target, task: Task, maxSize = 25): SelectionInput {
  return {
    X,
    columnFeature: Int32Array.from({ length: X.cols }, (_, j) => j),
    featureCount: X.cols,
    categorical: new Uint8Array(X.cols),
    signatureLimit: 1,
    target,
    task,
    maxSize,
  };
}

describe('LassoSelector', () => {
  const bc = datasetFromCsv(fs.readFileSync(path.join(DATA, 'breast_cancer.csv'), 'utf8'));
  const bcFeatures = bc.columns.filter((c) => c.name !== 'diagnosis').map((c) => c.name);
  const breast = load('breast_cancer.csv', bcFeatures, 'diagnosis');
  const db = load('diabetes.csv', REF.gaussian_diabetes.features, 'progression');

  it('names itself by c and describes the model and the criterion', () => {
    const s = new LassoSelector(1);
    expect(s.key).toBe('lasso-c1');
    expect(s.describe('classification')).toBe(
      "LASSO: L1-penalized logistic regression (multinomial for more than two classes), lambda by a BIC-type criterion (c = 1); copies among its members dropped and equivalents found with SES's tests (alpha = 0.05)",
    );
    expect(s.describe('survival')).toContain('Cox');
  });

  it('a larger c never selects more features (breast_cancer, diabetes)', () => {
    const cs = [0, 0.25, 0.5, 1, 2, 4, 8];
    for (const input of [
      numericInput(breast.X, { y: breast.y, classCount: 2 }, 'classification', 30),
      numericInput(db.X, { y: db.y }, 'regression', 30),
    ]) {
      const sizes = LassoSelector.fitMany(input, cs).map((r) => r.signatures[0].length);
      for (let i = 1; i < sizes.length; i++) expect(sizes[i]).toBeLessThanOrEqual(sizes[i - 1]);
      // the criterion does select: something, and fewer features with the largest c than with none
      expect(sizes[sizes.length - 1]).toBeGreaterThan(0);
      expect(sizes[sizes.length - 1]).toBeLessThan(sizes[0]);
    }
  });

  it('selects the non-zero features at the lambda minimising deviance + c df log N, in order of entry', () => {
    const input = numericInput(breast.X, { y: breast.y, classCount: 2 }, 'classification', 30);
    const fit = LassoSelector.path(input) as LassoPath;
    const m = chooseLambda(fit, 1, breast.X.rows);
    const nonZero = fit.coefficients[m].reduce<number[]>((a, b, j) => (b !== 0 ? [...a, j] : a), []);
    const [signature] = new LassoSelector(1).fit(input).signatures;
    expect([...signature].sort((a, b) => a - b)).toEqual(nonZero);
    const entry = (f: number): number => fit.coefficients.findIndex((c) => c[f] !== 0);
    for (let i = 1; i < signature.length; i++) expect(entry(signature[i])).toBeGreaterThanOrEqual(entry(signature[i - 1]));
    // the first to enter glmnet's path on breast_cancer is the first of the signature
    expect(signature[0]).toBe(nonZero.reduce((best, f) => (entry(f) < entry(best) ? f : best)));
  });

  it('fitMany gives what fit gives for each c, from one shared path', () => {
    const input = numericInput(db.X, { y: db.y }, 'regression');
    const many = LassoSelector.fitMany(input, [0.5, 2]);
    expect(many[0]).toEqual(new LassoSelector(0.5).fit(input));
    expect(many[1]).toEqual(new LassoSelector(2).fit(input));
    expect(LassoSelector.path(input)).toBe(LassoSelector.path(input));
  });

  it('caps the signature at maxSize by going up the path to the nearest lambda whose set fits', () => {
    const wide = LassoSelector.fitMany(numericInput(breast.X, { y: breast.y, classCount: 2 }, 'classification', 30), [0.25])[0]
      .signatures[0];
    expect(wide.length).toBeGreaterThan(4);
    const input = numericInput(breast.X, { y: breast.y, classCount: 2 }, 'classification', 4);
    const [capped] = new LassoSelector(0.25).fit(input).signatures;
    expect(capped.length).toBeLessThanOrEqual(4);
    expect(capped.length).toBeGreaterThan(0);
    // it is the set of the last path point (before the BIC choice) with at most 4 features, so one more
    // point down the path has more than 4
    const fit = LassoSelector.path(input) as LassoPath;
    const sizeAt = (m: number): number => fit.coefficients[m].filter((b) => b !== 0).length;
    const chosen = chooseLambda(fit, 0.25, breast.X.rows);
    let m = chosen;
    while (sizeAt(m) > 4) m--;
    expect(m).toBeLessThan(chosen);
    expect(sizeAt(m + 1)).toBeGreaterThan(4);
    expect([...capped].sort((a, b) => a - b)).toEqual(fit.coefficients[m].reduce<number[]>((a, b, j) => (b !== 0 ? [...a, j] : a), []));
  });

  it('treats a categorical feature as one unit: its dummy columns map to one feature, listed once', () => {
    const rng = new Rng(7);
    const n = 300;
    // feature 0: categorical with levels a, b, c (columns 0, 1 are the dummies of b and c); feature 1: numeric
    // signal; features 2..5: noise
    const cols = 7;
    const data = new Float64Array(n * cols);
    const y = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const level = i % 3;
      data[i * cols] = level === 1 ? 1 : 0;
      data[i * cols + 1] = level === 2 ? 1 : 0;
      for (let j = 2; j < cols; j++) data[i * cols + j] = rng.normal();
      y[i] = 2 * data[i * cols] - 1.5 * data[i * cols + 1] + data[i * cols + 2] + 0.5 * rng.normal();
    }
    const input: SelectionInput = {
      X: { data, rows: n, cols },
      columnFeature: Int32Array.from([0, 0, 1, 2, 3, 4, 5]),
      featureCount: 6,
      signatureLimit: 1,
      categorical: Uint8Array.from([1, 0, 0, 0, 0, 0]),
      target: { y },
      task: 'regression',
      maxSize: 25,
    };
    const [signature] = new LassoSelector(1).fit(input).signatures;
    expect(signature).toContain(0);
    expect(signature).toContain(1);
    expect(new Set(signature).size).toBe(signature.length);
    for (const f of signature) expect(f).toBeLessThan(6);
    // with room for one feature only, the categorical one (two columns) counts as one
    const [one] = new LassoSelector(1).fit({ ...input, X: { ...input.X }, maxSize: 1 }).signatures;
    expect(one).toEqual([0]);
  });

  it('selects nothing, without throwing, on degenerate folds', () => {
    const rng = new Rng(3);
    const n = 40;
    const X: Design = { data: Float64Array.from({ length: n * 3 }, () => rng.normal()), rows: n, cols: 3 };
    const fresh = (): Design => ({ ...X });
    const cases: [Target, Task][] = [
      [{ y: new Float64Array(n).fill(5) }, 'regression'],
      [{ y: new Float64Array(n).fill(1), classCount: 2 }, 'classification'],
      [{ y: new Float64Array(n).fill(2), classCount: 3 }, 'classification'],
      [{ y: Float64Array.from({ length: n }, (_, i) => i + 1), event: new Float64Array(n) }, 'survival'],
      [{ y: Float64Array.from({ length: n }, (_, i) => i + 1), event: new Float64Array(n).fill(1) }, 'survival'],
    ];
    const results = cases.map(([target, task]) => new LassoSelector(1).fit(numericInput(fresh(), target, task)));
    for (const r of results.slice(0, 4)) expect(r).toEqual({ signatures: [[]], signatureCount: 1 });
    // not degenerate: the last case fits normally (a signature of at most 3 features)
    expect(results[4].signatures[0].length).toBeLessThanOrEqual(3);
    // constant columns only, or no column, or maxSize 0
    const constant: Design = { data: new Float64Array(n * 2).fill(1), rows: n, cols: 2 };
    expect(new LassoSelector(1).fit(numericInput(constant, { y: X.data.slice(0, n) }, 'regression'))).toEqual({
      signatures: [[]],
      signatureCount: 1,
    });
    expect(
      new LassoSelector(1).fit(numericInput({ data: new Float64Array(0), rows: n, cols: 0 }, { y: X.data.slice(0, n) }, 'regression')),
    ).toEqual({ signatures: [[]], signatureCount: 1 });
    expect(new LassoSelector(1).fit(numericInput(fresh(), { y: X.data.slice(0, n) }, 'regression', 0))).toEqual({
      signatures: [[]],
      signatureCount: 1,
    });
  });

  it('fits two classes present in a fold of a three-class task as a binomial problem', () => {
    const ref = REF.multinomial_iris;
    const { X, y } = load('iris.csv', ref.features, 'species');
    // rows of versicolor (1) and virginica (2) only
    const rows = Array.from({ length: X.rows }, (_, i) => i).filter((i) => y[i] > 0);
    const sub: Design = { data: new Float64Array(rows.length * 4), rows: rows.length, cols: 4 };
    rows.forEach((r, i) => sub.data.set(X.data.subarray(r * 4, r * 4 + 4), i * 4));
    const target = { y: Float64Array.from(rows, (r) => y[r]), classCount: 3 };
    const input = numericInput(sub, target, 'classification');
    const fit = LassoSelector.path(input) as LassoPath;
    expect(fit.family satisfies LassoFamily).toBe('binomial');
    expect(new LassoSelector(1).fit(input).signatures[0].length).toBeGreaterThan(0);
  });
});
