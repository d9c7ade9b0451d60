import * as fs from 'node:fs';
import * as path from 'node:path';
import { TEST_DATA as DATA, TEST_REFERENCES } from '../../test/data';
import { datasetFromCsv } from '../../bench/csv-dataset';
import { eventIndicator, type FeatureMeta } from './data';
import { logChiSquareSurvival, logFSurvival, logGammaQ, logStudentTTwoSided } from './distributions';
import { REFERENCE_TEST_SAMPLES, RememberingTest } from './independence';
import { createIndependenceTest, type IndependenceTestInput } from './independence-tests';
import type { Task } from './metrics';
import { design, type Target } from './models/common';
import { Preprocessor } from './preprocessing';
import { Rng } from './rng';
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

/** n samples of `d` standard normal columns. */
function normals(rng: Rng, n: number, d: number): number[][] {
  return Array.from({ length: n }, () => Array.from({ length: d }, () => rng.normal()));
}

/** A synthetic case with features a, b, c = copy of a, d = 2a - 3b + 1, e = noise and an outcome driven by a and b. */
function synthetic(task: Task, n = 200): IndependenceTestInput {
  const rng = new Rng(42);
  const base = normals(rng, n, 3);
  const X = design(base.map(([a, b, e]) => [a, b, a, 2 * a - 3 * b + 1, e]));
  const signal = base.map(([a, b]) => a - b);
  const noise = normals(rng, n, 1).map((r) => r[0]);
  let target: Target;
  if (task === 'regression') target = { y: Float64Array.from(signal, (s, i) => s + noise[i]) };
  else if (task === 'classification') target = { y: Float64Array.from(signal, (s, i) => (s + noise[i] > 0 ? 1 : 0)), classCount: 2 };
  else
    target = {
      y: Float64Array.from(signal, (s, i) => (Math.exp(-s) * (1 + i)) / n),
      event: Float64Array.from(signal, (_, i) => (i % 4 === 0 ? 0 : 1)),
    };
  return { X, columnFeature: Int32Array.from([0, 1, 2, 3, 4]), featureCount: 5, categorical: new Uint8Array(5), target, task };
}

describe('X a linear function of Z gives p = 1', () => {
  for (const task of ['regression', 'classification', 'survival'] as Task[]) {
    it(`${task}: an exact copy and a linear combination add nothing`, () => {
      const test = createIndependenceTest(synthetic(task));
      // the copy c of a, given a, and a given its copy
      for (const [x, z] of [
        [2, [0]],
        [0, [2]],
        [3, [0, 1]],
        [3, [1, 2, 4]],
        [1, [0, 3]],
      ] as [number, number[]][]) {
        const r = test.test(x, z);
        expect({ x, z, statistic: r.statistic, logP: r.logP }).toEqual({ x, z, statistic: 0, logP: 0 });
      }
      // while a itself is strongly associated, also given the unrelated e
      expect(test.test(0, []).logP).toBeLessThan(Math.log(1e-6));
      expect(test.test(0, [4]).logP).toBeLessThan(Math.log(1e-6));
      expect(test.test(3, [0]).logP).toBeLessThan(Math.log(1e-6));
    });
  }

  it('multinomial: a copy adds nothing', () => {
    const input = synthetic('classification');
    const y = Float64Array.from(input.target.y, (v, i) => (i % 3 === 0 ? 2 : v));
    const test = createIndependenceTest({ ...input, target: { y, classCount: 3 } });
    expect(test.test(2, [0])).toEqual({ statistic: 0, df: 2, logP: 0 });
    expect(test.test(3, [0, 1]).logP).toBe(0);
    expect(test.test(0, []).logP).toBeLessThan(Math.log(1e-4));
  });
});

