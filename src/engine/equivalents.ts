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

export function equivalenceClasses(
  test: ConditionalIndependenceTest,
  featureCount: number,
  signature: readonly number[],
  alpha = EQUIVALENCE_ALPHA,
): EquivalenceResult {
  const logAlpha = Math.log(alpha);
  let budget = defaultTestBudget(featureCount, test.cost);
  // every result is compared with alpha only (a bound below it is as good as the exact value)
  const logP = (x: number, z: readonly number[]): number => {
    budget--;
    const r = test.test(x, z, logAlpha);
    return Number.isNaN(r.logP) ? 0 : r.logP;
  };
  const S = [...signature];
  const redundant: number[] = [];
  // 1. backward: drop the weakest member while it adds nothing given the others
  while (S.length > 1 && budget > S.length) {
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
  const classes = S.map((m) => [m]);
  if (S.length === 0) return { reference: S, classes, redundant };
  // 2. equivalents among the features associated with the outcome
  const inS = new Set(S);
  for (let x = 0; x < featureCount && budget > 0; x++) {
    if (inS.has(x) || logP(x, []) > logAlpha) continue;
    if (!(logP(x, S) > logAlpha)) continue;
    for (let i = 0; i < S.length && budget > 0; i++) {
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
