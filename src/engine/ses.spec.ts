import type { ConditionalIndependenceTest, IndependenceTestResult } from './independence';
import type { Design } from './models/common';
import { Rng } from './rng';
import { SesSelector, type SelectionInput } from './selection';
import { defaultTestBudget, enumerateSignatures, MIN_TEST_BUDGET, ses, type SesResult } from './ses';

/**
 * A conditional-independence test that knows the truth: a causal graph over named nodes, one of them the outcome T.
 * Each feature is a node; two features on the same node are exact copies of each other. X is independent of T given
 * Z when Z holds X's node (X is then a function of Z) or when Z d-separates them; then p = 1 (log p = 0, statistic 0).
 * Otherwise p is tiny and the statistic is 100 / (length of the shortest path from X to T, directions ignored), so
 * nearer features are stronger. Every call is recorded.
 */
class Oracle implements ConditionalIndependenceTest {
  readonly description = 'd-separation oracle';
  readonly calls: { x: number; z: number[] }[] = [];
  private readonly parents = new Map<string, string[]>();
  private readonly children = new Map<string, string[]>();

  constructor(
    private readonly features: string[],
    edges: string[],
  ) {
    for (const e of edges) {
      const [from, to] = e.split('->');
      for (const n of [from, to]) {
        if (!this.parents.has(n)) this.parents.set(n, []);
        if (!this.children.has(n)) this.children.set(n, []);
      }
      this.parents.get(to)!.push(from);
      this.children.get(from)!.push(to);
    }
    for (const n of features) {
      if (!this.parents.has(n)) this.parents.set(n, []);
      if (!this.children.has(n)) this.children.set(n, []);
    }
  }

  test(x: number, z: readonly number[]): IndependenceTestResult {
    this.calls.push({ x, z: [...z] });
    const node = this.features[x];
    const given = new Set(z.map((f) => this.features[f]));
    if (given.has(node) || !this.dConnected(node, 'T', given)) return { statistic: 0, df: 1, logP: 0 };
    const statistic = 100 / this.distance(node, 'T');
    return { statistic, df: 1, logP: -statistic };
  }

  /** Reachability along active trails (Koller & Friedman, Algorithm 3.1). */
  private dConnected(source: string, target: string, given: Set<string>): boolean {
    const ancestors = new Set<string>();
    const stack = [...given];
    while (stack.length) {
      const n = stack.pop()!;
      if (ancestors.has(n)) continue;
      ancestors.add(n);
      stack.push(...this.parents.get(n)!);
    }
    const seen = new Set<string>();
    const queue: [string, 'up' | 'down'][] = [[source, 'up']];
    while (queue.length) {
      const [n, dir] = queue.pop()!;
      if (seen.has(n + dir)) continue;
      seen.add(n + dir);
      if (!given.has(n) && n === target) return true;
      if (dir === 'up' && !given.has(n)) {
        for (const p of this.parents.get(n)!) queue.push([p, 'up']);
        for (const c of this.children.get(n)!) queue.push([c, 'down']);
      } else if (dir === 'down') {
        if (!given.has(n)) for (const c of this.children.get(n)!) queue.push([c, 'down']);
        if (ancestors.has(n)) for (const p of this.parents.get(n)!) queue.push([p, 'up']);
      }
    }
    return false;
  }

  private distance(from: string, to: string): number {
    const dist = new Map([[from, 0]]);
    const queue = [from];
    while (queue.length) {
      const n = queue.shift()!;
      if (n === to) return dist.get(n)!;
      for (const m of [...this.parents.get(n)!, ...this.children.get(n)!]) {
        if (!dist.has(m)) {
          dist.set(m, dist.get(n)! + 1);
          queue.push(m);
        }
      }
    }
    return Infinity;
  }
}

/** A test given as a table: `logP(x, z)` and `statistic(x, z)`; for the cases a graph cannot express. */
function tableTest(logP: (x: number, z: readonly number[]) => number, statistic: (x: number) => number): ConditionalIndependenceTest {
  return { description: 'table', test: (x, z) => ({ logP: logP(x, z), statistic: statistic(x), df: 1 }) };
}

// A budget large enough never to bind, but for the tests about the budget.
const opts = { maxK: 2, alpha: 0.05, maxSize: 25, testBudget: 100_000 };

/** Every signature the classes give, checked to hold one feature of each class. */
function allSignatures(r: SesResult): number[][] {
  return enumerateSignatures(r, 1_000_000);
}