describe('degenerate data still gives finite results', () => {
  it('complete separation in logistic regression: a finite statistic and a small p', () => {
    const rng = new Rng(3);
    const rows = normals(rng, 60, 2);
    const X = design(rows);
    // the first feature separates the classes perfectly
    const y = Float64Array.from(rows, ([a]) => (a > 0 ? 1 : 0));
    const test = createIndependenceTest({
      X,
      columnFeature: Int32Array.from([0, 1]),
      featureCount: 2,
      categorical: new Uint8Array(2),
      target: { y, classCount: 2 },
      task: 'classification',
    });
    for (const [x, z] of [
      [0, []],
      [0, [1]],
      [1, [0]],
    ] as [number, number[]][]) {
      const r = test.test(x, z);
      expect(Number.isFinite(r.statistic) && Number.isFinite(r.logP)).toBe(true);
      expect(r.df).toBe(1);
    }
    // all of the deviance (2 n log 2 at most) is explained by the separating feature
    const alone = test.test(0, []);
    expect(alone.statistic).toBeGreaterThan(60);
    expect(alone.logP).toBeLessThan(Math.log(1e-12));
    // given the separating feature, nothing is left to explain
    expect(test.test(1, [0]).statistic).toBeLessThan(1e-3);
  });

  it('separation in multinomial and Cox models is finite too', () => {
    const x = Array.from({ length: 30 }, (_, i) => i / 10);
    const X = design(x.map((v, i) => [v, (i * 7) % 5]));
    const base = { X, columnFeature: Int32Array.from([0, 1]), featureCount: 2, categorical: new Uint8Array(2) };
    const multinomial = createIndependenceTest({
      ...base,
      target: { y: Float64Array.from(x, (_, i) => Math.floor(i / 10)), classCount: 3 },
      task: 'classification',
    });
    const m = multinomial.test(0, [1]);
    expect(Number.isFinite(m.statistic) && m.statistic > 10 && Number.isFinite(m.logP)).toBe(true);
    expect(m.df).toBe(2);
    // the risk is monotone in x: the Cox coefficient runs to infinity
    const cox = createIndependenceTest({
      ...base,
      target: { y: Float64Array.from(x, (_, i) => 30 - i), event: new Float64Array(30).fill(1) },
      task: 'survival',
    });
    const c = cox.test(0, []);
    expect(Number.isFinite(c.statistic) && c.statistic > 10 && Number.isFinite(c.logP)).toBe(true);
  });

  it('no variation in the outcome, a single class or no event: p = 1, never NaN', () => {
    const X = design([
      [1, 2],
      [2, 1],
      [3, 5],
      [4, 3],
      [5, 4],
      [6, 0],
    ]);
    const base = { X, columnFeature: Int32Array.from([0, 1]), featureCount: 2, categorical: new Uint8Array(2) };
    const constant = new Float64Array(6).fill(1);
    const tests = [
      createIndependenceTest({ ...base, target: { y: constant }, task: 'regression' }),
      createIndependenceTest({ ...base, target: { y: new Float64Array(6), classCount: 2 }, task: 'classification' }),
      createIndependenceTest({
        ...base,
        target: { y: Float64Array.from([1, 2, 3, 4, 5, 6]), event: new Float64Array(6) },
        task: 'survival',
      }),
    ];
    for (const t of tests) for (const r of [t.test(0, []), t.test(1, [0])]) expect([r.statistic, r.logP]).toEqual([0, 0]);
  });
});

