/**
 * Equivalent features for a signature found by a selector that has no equivalence analysis of its own (LASSO), with
 * the conditional-independence tests SES uses (docs/engine.md), so that every selector's answer has the same shape: the
 * signature's members, and for each the features that can stand in for it.
 *
 * 1. Redundant members leave: while some member m is independent of the outcome given the rest of the signature
 *    (p > alpha), the weakest such member (largest p) is dropped. A cause and its copy selected side by side leave
 *    one of them; a member the others make useless leaves too.
 * 2. Each feature x outside the signature that is associated with the outcome on its own (p <= alpha) is an
 *    equivalent of member m when both directions hold: x adds nothing given the signature (x independent of T given
 *    S) while it is associated with T given the others (S \ {m}: it carries what m carries), and m adds nothing once
 *    x stands in for it (m independent of T given S \ {m} and x). x joins the class of the first such member, in the
 *    signature's order. Dropped members are tested as any other feature. (Without the middle condition a member
 *    whose own p is near alpha would gather noise features as equivalents.)
 *
 * The tests run within a budget (SES's default budget for the test's cost), so wide or many-class data stay bounded.
 */
import type { ConditionalIndependenceTest } from './independence';
import { defaultTestBudget } from './ses';

/** Significance level of the equivalence analysis (SES's default). */
export const EQUIVALENCE_ALPHA = 0.05;

export interface EquivalenceResult {
  /** the signature without its redundant members, in its order */
  reference: number[];
  /** per member of `reference`: the member first, then its equivalents in the order found */
  classes: number[][];
  /** the members that left as redundant, in the order they left */
  redundant: number[];
}

/**
 * Step 1 alone: the signature without its redundant members (while some member is independent of the outcome given
 * the others, p > alpha, the weakest leaves), within SES's test budget. Cross-validation runs it on every fold for
 * LASSO, so that what it evaluates is the signature the final selection keeps (equivalenceClasses' reference).
 */
export function withoutRedundant(
  test: ConditionalIndependenceTest,
  featureCount: number,
  signature: readonly number[],
  alpha = EQUIVALENCE_ALPHA,
): number[] {
  return backward(budgetedTests(test, featureCount, alpha), signature).reference;
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

/** Step 1: backward elimination of the redundant members. */
function backward({ logAlpha, logP, left }: BudgetedTests, signature: readonly number[]): { reference: number[]; redundant: number[] } {
  const S = [...signature];
  const redundant: number[] = [];
  // 1. backward: drop the weakest member while it adds nothing given the others
  while (S.length > 1 && left() > S.length) {
    let weakest = -1;
    let weakestLogP = -Infinity;
    for (const m of S) {
      const p = logP(
        m,
        S.filter((f) => f !== m),
      );
      if (p > weakestLogP) {
        weakest = m;
        weakestLogP = p;
      }
    }
    if (!(weakestLogP > logAlpha)) break;
    S.splice(S.indexOf(weakest), 1);
    redundant.push(weakest);
  }
  return { reference: S, redundant };
}

export function equivalenceClasses(
  test: ConditionalIndependenceTest,
  featureCount: number,
  signature: readonly number[],
  alpha = EQUIVALENCE_ALPHA,
): EquivalenceResult {
  const tests = budgetedTests(test, featureCount, alpha);
  const { logAlpha, logP } = tests;
  const { reference: S, redundant } = backward(tests, signature);
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
