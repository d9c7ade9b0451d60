/** LASSO: paths by family (glmnet's definitions) and the feature selector built on them. */
export type { LassoFamily, LassoOptions, LassoPath } from './types';
export { lassoPath } from './path';
export { chooseLambda, lassoFamily, LassoSelector, selectFromPath } from './selector';
