/**
 * Tests that stop at a bound (ConditionalIndependenceTest.test's \`below\`): the likelihood-ratio tests stop once
 * their deviance proves log p < below, RememberingTest answers from a remembered bound only what it proves, and SES
 * decides as with exact results.
 */
import { logChiSquareSurvival } from './distributions';
import type { ConditionalIndependenceTest, IndependenceTestResult } from './independence';
import { RememberingTest } from './independence';
import { createIndependenceTest, type IndependenceTestInput } from './independence-tests';
import { evaluate, type Likelihood, newton, settled } from './independence-tests/likelihood';
import type { Task } from './metrics';
import { design, type Target } from './models/common';
import { Rng } from './rng';
import type { SelectionInput } from './selection';
import { ses } from './ses';

/** 200 samples, two standard-normal features; the outcome depends on both (feature 0 the more). */
function twoFeatures(task: Task): IndependenceTestInput {
  const rng = new Rng(42);
  const n = 200;
  const rows = Array.from({ length: n }, () => [rng.normal(), rng.normal()]);
  const s = rows.map(([a, b]) => 1.2 * a - 0.8 * b + rng.normal());
  const target: Target =
    task === 'classification'
      ? { y: Float64Array.from(s, (v) => (v > 0 ? 1 : 0)), classCount: 2 }
      : { y: Float64Array.from(s, (v, i) => Math.exp(-v) * (1 + i / n)), event: Float64Array.from(s, (_, i) => (i % 4 === 0 ? 0 : 1)) };
  return { X: design(rows), columnFeature: Int32Array.from([0, 1]), featureCount: 2, categorical: new Uint8Array(2), target, task };
}

describe('likelihood-ratio tests with below', () => {
  it('with `below`, a likelihood-ratio test may stop at a bound that proves log p < below, never past the exact result', () => {
    for (const task of ['classification', 'survival'] as Task[]) {
      const input = twoFeatures(task);
      const exact = createIndependenceTest(input).test(0, [1]);
      expect(exact.bound).toBeUndefined();
      // far above the exact log p: the first step already proves it
      const bounded = createIndependenceTest(input).test(0, [1], exact.logP / 2);
      expect(bounded.bound).toBe(true);
      expect(bounded.logP).toBeLessThan(exact.logP / 2);
      expect(bounded.logP).toBeGreaterThanOrEqual(exact.logP);
      expect(bounded.statistic).toBeLessThanOrEqual(exact.statistic);
      // at or below the exact log p, nothing can be proved: the exact result
      expect(createIndependenceTest(input).test(0, [1], exact.logP - 1)).toEqual(exact);
    }
  });

  it('a remembered bound answers only the calls it proves enough for; a finer call tests again', () => {
    const inner = createIndependenceTest(twoFeatures('classification'));
    const exact = inner.test(0, [1]);
    let calls = 0;
    const remembering = new RememberingTest({
      description: inner.description,
      test: (x: number, z: readonly number[], below?: number) => (calls++, inner.test(x, z, below)),
    });
    const bounded = remembering.test(0, [1], exact.logP / 2);
    expect(bounded.bound).toBe(true);
    expect(remembering.test(0, [1], bounded.logP + 1)).toBe(bounded);
    expect(calls).toBe(1);
    expect(remembering.test(0, [1])).toEqual(exact);
    expect(calls).toBe(2);
    // the exact result answers every later call
    expect(remembering.test(0, [1], 0)).toEqual(exact);
    expect(calls).toBe(2);
  });
});

