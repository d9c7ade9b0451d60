import * as fs from 'node:fs';
import { TEST_DATA as DATA } from '../../test/data';
import { datasetFromCsv } from '../../bench/csv-dataset';
import { eventIndicator } from './data';
import { concordanceIndex } from './metrics';
import { Design, Model, modelFromJSON } from './models';
import { DecisionTree } from './models/cart';
import { design } from './models/common';
import { CoxRegression } from './models/cox';
import { RandomForest } from './models/forest';
import { RidgeRegression } from './models/linear';
import { LogisticRegression } from './models/logistic';
import { KernelRows, smo, SVM, SVR } from './models/svm';
import { Rng } from './rng';
import type { NumericColumn } from './types';

function roundTrip(model: Model, X: Design): void {
  const before = model.predict(X);
  const restored = modelFromJSON(JSON.parse(JSON.stringify(model.toJSON())) as Record<string, unknown>);
  expect(Array.from(restored.predict(X))).toEqual(Array.from(before));
}

describe('Cox regression', () => {
  const lung = datasetFromCsv(fs.readFileSync(`${DATA}/lung.csv`, 'utf8'));
  const col = (name: string): Float64Array => (lung.columns.find((c) => c.name === name) as NumericColumn).values;
  const event = eventIndicator({ name: 'status', type: 'event', values: col('status') });
  const rows: number[] = [];
  for (let i = 0; i < lung.sampleCount; i++) if (['age', 'sex', 'ph.ecog'].every((c) => !Number.isNaN(col(c)[i]))) rows.push(i);
  const X = design(rows.map((i) => [col('age')[i], col('sex')[i], col('ph.ecog')[i]]));
  const target = { y: Float64Array.from(rows, (i) => col('time')[i]), event: Float64Array.from(rows, (i) => event[i]) };

  it('matches R coxph(Surv(time, status) ~ age + sex + ph.ecog) with Efron ties on lung', () => {
    expect(rows.length).toBe(227);
    expect(event.filter((e) => e === 1).length).toBe(165);
    const m = new CoxRegression(0).fit(X, target);
    expect(Math.abs(m.coefficients[0] - 0.011067)).toBeLessThan(1e-4);
    expect(Math.abs(m.coefficients[1] - -0.552612)).toBeLessThan(1e-4);
    expect(Math.abs(m.coefficients[2] - 0.463728)).toBeLessThan(1e-4);
    expect(Math.abs(m.standardErrors[0] - 0.009267)).toBeLessThan(1e-5);
    expect(Math.abs(m.standardErrors[1] - 0.167739)).toBeLessThan(1e-5);
    expect(Math.abs(m.standardErrors[2] - 0.113577)).toBeLessThan(1e-5);
    expect(Math.abs(m.loglikNull - -744.4805)).toBeLessThan(1e-3);
    expect(Math.abs(m.loglik - -729.2301)).toBeLessThan(1e-3);
    expect(Math.abs(concordanceIndex(m.predict(X), target.y, target.event) - 0.6371)).toBeLessThan(1e-4);
    roundTrip(m, X);
  });

  it('a ridge penalty shrinks the coefficients', () => {
    const free = new CoxRegression(0).fit(X, target);
    const ridge = new CoxRegression(0.05).fit(X, target);
    expect(Math.abs(ridge.coefficients[1])).toBeLessThan(Math.abs(free.coefficients[1]));
    expect(Math.abs(ridge.coefficients[2])).toBeLessThan(Math.abs(free.coefficients[2]));
  });
});

