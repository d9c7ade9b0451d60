/**
 * Equivalent features for a signature found by a selector that has no equivalence analysis of its own (LASSO), with
 * the conditional-independence tests SES uses (docs/engine.md), so that every selector's answer has the same shape: the
 * signature's members, and for each the features that can stand in for it.
 *
 * 1. Copies leave: a member m is a copy when it adds nothing given the rest of the signature (m independent of the
 *    outcome given S \ {m}, p > alpha) while near copies of it among such members are what makes it useless: m is
 *    associated with the outcome once the k members most correlated with it among them (|r| >= NEAR_COPY = 0.9)
 *    leave too (k = 1, 2, 3: a feature with up to three copies). While there is a copy, the weakest (largest p) leaves: a cause and its copy selected side by
 *    side leave one of them. Members that are merely weak given the others stay: the selector chose them, and
 *    cross-validation, which runs this same step on every fold (`withoutCopies`), estimated the signature with them.
 * 2. Each feature x outside the signature that is associated with the outcome on its own (p <= alpha) is an
 *    equivalent of member m when both directions hold: x adds nothing given the signature (x independent of T given
 *    S) while it is associated with T given the others (S \ {m}: it carries what m carries), and m adds nothing once
 *    x stands in for it (m independent of T given S \ {m} and x). x joins the class of the first such member, in the
 *    signature's order. Copies that left are tested as any other feature. (Without the middle condition a member
 *    whose own p is near alpha would gather noise features as equivalents.)
 *
 * The tests run within a budget (SES's default budget for the test's cost), so wide or many-class data stay bounded.
 */
import type { ConditionalIndependenceTest } from './independence';
import type { Design } from './models/common';
import { defaultTestBudget } from './ses';

/** Significance level of the equivalence analysis (SES's default). */
export const EQUIVALENCE_ALPHA = 0.05;

export interface EquivalenceResult {
  /** the signature without its copies, in its order */
  reference: number[];
  /** per member of `reference`: the member first, then its equivalents in the order found */
  classes: number[][];
  /** the members that left as copies of others, in the order they left */
  redundant: number[];
}

/** How alike two features are: orders a redundant member's candidates for the member it copies. */
export type Similarity = (a: number, b: number) => number;

/**
 * The largest absolute Pearson correlation between the design columns of two features (a categorical feature has
 * several), each column's centred values and norm, and each pair's value, computed once, on demand.
 */
export function designSimilarity(X: Design, columnFeature: Int32Array): Similarity {
  const columns: number[][] = [];
  columnFeature.forEach((f, j) => (columns[f] ??= []).push(j));
  const centred = new Map<number, { v: Float64Array; norm: number }>();
  const column = (j: number): { v: Float64Array; norm: number } => {
    let c = centred.get(j);
    if (c === undefined) {
      const v = new Float64Array(X.rows);
      let mean = 0;
      for (let i = 0; i < X.rows; i++) mean += v[i] = X.data[i * X.cols + j];
      mean /= Math.max(1, X.rows);
      let ss = 0;
      for (let i = 0; i < X.rows; i++) ss += (v[i] -= mean) ** 2;
      c = { v, norm: Math.sqrt(ss) };
      centred.set(j, c);
    }
    return c;
  };
  const known = new Map<number, number>();
  return (a, b) => {
    const key = Math.min(a, b) * columnFeature.length + Math.max(a, b);
    const seen = known.get(key);
    if (seen !== undefined) return seen;
    let best = 0;
    for (const ja of columns[a] ?? [])
      for (const jb of columns[b] ?? []) {
        const x = column(ja);
        const y = column(jb);
        if (x.norm === 0 || y.norm === 0) continue;
        let dot = 0;
        for (let i = 0; i < X.rows; i++) dot += x.v[i] * y.v[i];
        best = Math.max(best, Math.abs(dot) / (x.norm * y.norm));
      }
    known.set(key, best);
    return best;
  };
}

/** The log p-values of `test` compared with alpha only (a bound below it is as good as the exact value), counted. */
interface BudgetedTests {
  logAlpha: number;
  logP: (x: number, z: readonly number[]) => number;
  /** tests left of SES's default budget for the test's cost */
  left: () => number;
}

