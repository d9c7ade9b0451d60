import { REFERENCE_TEST_SAMPLES, RememberingTest } from './independence';
import { createIndependenceTest, type IndependenceTestInput } from './independence-tests';
import type { Task } from './metrics';
import { design, type Target } from './models/common';
import { Rng } from './rng';

/** Properties of the conditional-independence tests on synthetic data (independence-tests.spec.ts: against R). */

function expectRelative(actual: number, expected: number, tolerance = 1e-6): void {
  expect(Number.isFinite(actual)).toBe(true);
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tolerance * Math.abs(expected));
}

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