describe('ses with a causal-graph oracle', () => {
  it('puts an exact copy of a causal feature in its class, never beside it in one signature', () => {
    // 0 noise, 1 B, 2 A, 3 copy of A, 4 noise
    const oracle = new Oracle(['N1', 'B', 'A', 'A', 'N2'], ['A->T', 'B->T']);
    const r = ses(oracle, 5, opts);
    // B and A tie (both next to T): the lower index first; the copy is dropped given A and joins A's class
    expect(r.reference).toEqual([1, 2]);
    expect(r.classes).toEqual([[1], [2, 3]]);
    expect(r.signatureCount).toBe(2);
    expect(allSignatures(r)).toEqual([
      [1, 2],
      [1, 3],
    ]);
    for (const sig of allSignatures(r)) expect(sig.includes(2) && sig.includes(3)).toBe(false);
    expect(r.testsRun).toBe(oracle.calls.length);
  });

  it('never selects a feature that is independent of the outcome given another, nor puts it in a class', () => {
    // F -> M -> T: F depends on T, but not given M; M does depend on T given F, so F cannot stand in for M
    const oracle = new Oracle(['F', 'M', 'N'], ['F->M', 'M->T']);
    const r = ses(oracle, 3, opts);
    expect(r.reference).toEqual([1]);
    expect(r.classes).toEqual([[1]]);
    expect(oracle.calls).toContainEqual({ x: 0, z: [1] });
    expect(oracle.calls).toContainEqual({ x: 1, z: [0] });
  });

  it('drops the features independent of T in the screening: each is tested once, alone', () => {
    const oracle = new Oracle(['N1', 'A', 'N2', 'B', 'N3'], ['A->T', 'B->T', 'N1->N2']);
    const r = ses(oracle, 5, opts);
    expect(r.reference).toEqual([1, 3]);
    for (const noise of [0, 2, 4]) expect(oracle.calls.filter((c) => c.x === noise)).toEqual([{ x: noise, z: [] }]);
    for (const q of r.classes) for (const noise of [0, 2, 4]) expect(q).not.toContain(noise);
  });

  it('returns an empty reference (one, empty, signature) when nothing is associated with T', () => {
    const oracle = new Oracle(['N1', 'N2'], []);
    const r = ses(oracle, 2, opts);
    expect(r).toEqual({ reference: [], classes: [], signatureCount: 1, testsRun: 2 });
    expect(enumerateSignatures(r, 5)).toEqual([[]]);
  });

  it('drops a selected feature that later ones make redundant; it joins an equivalent class with its own class', () => {
    // 0 A, 1 B, 2 C, 3 A' (an exact copy of A). A is independent of T given {B, C}; B is independent of T given
    // {C, A} (so A can stand in for B there), but B depends on T given A alone; C always depends on T.
    const independent = (x: number, z: readonly number[]): boolean => {
      const has = (f: number): boolean => z.includes(f);
      if (x === 3) return has(0);
      if (x === 0) return has(3) || (has(1) && has(2));
      if (x === 1) return has(2) && (has(0) || has(3));
      return false;
    };
    const logP = (x: number, z: readonly number[]): number => (independent(x, z) ? 0 : z.length === 0 ? [-100, -90, -80, -100][x] : -50);
    const r = ses(
      tableTest(logP, (x) => (x === 0 ? 2 : 1)),
      4,
      opts,
    );
    // A enters first and A' joins its class; B, then C enter; given {B, C} A leaves S and A with its class joins Q_B
    expect(r.reference).toEqual([1, 2]);
    expect(r.classes).toEqual([[1, 0, 3], [2]]);
    expect(enumerateSignatures(r, 10)).toEqual([
      [1, 2],
      [0, 2],
      [3, 2],
    ]);
  });

  it('stops at maxSize, keeping the strongest', () => {
    const oracle = new Oracle(['A', 'B', 'C', 'D', 'E'], ['A->T', 'B->T', 'C->T', 'D->T', 'E->T']);
    expect(ses(oracle, 5, { ...opts, maxSize: 3 }).reference).toEqual([0, 1, 2]);
    expect(ses(oracle, 5, { ...opts, maxSize: 1 }).reference).toEqual([0]);
    expect(ses(oracle, 5, opts).reference).toEqual([0, 1, 2, 3, 4]);
  });

  it('still finds the equivalents of the last selected feature when maxSize stops selection', () => {
    const oracle = new Oracle(['A', 'B', 'A'], ['A->T', 'B->T']);
    const r = ses(oracle, 3, { ...opts, maxSize: 1 });
    expect(r.reference).toEqual([0]);
    expect(r.classes).toEqual([[0, 2]]);
  });

  it('stops when the test budget is spent, counting every test, with classes only of selected features', () => {
    const names = ['A', 'B', 'C', 'D', 'E', 'N1', 'N2', 'N3', 'N4', 'N5'];
    const edges = ['A->T', 'B->T', 'C->T', 'D->T', 'E->T'];
    let oracle = new Oracle(names, edges);
    // 10 screening tests, then two tests of the first pass (B and C given A): D would be the 13th
    let r = ses(oracle, 10, { ...opts, testBudget: 12 });
    expect(r.testsRun).toBe(12);
    expect(oracle.calls.length).toBe(12);
    expect(r.reference).toEqual([0]);
    expect(r.classes).toEqual([[0]]);
    // a budget of 3 x featureCount (JADBio's default) stops this selection early
    oracle = new Oracle(names, edges);
    r = ses(oracle, 10, { maxK: 2, alpha: 0.05, maxSize: 25, testBudget: 30 });
    expect(r.testsRun).toBe(30);
    expect(oracle.calls.length).toBe(30);
    expect(r.reference.length).toBeGreaterThan(1);
    expect(r.reference.length).toBeLessThan(5);
    expect(r.classes.map((q) => q[0])).toEqual(r.reference);
    // the default: 3 x featureCount with a floor, so that narrow data is selected in full
    expect(defaultTestBudget(10)).toBe(MIN_TEST_BUDGET);
    expect(defaultTestBudget(20_000)).toBe(60_000);
    // a test costing more than the reference logistic test divides it (10 classes on 1,440 samples: cost 12.96)
    expect(defaultTestBudget(64, (45 * 1440) / 5000)).toBe(771);
    expect(defaultTestBudget(64, 0.1)).toBe(MIN_TEST_BUDGET);
    oracle = new Oracle(names, edges);
    r = ses(oracle, 10, { maxK: 2, alpha: 0.05, maxSize: 25 });
    expect([...r.reference].sort()).toEqual([0, 1, 2, 3, 4]);
    // a large enough budget selects all five
    oracle = new Oracle(names, edges);
    r = ses(oracle, 10, { ...opts, testBudget: 1000 });
    expect(r.reference).toEqual([0, 1, 2, 3, 4]);
    expect(r.testsRun).toBe(oracle.calls.length);
  });

  it('runs the screening in full even when the budget is smaller, then selects the strongest feature', () => {
    const oracle = new Oracle(['N', 'B', 'A'], ['A->T', 'B->M', 'M->T']);
    const r = ses(oracle, 3, { ...opts, testBudget: 1 });
    expect(r.testsRun).toBe(3);
    expect(r.reference).toEqual([2]);
  });

  it('conditions on at most maxK features: maxK = 1 keeps a feature that maxK = 2 removes', () => {
    // X reaches T through A and through B: independent of T given {A, B}, not given either alone
    const graph = (): Oracle => new Oracle(['A', 'B', 'X'], ['X->A', 'X->B', 'A->T', 'B->T']);
    let oracle = graph();
    expect(ses(oracle, 3, { ...opts, maxK: 2 }).reference).toEqual([0, 1]);
    expect(oracle.calls).toContainEqual({ x: 2, z: [0, 1] });
    oracle = graph();
    expect(ses(oracle, 3, { ...opts, maxK: 1 }).reference).toEqual([0, 1, 2]);
    for (const c of oracle.calls) expect(c.z.length).toBeLessThanOrEqual(1);
  });

  it('tests only the conditioning sets that contain the newest selected feature, each once', () => {
    const oracle = new Oracle(['A', 'B', 'C', 'D'], ['A->T', 'B->T', 'C->T', 'D->T']);
    ses(oracle, 4, { ...opts, testBudget: 1000 });
    const keys = oracle.calls.map((c) => `${c.x}|${c.z.join(',')}`);
    expect(new Set(keys).size).toBe(keys.length);
    // D (3) is tested against {A}, {B}, {A,B} as B came in, {C}, {A,C}, {B,C} as C came in: never {A, B, C} (maxK 2)
    expect(keys.filter((k) => k.startsWith('3|'))).toEqual(['3|', '3|0', '3|1', '3|0,1', '3|2', '3|0,2', '3|1,2']);
  });
});

