import * as path from 'node:path';

/**
 * The datasets and reference values the tests use, inside the repository (README.md in this folder says where
 * each comes from). The engine's unit tests (src/engine/*.spec.ts) and the API tests (test/*.e2e-spec.ts) read
 * them from here; the benchmarks and the clients' examples name the same folder from where they run.
 */
export const TEST_DATA = __dirname;
/** Reference values computed in R (glmnet, survival) by make-references.R, from the datasets above. */
export const TEST_REFERENCES = path.join(__dirname, 'references');