describe('ridge linear regression', () => {
  it('recovers an exact linear relation without penalty', () => {
    const rows = Array.from({ length: 20 }, (_, i) => [i % 7, (i * i) % 5]);
    const X = design(rows);
    const y = Float64Array.from(rows, ([a, b]) => 1 + 2 * a - 3 * b);
    const m = new RidgeRegression(0).fit(X, { y });
    expect(m.intercept).toBeCloseTo(1, 6);
    expect(m.coefficients[0]).toBeCloseTo(2, 6);
    expect(m.coefficients[1]).toBeCloseTo(-3, 6);
  });

  it('matches the closed form Sxy / (Sxx + n lambda) for one predictor', () => {
    const x = [1, 2, 3, 4, 5, 6];
    const yv = [2.1, 3.9, 6.2, 7.8, 10.1, 12.2];
    const n = x.length;
    const mx = x.reduce((a, b) => a + b) / n;
    const my = yv.reduce((a, b) => a + b) / n;
    let sxy = 0;
    let sxx = 0;
    x.forEach((v, i) => {
      sxy += (v - mx) * (yv[i] - my);
      sxx += (v - mx) ** 2;
    });
    const lambda = 0.5;
    const m = new RidgeRegression(lambda).fit(design(x.map((v) => [v])), { y: Float64Array.from(yv) });
    expect(m.coefficients[0]).toBeCloseTo(sxy / (sxx + n * lambda), 10);
    expect(m.intercept).toBeCloseTo(my - mx * (sxy / (sxx + n * lambda)), 10);
    roundTrip(m, design(x.map((v) => [v])));
  });
});

describe('logistic regression', () => {
  it('binary, binary predictor: slope = log odds ratio, intercept = log odds of the reference group', () => {
    // x = 0: 3 of 10 positive; x = 1: 6 of 10 positive
    const xs: number[][] = [];
    const ys: number[] = [];
    for (let i = 0; i < 10; i++) {
      xs.push([0]);
      ys.push(i < 3 ? 1 : 0);
      xs.push([1]);
      ys.push(i < 6 ? 1 : 0);
    }
    const X = design(xs);
    const m = new LogisticRegression(0).fit(X, { y: Float64Array.from(ys), classCount: 2 });
    expect(m.intercepts()[0]).toBeCloseTo(Math.log(3 / 7), 6);
    expect(m.slopes()[0][0]).toBeCloseTo(Math.log((6 * 7) / (4 * 3)), 6);
    roundTrip(m, X);
  });

  it('multinomial, saturated model: fitted probabilities are the group proportions', () => {
    // group A: classes 0,0,1,2 ; group B: 1,1,1,2,2,0
    const groups: [number, number[]][] = [
      [0, [0, 0, 1, 2]],
      [1, [1, 1, 1, 2, 2, 0]],
    ];
    const xs: number[][] = [];
    const ys: number[] = [];
    for (const [g, cls] of groups)
      for (const c of cls) {
        xs.push([g]);
        ys.push(c);
      }
    const X = design(xs);
    const m = new LogisticRegression(0).fit(X, { y: Float64Array.from(ys), classCount: 3 });
    const p = m.predict(design([[0], [1]]));
    expect(p[0]).toBeCloseTo(2 / 4, 4);
    expect(p[1]).toBeCloseTo(1 / 4, 4);
    expect(p[2]).toBeCloseTo(1 / 4, 4);
    expect(p[3]).toBeCloseTo(1 / 6, 4);
    expect(p[4]).toBeCloseTo(3 / 6, 4);
    expect(p[5]).toBeCloseTo(2 / 6, 4);
    roundTrip(m, X);
  });
});

function iris(): { X: Design; y: Float64Array } {
  const ds = datasetFromCsv(fs.readFileSync(`${DATA}/iris.csv`, 'utf8'));
  const num = ds.columns.slice(0, 4) as NumericColumn[];
  const sp = ds.columns[4];
  if (!('codes' in sp)) throw new Error('species must be categorical');
  return { X: design(Array.from({ length: ds.sampleCount }, (_, i) => num.map((c) => c.values[i]))), y: Float64Array.from(sp.codes) };
}

function accuracy(pred: Float64Array, y: Float64Array, K: number): number {
  let ok = 0;
  for (let i = 0; i < y.length; i++) {
    let b = 0;
    for (let c = 1; c < K; c++) if (pred[i * K + c] > pred[i * K + b]) b = c;
    if (b === y[i]) ok++;
  }
  return ok / y.length;
}