describe('ses ordering rules', () => {
  it('breaks ties of p by the larger statistic', () => {
    const r = ses(
      tableTest(
        () => -50,
        (x) => [10, 20, 15][x],
      ),
      3,
      opts,
    );
    expect(r.reference).toEqual([1, 2, 0]);
  });

  it('picks the candidate whose largest p so far is the smallest, comparing log p-values', () => {
    // univariate: 0 strongest, then 1, then 2; given {0}, 1 weakens to p = e^-5 (still <= alpha), 2 only to e^-60
    // plain p-values would all underflow to 0 here
    const logP = (x: number, z: readonly number[]): number => {
      if (z.length === 0) return [-1000, -900, -800][x];
      if (x === 1) return -5;
      return -760;
    };
    const r = ses(
      tableTest(logP, () => 1),
      3,
      opts,
    );
    expect(r.reference).toEqual([0, 2, 1]);
  });

  it('keeps the largest p so far, not the latest: a later, stronger test does not undo an earlier, weaker one', () => {
    // 1 is weak given {0} (p = e^-5) and strong given any set with 2 in it; 3 is moderately strong everywhere
    const logP = (x: number, z: readonly number[]): number => {
      if (z.length === 0) return [-1000, -900, -800, -700][x];
      if (x === 1) return z.includes(0) && !z.includes(2) ? -5 : -850;
      return x === 3 ? -700 : -760;
    };
    // after 0 and 2, candidate 1 still holds p = e^-5 from {0} and so comes after 3
    expect(
      ses(
        tableTest(logP, () => 1),
        4,
        opts,
      ).reference,
    ).toEqual([0, 2, 3, 1]);
  });

  it('compares with log(alpha): p = 0.06 is independent at alpha = 0.05, dependent at 0.1', () => {
    const logP = (x: number, z: readonly number[]): number => (z.length === 0 ? -100 + x : Math.log(0.06));
    expect(
      ses(
        tableTest(logP, () => 1),
        2,
        { ...opts, alpha: 0.05 },
      ).reference,
    ).toEqual([0]);
    expect(
      ses(
        tableTest(logP, () => 1),
        2,
        { ...opts, alpha: 0.1 },
      ).reference,
    ).toEqual([0, 1]);
  });
});

