/**
 * SES, statistically equivalent signatures (Lagani et al., J. Stat. Softw. 80(7), 2017; the forward phase of
 * MXM's `SES` with its incremental shortcut), exactly as docs/engine.md states it in "Feature selection in detail".
 * The algorithm sees the data only through a ConditionalIndependenceTest, so it is the same for every outcome kind.
 *
 * Conventions where docs/engine.md leaves a choice open (they make the result a function of the tests alone):
 * - p-values are compared as log p-values (tiny ones underflow as plain numbers).
 * - The strongest association is the smallest p, on equal p the larger statistic, then the lower feature index.
 *   Each feature keeps its weakest association so far: the largest p, on equal p the smaller statistic.
 * - A pass of step 3a visits the features (candidates and selected ones but the newest) in increasing index,
 *   as MXM does; a feature dropped earlier in the pass is no longer in S for the features after it.
 * - The conditioning sets of one feature are visited by size (1 .. maxK), then in lexicographic order of the older
 *   selected features in order of selection; each set lists its features in order of selection, so the newest
 *   selected feature is last. "The first Y in Z" is the first in that order.
 * - A test of step 3a is asked only what decides something (`below` of ConditionalIndependenceTest.test): for a
 *   selected feature whether p > alpha, for a candidate whether p is above its weakest association so far. A test
 *   fitted by Newton's method stops once its deviance proves the answer is no, which saves most of the steps of the
 *   strong associations; the decisions are those of the exact p-values.
 */
import type { ConditionalIndependenceTest, IndependenceTestResult } from './independence';

export interface SesOptions {
  /** largest conditioning set */
  maxK: number;
  /** significance level: a test with p > alpha says "independent" */
  alpha: number;
  /** never more than this many features in the reference signature */
  maxSize: number;
  /** how many tests SES may run (default: defaultTestBudget(featureCount, test.cost)); the screening always runs in full */
  testBudget?: number;
}

/** Below this, the budget never binds: on narrow data the whole forward phase costs little. */
export const MIN_TEST_BUDGET = 10_000;

/**
 * JADBio's default budget, 3 x the number of features, keeps wide data fast. On narrow data it would stop SES
 * after a step or two (30 features: 90 tests, of which the screening takes 30), so it has a floor.
 * A test that costs more than a logistic test on 5,000 samples (independence.ts, `cost`: many samples, or a
 * multinomial test, whose information has (K - 1) K / 2 blocks) divides the budget by its cost, so that the work,
 * not the count of tests, is bounded: a 10-class outcome on 1,440 samples (cost 12.96) gets 771 tests, not 10,000
 * (each fits a multinomial model with 9 x (|Z| + 2) coefficients). The screening still runs in full.
 */
export function defaultTestBudget(featureCount: number, cost = 1): number {
  return Math.floor(Math.max(3 * featureCount, MIN_TEST_BUDGET) / Math.max(1, cost));
}

export interface SesResult {
  /** the reference signature S, in the order of selection */
  reference: number[];
  /** Q_i for each i of the reference, in the same order; each starts with i, then its equivalents in the order they joined */
  classes: number[][];
  /** how many signatures the classes give (the product of their sizes, the reference included), capped at Number.MAX_SAFE_INTEGER */
  signatureCount: number;
  /** tests run, the screening included */
  testsRun: number;
}

/** Thrown inside `ses` when the test budget is spent; never leaves it. */
class BudgetSpent extends Error {}

/** True when `a` shows the stronger association: the smaller p, on equal p the larger statistic. */
function stronger(aLogP: number, aStat: number, bLogP: number, bStat: number): boolean {
  return aLogP < bLogP || (aLogP === bLogP && aStat > bStat);
}

/** Calls `visit` with every m-subset of `items` (as positions, increasing) in lexicographic order; stops when it returns true. */
function forEachSubset(n: number, m: number, visit: (positions: readonly number[]) => boolean): boolean {
  if (m > n) return false;
  const idx = Array.from({ length: m }, (_, i) => i);
  for (;;) {
    if (visit(idx)) return true;
    let i = m - 1;
    while (i >= 0 && idx[i] === n - m + i) i--;
    if (i < 0) return false;
    idx[i]++;
    for (let j = i + 1; j < m; j++) idx[j] = idx[j - 1] + 1;
  }
}

