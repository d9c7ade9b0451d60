/** The public shapes of a LASSO path: its family, its options and what it returns. */

export type LassoFamily = 'gaussian' | 'binomial' | 'multinomial' | 'cox';

export interface LassoPath {
  family: LassoFamily;
  /** number of classes for multinomial, else 1 */
  classCount: number;
  /** design columns */
  p: number;
  lambdas: number[];
  /** per lambda: one intercept (K for multinomial; 0 for Cox, which has none) */
  intercepts: Float64Array[];
  /** per lambda: coefficients on the original scale, p values (K x p row-major for multinomial) */
  coefficients: Float64Array[];
  /** per lambda: deviance (RSS for gaussian, -2 log-likelihood relative to the saturated model otherwise) */
  deviance: number[];
  /** per lambda: number of non-zero coefficients (all classes counted for multinomial) */
  df: number[];
  nullDeviance: number;
  /** per column: the 1/N standard deviation (0 for a constant column), to read coefficients on the standardized scale */
  scales: Float64Array;
}

export interface LassoOptions {
  nlambda?: number;
  /** default 1e-4 when N > p, else 0.01 */
  lambdaMinRatio?: number;
  standardize?: boolean;
  /** convergence threshold on max_j xv_j * (change of b_j)^2, relative to the null deviance per sample */
  thresh?: number;
  /** stop the path early by glmnet's rules (default true) */
  earlyStop?: boolean;
  /**
   * glmnet's dfmax: the path stops after the first lambda with more than this many non-zero columns
   * (any class), or features when `columnFeature` is given. A selector capped at a signature size never needs the
   * dense end of the path.
   */
  dfmax?: number;
  /** the feature of each column (a categorical feature's dummy columns count once against dfmax) */
  columnFeature?: Int32Array;
}
