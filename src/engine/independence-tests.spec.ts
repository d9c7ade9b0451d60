import * as fs from 'node:fs';
import * as path from 'node:path';
import { TEST_DATA as DATA, TEST_REFERENCES } from '../../test/data';
import { datasetFromCsv } from '../../bench/csv-dataset';
import { eventIndicator, type FeatureMeta } from './data';
import { logChiSquareSurvival, logFSurvival, logGammaQ, logStudentTTwoSided } from './distributions';
import { createIndependenceTest, type IndependenceTestInput } from './independence-tests';
import type { Task } from './metrics';
import { design, type Target } from './models/common';
import { Preprocessor } from './preprocessing';
import type { EngineDataset, FeatureType } from './types';

interface ReferenceCase {
  x: string;
  given: string[];
  df: number;
  statistic: number;
  log_p: number;
}
interface ReferenceSet {
  data: string;
  outcome: string;
  n?: number;
  cases: ReferenceCase[];
}
const REFERENCES = JSON.parse(fs.readFileSync(path.join(TEST_REFERENCES, 'ci-tests.json'), 'utf8')) as Record<string, ReferenceSet>;

function load(file: string, types: Record<string, FeatureType> = {}): EngineDataset {
  return datasetFromCsv(fs.readFileSync(`${DATA}/${file}`, 'utf8'), types);
}

/** A column's values: numbers, or category codes (NaN = missing). */
function values(data: EngineDataset, name: string): Float64Array {
  const c = data.columns.find((col) => col.name === name);
  if (!c) throw new Error(`no column ${name}`);
  return 'codes' in c ? Float64Array.from(c.codes, (v) => (v < 0 ? NaN : v)) : c.values;
}

/** The rows where all the named columns have a value. */
function completeRows(data: EngineDataset, names: string[]): Int32Array {
  const cols = names.map((n) => values(data, n));
  const rows: number[] = [];
  for (let i = 0; i < data.sampleCount; i++) if (cols.every((c) => !Number.isNaN(c[i]))) rows.push(i);
  return Int32Array.from(rows);
}

/** The design as production builds it: Preprocessor.fit + transform (standardized, dummies with the mode as reference). */
function productionDesign(data: EngineDataset, names: string[], rows: Int32Array): Omit<IndependenceTestInput, 'target' | 'task'> {
  const features: FeatureMeta[] = names.map((name) => {
    const c = data.columns.find((col) => col.name === name);
    return c && 'codes' in c ? { name, kind: 'categorical', levels: c.levels } : { name, kind: 'numerical', levels: [] };
  });
  const source = (j: number): Float64Array => values(data, names[j]);
  const pre = Preprocessor.fit(source, rows, features);
  expect(pre.steps.map((s) => s.feature)).toEqual(names.map((_, j) => j));
  return {
    X: pre.transform(source, rows),
    columnFeature: pre.columnSteps(),
    featureCount: names.length,
    categorical: Uint8Array.from(features, (f) => (f.kind === 'categorical' ? 1 : 0)),
  };
}

/** The design R sees: raw numbers, a categorical feature as 0/1 dummies of every level but the first. */
function rawDesign(data: EngineDataset, names: string[], rows: Int32Array): Omit<IndependenceTestInput, 'target' | 'task'> {
  const columns: number[][] = [];
  const columnFeature: number[] = [];
  const categorical = new Uint8Array(names.length);
  names.forEach((name, j) => {
    const c = data.columns.find((col) => col.name === name);
    if (c && 'codes' in c) {
      categorical[j] = 1;
      for (let level = 1; level < c.levels.length; level++) {
        columns.push(Array.from(rows, (i) => (c.codes[i] === level ? 1 : 0)));
        columnFeature.push(j);
      }
    } else {
      const v = values(data, name);
      columns.push(Array.from(rows, (i) => v[i]));
      columnFeature.push(j);
    }
  });
  return {
    X: design(Array.from(rows, (_, r) => columns.map((col) => col[r]))),
    columnFeature: Int32Array.from(columnFeature),
    featureCount: names.length,
    categorical,
  };
}

function expectRelative(actual: number, expected: number, tolerance = 1e-6): void {
  expect(Number.isFinite(actual)).toBe(true);
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tolerance * Math.abs(expected));
}