describe('ses with tests that stop at a bound', () => {
  it('decides as with exact results when every test returns the loosest bound it may', () => {
    // random log p tables (one value per (x, set Z)) with many values near alpha, so that the order of the weakest
    // associations decides what is selected; the bounding test answers log p just under `below` whenever the exact
    // one is below it
    const d = 14;
    for (let seed = 1; seed <= 40; seed++) {
      const rng = new Rng(seed, 0x5e5);
      const table = new Map<string, number>();
      const exact = (x: number, z: readonly number[]): IndependenceTestResult => {
        const key = `${x}|${[...z].sort((a, b) => a - b).join(',')}`;
        if (!table.has(key)) table.set(key, rng.next() < 0.15 ? -0.5 * rng.next() : -3.1 - 0.8 * rng.next() - (x < 4 ? 5 : 0));
        const logP = table.get(key) as number;
        return { logP, statistic: -logP, df: 1 };
      };
      let bounds = 0;
      const bounding: ConditionalIndependenceTest = {
        description: 'bounding table',
        test: (x, z, below = -Infinity) => {
          const r = exact(x, z);
          if (!(r.logP < below)) return r;
          bounds++;
          const logP = Math.max(r.logP, below - 1e-9);
          return { logP, statistic: -logP, df: 1, bound: true };
        },
      };
      for (const [maxK, alpha] of [
        [2, 0.05],
        [3, 0.1],
      ]) {
        const options = { maxK, alpha, maxSize: 8, testBudget: 10_000 };
        expect(ses(bounding, d, options)).toEqual(ses({ description: 'table', test: exact }, d, options));
      }
      expect(bounds).toBeGreaterThan(0);
    }
  });

  it('gives the same result as with exact tests (and some tests do stop early)', () => {
    // 3 classes driven by x0 .. x7 with falling effects, each of x8 .. x15 a noisy copy of one of them: many
    // associations near alpha, whose order decides what SES selects
    const n = 300;
    const d = 16;
    const rng = new Rng(77);
    const data = new Float64Array(n * d);
    const y = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let s = rng.normal();
      for (let j = 0; j < 8; j++) {
        data[i * d + j] = rng.normal();
        s += data[i * d + j] * 0.6 ** j;
        data[i * d + 8 + j] = data[i * d + j] + rng.normal();
      }
      y[i] = s < -0.7 ? 0 : s < 0.7 ? 1 : 2;
    }
    const input: SelectionInput = {
      X: { data, rows: n, cols: d },
      columnFeature: Int32Array.from({ length: d }, (_, j) => j),
      featureCount: d,
      categorical: new Uint8Array(d),
      target: { y, classCount: 3 },
      task: 'classification',
      maxSize: 10,
      signatureLimit: 1,
    };
    const bounded = createIndependenceTest(input);
    const exact = createIndependenceTest(input);
    let bounds = 0;
    const counting: ConditionalIndependenceTest = {
      description: bounded.description,
      test: (x, z, below) => {
        const r = bounded.test(x, z, below);
        if (r.bound) bounds++;
        return r;
      },
    };
    const exactOnly: ConditionalIndependenceTest = { description: exact.description, test: (x, z) => exact.test(x, z) };
    for (const [maxK, alpha] of [
      [2, 0.05],
      [3, 0.1],
      [1, 0.01],
    ]) {
      const options = { maxK, alpha, maxSize: 10, testBudget: 10_000 };
      expect(ses(counting, d, options)).toEqual(ses(exactOnly, d, options));
    }
    expect(bounds).toBeGreaterThan(0);
  });
});