describe('never throws, never NaN', () => {
  it('on tiny and degenerate designs: constant, duplicated and dummy columns, few samples, every outcome kind', () => {
    const rng = new Rng(11);
    for (let trial = 0; trial < 60; trial++) {
      const n = 3 + rng.int(10);
      // features: 0 normal, 1 constant, 2 copy of 0, 3 categorical with 2 dummy columns, 4 normal
      const rows = Array.from({ length: n }, () => {
        const a = rng.normal();
        const level = rng.int(3);
        return [a, 1, a, level === 1 ? 1 : 0, level === 2 ? 1 : 0, rng.normal()];
      });
      const base = {
        X: design(rows),
        columnFeature: Int32Array.from([0, 1, 2, 3, 3, 4]),
        featureCount: 5,
        categorical: Uint8Array.from([0, 0, 0, 1, 0]),
      };
      const targets: [Task, Target][] = [
        ['regression', { y: Float64Array.from(rows, (r) => r[0] + rng.normal()) }],
        ['classification', { y: Float64Array.from(rows, () => rng.int(2)), classCount: 2 }],
        ['classification', { y: Float64Array.from(rows, () => rng.int(3)), classCount: 3 }],
        ['survival', { y: Float64Array.from(rows, () => 1 + rng.int(4)), event: Float64Array.from(rows, () => rng.int(2)) }],
      ];
      for (const [task, target] of targets) {
        const test = createIndependenceTest({ ...base, target, task });
        for (let x = 0; x < 5; x++) {
          const z = [0, 1, 2, 3, 4].filter((f) => f !== x && rng.next() < 0.5).slice(0, 3);
          const r = test.test(x, z);
          expect({
            task,
            x,
            z,
            r,
            ok: Number.isFinite(r.statistic) && r.statistic >= 0 && Number.isFinite(r.logP) && r.logP <= 0 && r.df >= 0,
          }).toEqual({
            task,
            x,
            z,
            r,
            ok: true,
          });
        }
      }
    }
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

describe('cache', () => {
  it('results do not depend on the order of the tests or of Z', () => {
    for (const task of ['regression', 'classification', 'survival'] as Task[]) {
      const input = synthetic(task, 80);
      const first = createIndependenceTest(input);
      const a = [first.test(4, [0, 1]), first.test(4, []), first.test(0, [4])];
      const second = createIndependenceTest(input);
      const b = [second.test(0, [4]), second.test(4, []), second.test(4, [1, 0])];
      expect(b.reverse()).toEqual(a);
    }
  });
});

describe('cost and remembered results', () => {
  it("a test's cost grows with the samples and, for a multinomial outcome, with the information's (K - 1) K / 2 blocks", () => {
    const input = synthetic('classification', 1000);
    expect(createIndependenceTest(input).cost).toBeCloseTo(1000 / REFERENCE_TEST_SAMPLES, 12);
    // ten classes: 9 x 10 / 2 = 45 blocks
    const ten = { ...input, target: { y: Float64Array.from({ length: 1000 }, (_, i) => i % 10), classCount: 10 } };
    expect(createIndependenceTest(ten).cost).toBeCloseTo((45 * 1000) / REFERENCE_TEST_SAMPLES, 12);
    expect(createIndependenceTest(synthetic('survival', 1000)).cost).toBeCloseTo(1000 / REFERENCE_TEST_SAMPLES, 12);
    // Fisher's z costs a few dot products: no cost, the budget is never divided
    expect(createIndependenceTest(synthetic('regression', 1000)).cost).toBeUndefined();
  });

  it('a remembering test answers a repeated (X, set Z) without testing again, with the same result', () => {
    const inner = createIndependenceTest(synthetic('classification'));
    let calls = 0;
    const counting = {
      description: inner.description,
      cost: inner.cost,
      test: (x: number, z: readonly number[]) => (calls++, inner.test(x, z)),
    };
    const remembering = new RememberingTest(counting);
    const first = remembering.test(4, [0, 1]);
    expect(remembering.test(4, [1, 0])).toEqual(first);
    expect(calls).toBe(1);
    expect(remembering.test(1, [0, 4])).toEqual(inner.test(1, [0, 4]));
    expect(calls).toBe(2);
    expect(remembering.cost).toBe(inner.cost);
  });

  it('a ten-class multinomial test matches a direct maximum-likelihood fit (chord steps change no result)', () => {
    // the deviance drop of adding x to z, against fits of both models by plain Newton with a fresh information per step
    const rng = new Rng(8);
    const n = 600;
    const cols = normals(rng, n, 3);
    const y = Float64Array.from(cols, ([a, b]) => {
      const s = 1.5 * a - b + rng.normal();
      return Math.max(0, Math.min(9, Math.floor(s * 2 + 5)));
    });
    const input: IndependenceTestInput = {
      X: design(cols),
      columnFeature: Int32Array.from([0, 1, 2]),
      featureCount: 3,
      categorical: new Uint8Array(3),
      target: { y, classCount: 10 },
      task: 'classification',
    };
    const r = createIndependenceTest(input).test(0, [1, 2]);
    expect(r.df).toBe(9);
    const reference =
      multinomialDeviance(
        cols.map(([, b, c]) => [b, c]),
        y,
        10,
      ) - multinomialDeviance(cols, y, 10);
    expectRelative(r.statistic, reference, 1e-6);
  });
});

/** -2 log-likelihood of a multinomial logit fitted by gradient-free-of-tricks Newton (dense, fresh information each step). */
function multinomialDeviance(rows: number[][], y: Float64Array, K: number): number {
  const n = rows.length;
  const p = rows[0].length + 1;
  const x = rows.map((r) => [1, ...r]);
  const w = K - 1;
  const beta = new Float64Array(w * p);
  const probs = (i: number): number[] => {
    const eta = Array.from({ length: w }, (_, k) => x[i].reduce((s, v, j) => s + v * beta[k * p + j], 0));
    const m = Math.max(0, ...eta);
    const e = eta.map((v) => Math.exp(v - m));
    const total = Math.exp(-m) + e.reduce((a, b) => a + b, 0);
    return e.map((v) => v / total);
  };
  const deviance = (): number => {
    let d = 0;
    for (let i = 0; i < n; i++) {
      const pr = probs(i);
      d -= Math.log(y[i] > 0 ? pr[y[i] - 1] : 1 - pr.reduce((a, b) => a + b, 0));
    }
    return 2 * d;
  };
  for (let it = 0; it < 50; it++) {
    const P = w * p;
    const g = new Float64Array(P);
    const H = Array.from({ length: P }, () => new Float64Array(P));
    for (let i = 0; i < n; i++) {
      const pr = probs(i);
      for (let k = 0; k < w; k++) {
        const r = (y[i] === k + 1 ? 1 : 0) - pr[k];
        for (let j = 0; j < p; j++) g[k * p + j] += r * x[i][j];
        for (let l = 0; l < w; l++) {
          const c = pr[k] * ((k === l ? 1 : 0) - pr[l]);
          for (let j = 0; j < p; j++) for (let m = 0; m < p; m++) H[k * p + j][l * p + m] += c * x[i][j] * x[i][m];
        }
      }
    }
    // Gaussian elimination of H step = g
    const A = H.map((row, a) => [...row, g[a]]);
    for (let c = 0; c < P; c++) {
      for (let r = c + 1; r < P; r++) {
        const f = A[r][c] / A[c][c];
        for (let k = c; k <= P; k++) A[r][k] -= f * A[c][k];
      }
    }
    const step = new Float64Array(P);
    for (let r = P - 1; r >= 0; r--) {
      let s = A[r][P];
      for (let k = r + 1; k < P; k++) s -= A[r][k] * step[k];
      step[r] = s / A[r][r];
    }
    let change = 0;
    for (let a = 0; a < P; a++) {
      beta[a] += step[a];
      change = Math.max(change, Math.abs(step[a]));
    }
    if (change < 1e-12) break;
  }
  return deviance();
}