describe('enumerateSignatures', () => {
  const result: SesResult = { reference: [0, 1, 2], classes: [[0, 5], [1], [2, 6, 7]], signatureCount: 6, testsRun: 0 };

  it('lists the whole Cartesian product in odometer order (last class fastest), the reference first', () => {
    expect(enumerateSignatures(result, 100)).toEqual([
      [0, 1, 2],
      [0, 1, 6],
      [0, 1, 7],
      [5, 1, 2],
      [5, 1, 6],
      [5, 1, 7],
    ]);
  });

  it('is complete and has no duplicates for larger classes', () => {
    const classes = [
      [0, 10, 11],
      [1, 12],
      [2, 13, 14, 15],
      [3, 16],
    ];
    const sigs = enumerateSignatures({ reference: [0, 1, 2, 3], classes, signatureCount: 48, testsRun: 0 }, 1000);
    expect(sigs.length).toBe(48);
    expect(new Set(sigs.map((s) => s.join(','))).size).toBe(48);
    expect(sigs[0]).toEqual([0, 1, 2, 3]);
    for (const s of sigs) s.forEach((f, i) => expect(classes[i]).toContain(f));
  });

  it('stops at the limit', () => {
    expect(enumerateSignatures(result, 4)).toEqual([
      [0, 1, 2],
      [0, 1, 6],
      [0, 1, 7],
      [5, 1, 2],
    ]);
    expect(enumerateSignatures(result, 1)).toEqual([[0, 1, 2]]);
    expect(enumerateSignatures(result, 0)).toEqual([]);
  });

  it('caps signatureCount at Number.MAX_SAFE_INTEGER', () => {
    // 60 features, each with one exact copy: 2^60 signatures
    const names = Array.from({ length: 60 }, (_, i) => `F${i}`);
    const oracle = new Oracle(
      [...names, ...names],
      names.map((n) => `${n}->T`),
    );
    const r = ses(oracle, 120, { ...opts, maxSize: 100, testBudget: 1e7 });
    expect(r.reference.length).toBe(60);
    expect(r.signatureCount).toBe(Number.MAX_SAFE_INTEGER);
    expect(enumerateSignatures(r, 3).map((s) => s.slice(57))).toEqual([
      [57, 58, 59],
      [57, 58, 119],
      [57, 118, 59],
    ]);
  });
});

// ---- real data: a seeded linear model and a small Fisher's z test (normal approximation) ----