describe('trees, forests and SVMs', () => {
  const { X, y } = iris();
  const target = { y, classCount: 3 };

  it('a regression tree of depth 1 splits a step function at the step, with leaf means', () => {
    const Xs = design(Array.from({ length: 10 }, (_, i) => [i]));
    const ys = Float64Array.from({ length: 10 }, (_, i) => (i < 4 ? 1 : 5));
    const t = new DecisionTree('regression', 1, 1).fit(Xs, { y: ys }, new Rng(1));
    expect(t.tree.threshold[0]).toBe(3.5);
    expect(Array.from(t.predict(design([[0], [9]])))).toEqual([1, 5]);
    roundTrip(t, Xs);
  });

  it('CART on iris: training accuracy above 0.97 at depth 4, saved tree predicts the same', () => {
    const t = new DecisionTree('classification', 4, 1).fit(X, target, new Rng(1));
    expect(accuracy(t.predict(X), y, 3)).toBeGreaterThan(0.97);
    roundTrip(t, X);
  });

  it('random forest on iris is deterministic for a seed and round-trips', () => {
    const a = new RandomForest('classification', 30, 1, 1).fit(X, target, new Rng(7));
    const b = new RandomForest('classification', 30, 1, 1).fit(X, target, new Rng(7));
    expect(Array.from(a.predict(X))).toEqual(Array.from(b.predict(X)));
    expect(accuracy(a.predict(X), y, 3)).toBeGreaterThan(0.97);
    roundTrip(a, X);
  });

  it('SVM separates separable data (linear) and fits iris (RBF, one-vs-one)', () => {
    const Xs = design([
      [0, 0],
      [1, 0],
      [0, 1],
      [3, 3],
      [4, 3],
      [3, 4],
    ]);
    const ys = Float64Array.from([0, 0, 0, 1, 1, 1]);
    const lin = new SVM('linear', 10).fit(Xs, { y: ys, classCount: 2 }, new Rng(1));
    expect(accuracy(lin.predict(Xs), ys, 2)).toBe(1);
    // support vectors (1,0), (0,1) and (3,3) are on the margins: decision values -1 and +1
    const f = lin.decisionValues(
      design([
        [1, 0],
        [0, 1],
        [3, 3],
      ]),
    );
    expect(f[0]).toBeCloseTo(-1, 2);
    expect(f[1]).toBeCloseTo(-1, 2);
    expect(f[2]).toBeCloseTo(1, 2);
    roundTrip(lin, Xs);
    const rbf = new SVM('rbf', 1, 1).fit(X, target, new Rng(1));
    expect(accuracy(rbf.predict(X), y, 3)).toBeGreaterThan(0.95);
    roundTrip(rbf, X);
    // three classes with a kernel: one machine per pair of classes (LIBSVM's one-vs-one)
    expect(rbf.scheme).toBe('ovo');
    expect(rbf.pairs).toEqual([
      [0, 1],
      [0, 2],
      [1, 2],
    ]);
    // a pipeline saved before one-vs-one (no scheme) is read as one-vs-rest: one column per machine
    const { scheme: _scheme, pairs: _pairs, ...old } = rbf.toJSON();
    expect(SVM.fromJSON(old).scheme).toBe('ovr');
    // a class absent from the training rows: its pairs always vote for the other class, and it is never predicted
    const absent = Float64Array.from(target.y, (v) => (v === 2 ? 1 : v));
    const two = new SVM('rbf', 1, 1).fit(X, { y: absent, classCount: 3 }, new Rng(1)).predict(X);
    for (let i = 0; i < X.rows; i++) expect(two[i * 3 + 2]).toBeLessThan(Math.max(two[i * 3], two[i * 3 + 1]));
  });

  it('one-vs-one pairs on rows shared by all pairs give the machines of separate two-class fits', () => {
    // a fit before, whose kernel-row storage the next fits reuse
    new SVR('rbf', 1, 0.1, 1).fit(X, { y: Float64Array.from(y, (v, i) => v + X.data[i * 4]) });
    const ovo = new SVM('rbf', 1, 1).fit(X, target, new Rng(1));
    ovo.pairs.forEach(([a, b], k) => {
      const rows = Array.from(y.keys()).filter((i) => y[i] === a || y[i] === b);
      const Xp = design(rows.map((i) => Array.from(X.data.subarray(i * 4, i * 4 + 4))));
      // class a as the positive class of a binary fit (its column 1)
      const yp = Float64Array.from(rows, (i) => (y[i] === a ? 1 : 0));
      const alone = new SVM('rbf', 1, 1).fit(Xp, { y: yp, classCount: 2 }, new Rng(1)).machines[0];
      expect(Array.from(ovo.machines[k].coef)).toEqual(Array.from(alone.coef));
      expect(Array.from(ovo.machines[k].sv)).toEqual(Array.from(alone.sv));
      expect(ovo.machines[k].rho).toBe(alone.rho);
    });
  });

  it('kernel rows computed on demand (large n) equal the precomputed matrix', () => {
    const full = new KernelRows(X, 'rbf', 0.25);
    const lazy = new KernelRows(X, 'rbf', 0.25, 0);
    for (const i of [0, 77, 149, 77]) expect(Array.from(lazy.row(i))).toEqual(Array.from(full.row(i)));
    expect(Array.from(lazy.diagonal)).toEqual(Array.from(full.diagonal));
  });

  it('SMO with shrinking reaches the solution without shrinking (SVR dual, 1,400 variables)', () => {
    const rng = new Rng(5);
    const n = 700;
    const Xs = design(Array.from({ length: n }, () => [rng.normal(), rng.normal(), rng.normal()]));
    const z = Float64Array.from({ length: n }, (_, i) => Xs.data[i * 3] - 0.5 * Xs.data[i * 3 + 1] + rng.normal());
    const K = new KernelRows(Xs, 'rbf', 1 / 3);
    const y = Int8Array.from({ length: 2 * n }, (_, t) => (t < n ? 1 : -1));
    const p = Float64Array.from({ length: 2 * n }, (_, t) => (t < n ? 0.1 - z[t] : 0.1 + z[t - n]));
    const QD = Float64Array.from({ length: 2 * n }, (_, t) => K.diagonal[t % n]);
    const decision = (r: { alpha: Float64Array; rho: number }): Float64Array =>
      Float64Array.from({ length: n }, (_, i) => {
        const Ki = K.row(i);
        let s = -r.rho;
        for (let k = 0; k < n; k++) s += (r.alpha[k] - r.alpha[k + n]) * Ki[k];
        return s;
      });
    // C = 10: about 5,500 iterations, so the active set shrinks (every 1,000) and is rebuilt before the end
    const shrunk = decision(smo(2 * n, n, (i) => K.row(i), QD, p, y, 10));
    const plain = decision(smo(2 * n, n, (i) => K.row(i), QD, p, y, 10, 1e-3, false));
    // both stop at a maximal KKT violation below 1e-3: fits agree to that order
    for (let i = 0; i < n; i++) expect(Math.abs(shrunk[i] - plain[i])).toBeLessThan(5e-3);
  });

  it('SVR fits a linear relation within epsilon', () => {
    const Xs = design(Array.from({ length: 30 }, (_, i) => [i / 10]));
    const ys = Float64Array.from({ length: 30 }, (_, i) => 2 * (i / 10) + 1);
    const m = new SVR('linear', 10, 0.01).fit(Xs, { y: ys });
    const p = m.predict(Xs);
    for (let i = 0; i < 30; i++) expect(Math.abs(p[i] - ys[i])).toBeLessThan(0.05);
    roundTrip(m, Xs);
  });

  it('random survival forest ranks risk (C-index above 0.6 on lung, in sample)', () => {
    const lung = datasetFromCsv(fs.readFileSync(`${DATA}/lung.csv`, 'utf8'));
    const cols = lung.columns as NumericColumn[];
    const ev = eventIndicator(cols[1]);
    const feats = cols.slice(2);
    const rows = Array.from({ length: lung.sampleCount }, (_, i) => i).filter((i) => feats.every((c) => !Number.isNaN(c.values[i])));
    const Xl = design(rows.map((i) => feats.map((c) => c.values[i])));
    const t = { y: Float64Array.from(rows, (i) => cols[0].values[i]), event: Float64Array.from(rows, (i) => ev[i]) };
    const f = new RandomForest('survival', 50, 1, 15).fit(Xl, t, new Rng(3));
    expect(concordanceIndex(f.predict(Xl), t.y, t.event)).toBeGreaterThan(0.6);
    roundTrip(f, Xl);
  });
});
