import type { Design, Target } from '../models/common';
import { BinomialFamily } from './binomial';
import { coordinateDescentPath } from './coordinate-descent';
import { CoxFamily } from './cox';
import type { LassoFamilyModel } from './family';
import { GaussianFamily } from './gaussian';
import { MultinomialFamily } from './multinomial';
import type { LassoFamily, LassoOptions, LassoPath } from './types';

/**
 * LASSO paths by coordinate descent, with glmnet's definitions (Friedman, Hastie, Tibshirani,
 * J. Stat. Softw. 33(1), 2010; Simon et al. 2011 for Cox) so that `references/lasso-glmnet.json`
 * (glmnet 4.1-6) can be matched:
 * - objective: (1/2N) RSS (gaussian) or -(1/N) log-likelihood (binomial, multinomial "ungrouped"
 *   with every coefficient penalised, Cox partial likelihood with Breslow ties) + lambda ||b||_1;
 * - columns standardised with the 1/N standard deviation, intercept not penalised, coefficients
 *   returned on the original scale; the gaussian outcome is scaled by its 1/N sd as glmnet does,
 *   and lambdas are reported on the outcome's scale;
 * - lambdas log-spaced from lambda_max down to lambda_max x lambdaMinRatio, and the path stops
 *   early by glmnet's rules (so its length matches glmnet's: 88 for gaussian diabetes, 50 for
 *   Cox lung).
 * The driver is coordinate-descent.ts; each family (one file each) supplies its likelihood and point solver.
 */

/**
 * The LASSO path of `family` on the design X (row-major n x p). Target: class index 0..K-1 (binomial: 1 is
 * the positive class), value (gaussian), time plus 0/1 event (cox).
 */
export function lassoPath(X: Design, target: Target, family: LassoFamily, options: LassoOptions = {}): LassoPath {
  return coordinateDescentPath(X, familyModel(family, target, X.rows), options);
}

function familyModel(family: LassoFamily, target: Target, n: number): LassoFamilyModel {
  switch (family) {
    case 'gaussian':
      return new GaussianFamily(target.y);
    case 'binomial':
      return new BinomialFamily(target.y);
    case 'multinomial':
      return new MultinomialFamily(target.y, Math.max(2, target.classCount ?? 2));
    case 'cox':
      return new CoxFamily(target.y, target.event ?? new Float64Array(n).fill(1));
  }
}
