/**
 * The conditional-independence tests of SES, one per outcome kind (docs/engine.md, "Feature selection in detail";
 * reference values in spec/references/ci-tests.json):
 * - regression: Fisher's z of the partial correlation with MXM's Student-t p-value, or the F-test of nested
 *   linear models when a categorical feature takes part;
 * - classification: likelihood ratio of nested logistic (2 classes) or multinomial logistic regressions;
 * - survival: likelihood ratio of nested Cox models with Efron's ties.
 *
 * Every test works in one reparametrization: the conditioning set Z becomes an orthonormal basis Q of
 * span(1, Z columns), and X becomes an orthonormal basis W of what its columns add to it (their residuals on Q,
 * orthonormalized). The models T ~ Z and T ~ Z + X have the same fits on [Q] and [Q, W], so the likelihoods
 * (and the statistics) are unchanged, while the fits become well conditioned, the partial correlation is one
 * dot product, and "X is a linear function of Z" is simply "W is empty" (then p = 1).
 * Q and the null fit T ~ Z are cached by Z, since SES tests many X against the same Z.
 *
 * One file per family: linear.ts (regression), logistic.ts (classification), cox.ts (survival); what they share
 * in residual-test.ts (the bases and the cache) and likelihood.ts (Newton's method on a log-likelihood).
 */
import type { ConditionalIndependenceTest } from '../independence';
import { CoxTest } from './cox';
import { LinearTest } from './linear';
import { LogisticTest } from './logistic';
import type { IndependenceTestInput } from './residual-test';

export type { IndependenceTestInput } from './residual-test';

/** Creates the test that docs/engine.md prescribes for the task. */
export function createIndependenceTest(input: IndependenceTestInput): ConditionalIndependenceTest {
  if (input.task === 'regression') return new LinearTest(input);
  if (input.task === 'classification') return new LogisticTest(input);
  return new CoxTest(input);
}