function budgetedTests(test: ConditionalIndependenceTest, featureCount: number, alpha: number): BudgetedTests {
  const logAlpha = Math.log(alpha);
  let budget = defaultTestBudget(featureCount, test.cost);
  return {
    logAlpha,
    logP: (x, z) => {
      budget--;
      const r = test.test(x, z, logAlpha);
      return Number.isNaN(r.logP) ? 0 : r.logP;
    },
    left: () => budget,
  };
}

/**
 * Step 1 alone: the signature without its copies, within SES's test budget. Cross-validation runs it on every fold for
 * LASSO, so that what it evaluates is the signature the final selection keeps (equivalenceClasses' reference).
 */
export function withoutCopies(
  test: ConditionalIndependenceTest,
  featureCount: number,
  signature: readonly number[],
  similarity: Similarity,
  alpha = EQUIVALENCE_ALPHA,
): number[] {
  return dropCopies(budgetedTests(test, featureCount, alpha), signature, similarity).reference;
}

/** The most members one feature and its copies can make useless side by side (a cause with three copies). */
const COPY_GROUP = 4;

/**
 * How correlated (absolute Pearson correlation) a member must be with m to count as its copy. Below it, members that
 * make each other useless share weak, overlapping signal (lung's performance scores, neighbouring image features)
 * rather than copy one another: dropping them cost lung's held-out C-index 0.016 on quality.spec's splits.
 */
export const NEAR_COPY = 0.9;

/** Step 1: while some member is a copy of others, the weakest copy leaves. */
function dropCopies(
  { logAlpha, logP, left }: BudgetedTests,
  signature: readonly number[],
  similarity: Similarity,
): { reference: number[]; redundant: number[] } {
  const S = [...signature];
  const redundant: number[] = [];
  const without = (...out: number[]): number[] => S.filter((f) => !out.includes(f));
  while (S.length > 1 && left() > 2 * S.length) {
    // only a member with a near copy among the others can be a copy (or a copy's original): the others need no test
    // (on most data none has one, and testing every member of a large multinomial signature on every fold cost
    // 37% more CPU on the 10-class mc10 shape)
    const paired = S.filter((m) => S.some((o) => o !== m && similarity(m, o) >= NEAR_COPY));
    if (paired.length < 2) break;
    // those that add nothing given the others, the weakest (largest p) first; ties keep the signature's order
    const useless = paired
      .map((m) => ({ m, p: logP(m, without(m)) }))
      .filter((r) => r.p > logAlpha)
      .sort((a, b) => b.p - a.p);
    // m copies the most alike of the other useless members (the first few: a cause with two copies beside it needs
    // two to leave) when it is associated with the outcome once they leave too
    const copies = (m: number): boolean => {
      const alike = useless
        .filter((r) => r.m !== m && similarity(m, r.m) >= NEAR_COPY)
        .sort((a, b) => similarity(m, b.m) - similarity(m, a.m))
        .slice(0, COPY_GROUP - 1)
        .map((r) => r.m);
      return alike.some((_, k) => !(logP(m, without(m, ...alike.slice(0, k + 1))) > logAlpha));
    };
    const copy = useless.find((r) => copies(r.m))?.m;
    if (copy === undefined) break;
    S.splice(S.indexOf(copy), 1);
    redundant.push(copy);
  }
  return { reference: S, redundant };
}

export function equivalenceClasses(
  test: ConditionalIndependenceTest,
  featureCount: number,
  signature: readonly number[],
  similarity: Similarity,
  alpha = EQUIVALENCE_ALPHA,
): EquivalenceResult {
  const tests = budgetedTests(test, featureCount, alpha);
  const { logAlpha, logP } = tests;
  const { reference: S, redundant } = dropCopies(tests, signature, similarity);
  const classes = S.map((m) => [m]);
  if (S.length === 0) return { reference: S, classes, redundant };
  // 2. equivalents among the features associated with the outcome
  const inS = new Set(S);
  for (let x = 0; x < featureCount && tests.left() > 0; x++) {
    if (inS.has(x) || logP(x, []) > logAlpha) continue;
    if (!(logP(x, S) > logAlpha)) continue;
    for (let i = 0; i < S.length && tests.left() > 0; i++) {
      const others = S.filter((f) => f !== S[i]);
      // x must carry what S[i] carries: associated with T once S[i] is left out, and S[i] useless once x stands in
      if (logP(x, others) > logAlpha) continue;
      if (logP(S[i], [...others, x]) > logAlpha) {
        classes[i].push(x);
        break;
      }
    }
  }
  return { reference: S, classes, redundant };
}