/** Checks every reference case of a set with the given design (features named as in the reference). */
function checkReferences(set: ReferenceSet, names: string[], input: IndependenceTestInput): void {
  const test = createIndependenceTest(input);
  for (const c of set.cases) {
    const result = test.test(
      names.indexOf(c.x),
      c.given.map((g) => names.indexOf(g)),
    );
    expect({ case: `${c.x} | ${c.given.join(', ')}`, df: result.df }).toEqual({ case: `${c.x} | ${c.given.join(', ')}`, df: c.df });
    expectRelative(result.statistic, c.statistic);
    expectRelative(result.logP, c.log_p);
  }
}

describe('log tail probabilities', () => {
  it('chi-square with 2 df is exp(-x / 2), also where p underflows', () => {
    for (const x of [0.1, 1, 10, 100, 2000, 1e6]) expectRelative(logChiSquareSurvival(x, 2), -x / 2, 1e-12);
    expect(logChiSquareSurvival(0, 3)).toBe(0);
  });

  it('chi-square table values and the normal tail (1 df is |Z| > sqrt(x))', () => {
    expectRelative(logChiSquareSurvival(3.841458820694124, 1), Math.log(0.05), 1e-9);
    expectRelative(logChiSquareSurvival(6.6348966010212145, 1), Math.log(0.01), 1e-9);
    expectRelative(logChiSquareSurvival(18.307038053275146, 10), Math.log(0.05), 1e-9);
    expectRelative(logChiSquareSurvival(3.3251, 5), Math.log(0.65), 1e-4);
    // P(|Z| > 10) = 1.523970e-23
    expectRelative(logChiSquareSurvival(100, 1), Math.log(1.5239706174e-23), 1e-9);
    // far tail: log erfc(z) = -z^2 - log(z sqrt(pi)) + log(1 - 1/(2z^2) + 3/(4z^4) - 15/(8z^6)), z^2 = 1000
    const z2 = 1000;
    const asymptotic = -z2 - Math.log(Math.sqrt(z2 * Math.PI)) + Math.log(1 - 1 / (2 * z2) + 3 / (4 * z2 ** 2) - 15 / (8 * z2 ** 3));
    expectRelative(logChiSquareSurvival(2 * z2, 1), asymptotic, 1e-12);
    // the even-df closed form: Q(x; 4) = exp(-x/2) (1 + x/2)
    expectRelative(logChiSquareSurvival(3000, 4), -1500 + Math.log(1501), 1e-12);
    expectRelative(logGammaQ(3, 0.5), Math.log(Math.exp(-0.5) * (1 + 0.5 + 0.125)), 1e-12);
  });

  it('Student t: Cauchy (1 df) and 2 df in closed form, table values, far tails', () => {
    // 1 df: P(|T| > t) = (2 / pi) atan(1 / t)
    for (const t of [0.5, 1, 3, 1e10]) expectRelative(logStudentTTwoSided(t, 1), Math.log((2 / Math.PI) * Math.atan(1 / t)), 1e-12);
    // 2 df: P(|T| > t) = 1 - t / sqrt(2 + t^2) = 2 / (sqrt(2 + t^2) (sqrt(2 + t^2) + t))
    for (const t of [0.1, 2, 50, 1e20]) {
      const s = Math.sqrt(2 + t * t);
      expectRelative(logStudentTTwoSided(t, 2), Math.log(2 / (s * (s + t))), 1e-12);
    }
    // p underflows: about 1 / t^2 = 1e-400
    expectRelative(logStudentTTwoSided(1e200, 2), -400 * Math.LN10, 1e-12);
    expectRelative(logStudentTTwoSided(-2.228138851986274, 10), Math.log(0.05), 1e-9);
    expectRelative(logStudentTTwoSided(2.0, 30), Math.log(0.0546), 1e-3);
    expect(logStudentTTwoSided(0, 10)).toBe(0);
  });

  it('F: 2 numerator df in closed form, F(1, d) = t(d)^2', () => {
    // P(F(2, d) > f) = (1 + 2 f / d)^(-d / 2)
    for (const [f, d] of [
      [0.5, 10],
      [3, 7],
      [1e50, 10],
      [1e6, 400],
    ])
      expectRelative(logFSurvival(f, 2, d), (-d / 2) * Math.log1p((2 * f) / d), 1e-12);
    for (const t of [0.3, 2, 9, 40]) expectRelative(logFSurvival(t * t, 1, 25), logStudentTTwoSided(t, 25), 1e-12);
    expectRelative(logFSurvival(2.866081402, 4, 20), Math.log(0.05), 1e-8);
  });
});