export function ses(test: ConditionalIndependenceTest, featureCount: number, options: SesOptions): SesResult {
  const { maxK, alpha, maxSize } = options;
  const logAlpha = Math.log(alpha);
  const budget = options.testBudget ?? defaultTestBudget(featureCount, test.cost);
  let testsRun = 0;

  // A NaN log p (a test that could not be computed) counts as no evidence of dependence: p = 1.
  const logPOf = (r: IndependenceTestResult): number => (Number.isNaN(r.logP) ? 0 : r.logP);
  const statOf = (r: IndependenceTestResult): number => (Number.isNaN(r.statistic) ? 0 : r.statistic);
  const run = (x: number, z: readonly number[], below: number): IndependenceTestResult => {
    if (testsRun >= budget) throw new BudgetSpent();
    testsRun++;
    return test.test(x, z, below);
  };

  // Weakest association so far per feature (docs/engine.md step 2: "keeps its largest p so far").
  const weakLogP = new Float64Array(featureCount);
  const weakStat = new Float64Array(featureCount);
  const candidate = new Uint8Array(featureCount);

  // 1. Screening: every feature alone. It always runs in full (its tests count against the budget) so that the
  // first selected feature never depends on the order of the features.
  for (let f = 0; f < featureCount; f++) {
    testsRun++;
    const r = test.test(f, []);
    weakLogP[f] = logPOf(r);
    weakStat[f] = statOf(r);
    if (weakLogP[f] <= logAlpha) candidate[f] = 1;
  }

  /** The candidate with the strongest weakest-association (step 2 and 3b), or -1. */
  const best = (): number => {
    let b = -1;
    for (let f = 0; f < featureCount; f++) {
      if (candidate[f] && (b < 0 || stronger(weakLogP[f], weakStat[f], weakLogP[b], weakStat[b]))) b = f;
    }
    return b;
  };

  // 2. The first selected feature.
  const S: number[] = [];
  const inS = new Uint8Array(featureCount);
  const classes = new Map<number, number[]>();
  const select = (f: number): void => {
    candidate[f] = 0;
    inS[f] = 1;
    S.push(f);
    classes.set(f, [f]);
  };
  const first = maxSize >= 1 ? best() : -1;
  if (first < 0) return { reference: [], classes: [], signatureCount: 1, testsRun };
  select(first);

  /**
   * Step 3a for the newest selected feature: test each candidate and each older selected feature against the
   * subsets of S \ {X} of at most maxK features that contain the newest (the other subsets were tested before).
   */
  const pass = (newest: number): void => {
    for (let x = 0; x < featureCount; x++) {
      if (x === newest || !(candidate[x] || inS[x])) continue;
      const older = S.filter((f) => f !== x && f !== newest);
      for (let size = 1; size <= Math.min(maxK, older.length + 1); size++) {
        const dropped = forEachSubset(older.length, size - 1, (positions) => {
          const z = [...positions.map((p) => older[p]), newest];
          // what the result is compared with: alpha, and for a candidate its weakest association so far (<= alpha)
          const r = run(x, z, inS[x] ? logAlpha : Math.min(logAlpha, weakLogP[x]));
          const logP = logPOf(r);
          const stat = statOf(r);
          // a bound (the test stopped once it proved log p below that) is a stronger association: nothing changes
          if (!r.bound && stronger(weakLogP[x], weakStat[x], logP, stat)) {
            weakLogP[x] = logP;
            weakStat[x] = stat;
          }
          if (logP <= logAlpha) return false;
          // X is independent of T given z: it leaves the candidates (and S), and joins the class of the first Y of z
          // that X can stand in for, bringing its own class along.
          candidate[x] = 0;
          const own = classes.get(x) ?? [x];
          if (inS[x]) {
            inS[x] = 0;
            S.splice(S.indexOf(x), 1);
            classes.delete(x);
          }
          for (const y of z) {
            const zPrime = [...z.filter((f) => f !== y), x];
            if (logPOf(run(y, zPrime, logAlpha)) > logAlpha) {
              classes.get(y)!.push(...own);
              break;
            }
          }
          return true;
        });
        if (dropped) break;
      }
    }
  };

  // 3. Max-min forward selection; 4. step 3a once more for the last selected feature. When the last pass already
  // ran for the newest feature (no candidate was left to add), running it again would repeat the same tests.
  let newest = first;
  let checked = -1;
  try {
    while (S.length < maxSize) {
      let any = false;
      for (let f = 0; f < featureCount && !any; f++) any = candidate[f] === 1;
      if (!any) break;
      pass(newest);
      checked = newest;
      const next = best();
      // Every candidate left has p <= alpha for all its sets (a larger p dropped it), so `next` qualifies.
      if (next < 0) break;
      select(next);
      newest = next;
    }
    if (checked !== newest) pass(newest);
  } catch (e) {
    // The budget is spent: selection stops with what it has. S and the classes are consistent at every test
    // (a feature leaves S before its equivalence is looked for, and classes exist only for members of S).
    if (!(e instanceof BudgetSpent)) throw e;
  }

  const classList = S.map((f) => classes.get(f)!);
  let count = 1;
  for (const q of classList) count = Math.min(Number.MAX_SAFE_INTEGER, count * q.length);
  return { reference: [...S], classes: classList, signatureCount: count, testsRun };
}

/**
 * The signatures the classes give, at most `limit`: the members of the Cartesian product of the classes in odometer
 * order (the last class changes fastest, each class in its stored order). As each class starts with its selected
 * feature, the first signature is the reference. Every signature has one feature per class, in the reference's order.
 */
export function enumerateSignatures(result: SesResult, limit: number): number[][] {
  const { classes } = result;
  const out: number[][] = [];
  if (limit < 1) return out;
  const pos = new Array<number>(classes.length).fill(0);
  for (;;) {
    out.push(classes.map((q, i) => q[pos[i]]));
    if (out.length >= limit) return out;
    let i = classes.length - 1;
    while (i >= 0 && pos[i] === classes[i].length - 1) pos[i--] = 0;
    if (i < 0) return out;
    pos[i]++;
  }
}