describe('fits on separable classes', () => {
  /** 6 classes that feature 0 separates completely (intervals of it), and a noise feature 1. */
  function separable(): IndependenceTestInput {
    const rng = new Rng(5);
    const n = 240;
    const rows = Array.from({ length: n }, () => [rng.normal(), rng.normal()]);
    const y = Float64Array.from(rows, ([a]) => Math.min(5, Math.max(0, Math.floor(a * 2 + 3))));
    return {
      X: design(rows),
      columnFeature: Int32Array.from([0, 1]),
      featureCount: 2,
      categorical: new Uint8Array(2),
      target: { y, classCount: 6 },
      task: 'classification',
    };
  }

  it('a null fit stops once no test against it can find anything: p = 1 within 1e-9, no full fit', () => {
    const test = createIndependenceTest(separable());
    // feature 0 separates the classes: the null's deviance falls towards 0, where a statistic of at most that
    // deviance on 5 degrees of freedom leaves log p within 1e-9 of 0
    expect(test.test(0, []).logP).toBeLessThan(-100);
    expect(test.test(1, [0])).toEqual({ statistic: 0, df: 5, logP: 0 });
  });

  it('a null fit from the fit of a set one feature apart is not left at that start on separable classes', () => {
    // 6 classes from two features (x0 > 0, three bands of x1), x2 a near copy of x0, x3 noise: the separated fit of
    // {x0, x1} projected on {x2, x1} saturates the probabilities, and Newton's method could not take a step from there
    // (the null stayed at that start's deviance, and x3's test reported statistic 0)
    const rng = new Rng(4);
    const rows = Array.from({ length: 240 }, () => {
      const [a, b] = [rng.normal(), rng.normal()];
      return [a, b, a + 0.05 * rng.normal(), b + 0.05 * rng.normal()];
    });
    const y = Float64Array.from(rows, ([a, b]) => (a > 0 ? 3 : 0) + (b > 0.5 ? 2 : b > -0.5 ? 1 : 0));
    const input: IndependenceTestInput = {
      X: design(rows),
      columnFeature: Int32Array.from([0, 1, 2, 3]),
      featureCount: 4,
      categorical: new Uint8Array(4),
      target: { y, classCount: 6 },
      task: 'classification',
    };
    const test = createIndependenceTest(input);
    test.test(3, [0, 1]);
    // the null's deviance is 7.3 (from the intercept too) and the full fit's falls towards 0: a statistic near 7.3
    // (the full fit stops at Newton's step cap, so its exact value depends on the way there)
    expect(test.test(3, [2, 1]).statistic).toBeGreaterThan(5);
    expect(createIndependenceTest(input).test(3, [2, 1]).statistic).toBeGreaterThan(5);
  });

  it('settled: every test with at least df degrees of freedom against such a deviance has log p within 1e-9 of 0', () => {
    expect(settled(0.02, 9)).toBe(true);
    expect(logChiSquareSurvival(0.02, 9)).toBeGreaterThan(-1e-9);
    expect(settled(0.2, 9)).toBe(false);
    expect(logChiSquareSurvival(0.2, 9)).toBeLessThan(-1e-9);
    // on one degree of freedom (two classes, Cox) the chi-square density is unbounded at 0: only a deviance near
    // 1e-18 is settled, so binary and survival fits run to convergence as before
    expect(settled(1e-12, 1)).toBe(false);
    expect(settled(0, 1)).toBe(true);
  });
});

describe("Newton's method along whole steps (expand)", () => {
  /** Binary logistic likelihood on one column x with y = (x > 0): completely separated, the optimum at infinity. */
  function separated(): { likelihood: Likelihood; columns: Float64Array[]; informations: () => number } {
    const x = Float64Array.from({ length: 50 }, (_, i) => (i - 24.5) / 10);
    let informations = 0;
    const likelihood: Likelihood = {
      width: 1,
      stateLength: x.length,
      deviance: (eta, mu) => {
        let d = 0;
        eta.forEach((v, i) => {
          const s = x[i] > 0 ? v : -v;
          d += Math.log1p(Math.exp(-s));
          mu[i] = 1 / (1 + Math.exp(-v));
        });
        return 2 * d;
      },
      derivatives: (columns, mu, score, information) => {
        score[0] = columns[0].reduce((s, c, i) => s + c * ((x[i] > 0 ? 1 : 0) - mu[i]), 0);
        if (information) {
          informations++;
          information[0] = columns[0].reduce((s, c, i) => s + c * c * mu[i] * (1 - mu[i]), 0);
        }
      },
    };
    return { likelihood, columns: [x], informations: () => informations };
  }

  it('reaches a deviance at which the fit is settled in fewer informations, each step as far as the deviance falls', () => {
    const settledAt = (expand: boolean): { deviance: number; informations: number } => {
      const { likelihood, columns, informations } = separated();
      const start = evaluate(likelihood, new Float64Array(1), new Float64Array(50));
      const fit = newton(likelihood, columns, start, { exact: true, expand, enough: (d) => d < 1e-3 });
      return { deviance: fit.deviance, informations: informations() };
    };
    const plain = settledAt(false);
    const expanded = settledAt(true);
    expect(plain.deviance).toBeLessThan(1e-3);
    expect(expanded.deviance).toBeLessThan(1e-3);
    expect(expanded.informations).toBeLessThan(plain.informations / 2);
  });
});