describe('conditional-independence tests against R (ci-tests.json)', () => {
  it("Fisher's z on diabetes, production design", () => {
    const set = REFERENCES.fisher_diabetes;
    const data = load(set.data);
    const names = ['age', 'sex', 'bmi', 'bp', 's1', 's2', 's3', 's4', 's5', 's6'];
    const rows = completeRows(data, [...names, set.outcome]);
    expect(rows.length).toBe(442);
    const target: Target = { y: Float64Array.from(rows, (i) => values(data, set.outcome)[i]) };
    const input = { ...productionDesign(data, names, rows), target, task: 'regression' as Task };
    checkReferences(set, names, input);
    expect(createIndependenceTest(input).description).toBe("Fisher's z test of partial correlations");
    // and on the raw design
    checkReferences(set, names, { ...rawDesign(data, names, rows), target, task: 'regression' });
  });

  it('logistic regressions on breast_cancer, production and raw designs', () => {
    const set = REFERENCES.logistic_breast_cancer;
    const data = load(set.data);
    const names = ['mean_texture', 'worst_concave_points', 'worst_perimeter', 'mean_radius', 'worst_radius'];
    const rows = completeRows(data, [...names, set.outcome]);
    const target: Target = { y: Float64Array.from(rows, (i) => values(data, set.outcome)[i]), classCount: 2 };
    const input = { ...productionDesign(data, names, rows), target, task: 'classification' as Task };
    checkReferences(set, names, input);
    expect(createIndependenceTest(input).description).toBe('likelihood-ratio test of logistic regressions');
    checkReferences(set, names, { ...rawDesign(data, names, rows), target, task: 'classification' });
  });

  it('multinomial logistic regressions on iris', () => {
    const set = REFERENCES.multinomial_iris;
    const data = load(set.data);
    const names = ['sepal_length_cm', 'sepal_width_cm', 'petal_length_cm', 'petal_width_cm'];
    const rows = completeRows(data, [...names, set.outcome]);
    const target: Target = { y: Float64Array.from(rows, (i) => values(data, set.outcome)[i]), classCount: 3 };
    // Given sepal length, sepal width separates setosa from versicolor completely: that likelihood has no maximum
    // (the coefficients run to infinity while the deviance falls towards its infimum), so nnet::multinom's BFGS
    // stopped at a deviance 0.0123 above it, and R's statistic is 0.017% below the supremum that Newton's method
    // reaches. That case is checked as a bound; the univariate case is exact.
    const [exact, separated] = set.cases;
    expect(separated.given).toEqual(['sepal_length_cm']);
    for (const build of [productionDesign, rawDesign]) {
      const input = { ...build(data, names, rows), target, task: 'classification' as Task };
      checkReferences({ ...set, cases: [exact] }, names, input);
      const r = createIndependenceTest(input).test(1, [0]);
      expect(r.df).toBe(separated.df);
      expect(r.statistic).toBeGreaterThanOrEqual(separated.statistic);
      expectRelative(r.statistic, separated.statistic, 2e-4);
      expectRelative(r.logP, separated.log_p, 2e-4);
    }
    expect(createIndependenceTest({ ...productionDesign(data, names, rows), target, task: 'classification' }).description).toBe(
      'likelihood-ratio test of multinomial logistic regressions',
    );
  });

  it('Cox regressions (Efron ties) on lung, ph.ecog also as a categorical feature', () => {
    const set = REFERENCES.cox_lung;
    const numeric = load(set.data);
    const data = load(set.data, { 'ph.ecog': 'categorical' });
    const rows = completeRows(numeric, ['time', 'status', 'age', 'sex', 'ph.ecog', 'ph.karno']);
    expect(rows.length).toBe(set.n);
    const event = eventIndicator({ name: 'status', type: 'event', values: values(numeric, 'status') });
    const target: Target = {
      y: Float64Array.from(rows, (i) => values(numeric, 'time')[i]),
      event: Float64Array.from(rows, (i) => event[i]),
    };
    // ph.ecog numerical for the first three cases, ecog_f = ph.ecog as a categorical feature for the fourth
    const names = ['sex', 'age', 'ph.ecog', 'ph.karno'];
    const numericCases = { ...set, cases: set.cases.filter((c) => c.x !== 'ecog_f') };
    const categoricalCases = { ...set, cases: set.cases.filter((c) => c.x === 'ecog_f').map((c) => ({ ...c, x: 'ph.ecog' })) };
    expect(categoricalCases.cases.length).toBe(1);
    for (const build of [productionDesign, rawDesign]) {
      checkReferences(numericCases, names, { ...build(numeric, names, rows), target, task: 'survival' });
      const categorical = build(data, names, rows);
      expect(Array.from(categorical.categorical)).toEqual([0, 0, 1, 0]);
      checkReferences(categoricalCases, names, { ...categorical, target, task: 'survival' });
    }
    expect(createIndependenceTest({ ...rawDesign(numeric, names, rows), target, task: 'survival' }).description).toBe(
      'likelihood-ratio test of Cox regressions (Efron ties)',
    );
  });
});