/** log of erfc(u) for u >= 0 (Numerical Recipes' erfcc, relative error < 1.2e-7, written in logs so it never underflows). */
function logErfc(u: number): number {
  const t = 1 / (1 + 0.5 * u);
  const poly =
    -1.26551223 +
    t *
      (1.00002368 +
        t *
          (0.37409196 +
            t *
              (0.09678418 +
                t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  return Math.log(t) - u * u + poly;
}

/** Fisher's z of the partial correlation of column x and y given columns z (columns of a row-major matrix). */
function fisherTest(X: Design, y: Float64Array): ConditionalIndependenceTest {
  const n = X.rows;
  const column = (j: number): Float64Array => Float64Array.from({ length: n }, (_, i) => X.data[i * X.cols + j]);
  const centre = (v: Float64Array): Float64Array => {
    let m = 0;
    for (const a of v) m += a;
    m /= n;
    return v.map((a) => a - m);
  };
  const dot = (a: Float64Array, b: Float64Array): number => a.reduce((s, ai, i) => s + ai * b[i], 0);
  return {
    description: "Fisher's z (normal approximation)",
    test(x, z) {
      // orthonormal basis of the centred conditioning columns (modified Gram-Schmidt)
      const basis: Float64Array[] = [];
      for (const j of z) {
        const q = centre(column(j));
        for (const b of basis) {
          const c = dot(q, b);
          for (let i = 0; i < n; i++) q[i] -= c * b[i];
        }
        const norm = Math.sqrt(dot(q, q));
        if (norm > 1e-9) basis.push(q.map((a) => a / norm));
      }
      const residual = (v: Float64Array): Float64Array => {
        const r = centre(v);
        for (const b of basis) {
          const c = dot(r, b);
          for (let i = 0; i < n; i++) r[i] -= c * b[i];
        }
        return r;
      };
      const xc = centre(column(x));
      const rx = residual(column(x));
      const ry = residual(y);
      // X a linear function of Z: it adds nothing
      if (dot(rx, rx) <= 1e-12 * dot(xc, xc)) return { statistic: 0, df: 1, logP: 0 };
      const r = dot(rx, ry) / Math.sqrt(dot(rx, rx) * dot(ry, ry));
      const statistic = Math.sqrt(n - z.length - 3) * Math.abs(Math.atanh(Math.min(r, 1 - 1e-15)));
      return { statistic, df: 1, logP: Math.min(0, logErfc(statistic / Math.SQRT2)) };
    },
  };
}

describe('ses on data from a linear model', () => {
  // y = x0 + 0.8 x1 + 0.6 x2 + noise; x3 an exact copy of x0, x4 a near copy of x1; x5 .. x14 noise
  const n = 400;
  const d = 15;
  const rng = new Rng(2026);
  const data = new Float64Array(n * d);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) data[i * d + j] = rng.normal();
    data[i * d + 3] = data[i * d];
    data[i * d + 4] = data[i * d + 1] + 0.01 * rng.normal();
    y[i] = data[i * d] + 0.8 * data[i * d + 1] + 0.6 * data[i * d + 2] + rng.normal();
  }
  const X: Design = { data, rows: n, cols: d };

  it('puts copies in one class with their original and keeps the causal features', () => {
    const r = ses(fisherTest(X, y), d, { ...opts, testBudget: 10_000 });
    const sorted = r.classes.map((q) => [...q].sort((a, b) => a - b));
    expect(sorted).toContainEqual([0, 3]);
    expect(sorted).toContainEqual([1, 4]);
    expect(sorted).toContainEqual([2]);
    for (const sig of allSignatures(r)) {
      expect(sig.includes(0) && sig.includes(3)).toBe(false);
      expect(sig.includes(1) && sig.includes(4)).toBe(false);
    }
    expect(r.signatureCount).toBeGreaterThanOrEqual(4);
  });

  it('SesSelector lists the reference then the equivalent signatures (at most signatureLimit) and their count', () => {
    const selector = new SesSelector(2, 0.05, (input) => fisherTest(input.X, input.target.y));
    expect(selector.key).toBe('ses-2-0.05');
    expect(selector.describe('classification')).toBe(
      'Statistically equivalent signatures (SES): maxK = 2, alpha = 0.05, likelihood-ratio test of logistic regressions (multinomial for more than two classes)',
    );
    const input: SelectionInput = {
      X,
      columnFeature: Int32Array.from({ length: d }, (_, j) => j),
      featureCount: d,
      categorical: new Uint8Array(d),
      target: { y },
      task: 'regression',
      maxSize: 2,
      signatureLimit: 3,
    };
    const fitted = selector.fit(input);
    // at most 2 features: x0 and x1, each with its copy; in this sample the near copy x4 correlates a little more
    // with y than x1 does, so x4 is the selected one and x1 its equivalent
    expect(fitted.signatures).toEqual([
      [0, 4],
      [0, 1],
      [3, 4],
    ]);
    expect(fitted.signatureCount).toBe(4);
    expect(selector.fit({ ...input, signatureLimit: 10 }).signatures).toEqual([
      [0, 4],
      [0, 1],
      [3, 4],
      [3, 1],
    ]);
  });
});