describe('categorical features', () => {
  const data = load('iris.csv');
  const names = ['sepal_length_cm', 'sepal_width_cm', 'species'];
  const rows = completeRows(data, names);
  const y = Float64Array.from(rows, (i) => values(data, 'petal_length_cm')[i]);

  it('regression with a categorical X is the F-test of nested linear models (one-way ANOVA here)', () => {
    const input = { ...productionDesign(data, names, rows), target: { y }, task: 'regression' as Task };
    const test = createIndependenceTest(input);
    expect(test.description).toContain('F-test of nested linear models');
    // one-way ANOVA by hand
    const species = values(data, 'species');
    const sums = [0, 0, 0];
    const counts = [0, 0, 0];
    rows.forEach((i, r) => {
      sums[species[i]] += y[r];
      counts[species[i]]++;
    });
    const grand = y.reduce((a, b) => a + b) / y.length;
    let between = 0;
    let within = 0;
    rows.forEach((i, r) => {
      within += (y[r] - sums[species[i]] / counts[species[i]]) ** 2;
    });
    for (let k = 0; k < 3; k++) between += counts[k] * (sums[k] / counts[k] - grand) ** 2;
    const F = between / 2 / (within / (150 - 3));
    const r = test.test(2, []);
    expect(r.df).toBe(2);
    expectRelative(r.statistic, F, 1e-9);
    expectRelative(r.logP, logFSurvival(F, 2, 147), 1e-12);
  });

  it('a numerical X given a categorical Z: F with 1 df, the square of the t statistic of its coefficient', () => {
    const input = { ...productionDesign(data, names, rows), target: { y }, task: 'regression' as Task };
    const r = createIndependenceTest(input).test(0, [2]);
    expect(r.df).toBe(1);
    // with 1 numerator df, the F p-value equals the two-sided t p-value with the residual df (150 - 3 - 1)
    expectRelative(r.logP, logStudentTTwoSided(Math.sqrt(r.statistic), 146), 1e-10);
    // the numerical feature given only numerical features uses Fisher's z with df = n - |Z| - 3
    expect(createIndependenceTest(input).test(0, [1]).df).toBe(146);
  });

  it("a class absent from the rows doesn't change the test; 2 of 3 classes is the logistic test", () => {
    const input = productionDesign(data, names, rows);
    const two = Float64Array.from(y, (v) => (v > 4 ? 1 : 0));
    const logistic = createIndependenceTest({ ...input, target: { y: two, classCount: 2 }, task: 'classification' });
    const multinomial = createIndependenceTest({ ...input, target: { y: two, classCount: 3 }, task: 'classification' });
    expect(multinomial.description).toBe('likelihood-ratio test of multinomial logistic regressions');
    for (const [x, z] of [
      [0, []],
      [1, [0]],
      [2, [0, 1]],
    ] as [number, number[]][])
      expect(multinomial.test(x, z)).toEqual(logistic.test(x, z));
    // a categorical X with 3 levels counts 2 added columns
    expect(logistic.test(2, [0]).df).toBe(2);
  });
});
