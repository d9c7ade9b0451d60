/** Small dense linear algebra on Float64Arrays shared by the engine's solvers (hot loops: no allocation). */

/** sum_j a[ao + j] * b[bo + j] over j < d, in four partial sums (the JIT keeps them in registers). */
export function dotAt(a: Float64Array, ao: number, b: Float64Array, bo: number, d: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  for (; j + 3 < d; j += 4) {
    s0 += a[ao + j] * b[bo + j];
    s1 += a[ao + j + 1] * b[bo + j + 1];
    s2 += a[ao + j + 2] * b[bo + j + 2];
    s3 += a[ao + j + 3] * b[bo + j + 3];
  }
  for (; j < d; j++) s0 += a[ao + j] * b[bo + j];
  return s0 + s1 + (s2 + s3);
}

/**
 * The Cholesky factor L (lower, row-major P x P) of A + ridge I for the symmetric A (its lower triangle read), row after
 * row: false as soon as a diagonal's square is not above `minimum`. models/simd-kernels.ts's choleskyFactor gives the
 * same factor to the bit.
 */
export function choleskyRows(A: Float64Array, L: Float64Array, P: number, ridge: number, minimum: number): boolean {
  for (let a = 0; a < P; a++)
    for (let c = 0; c <= a; c++) {
      let s = A[a * P + c] + (a === c ? ridge : 0);
      for (let k = 0; k < c; k++) s -= L[a * P + k] * L[c * P + k];
      if (a === c) {
        if (!(s > minimum)) return false;
        L[a * P + a] = Math.sqrt(s);
      } else L[a * P + c] = s / L[c * P + c];
    }
  return true;
}

/**
 * Solves L L' x = b for a Cholesky factor L (lower triangle, row-major P x P); `x` may be `b` itself (solved in
 * place).
 */
export function solveCholesky(L: Float64Array, b: Float64Array, x: Float64Array, P: number): void {
  for (let a = 0; a < P; a++) {
    let s = b[a];
    for (let k = 0; k < a; k++) s -= L[a * P + k] * x[k];
    x[a] = s / L[a * P + a];
  }
  for (let a = P - 1; a >= 0; a--) {
    let s = x[a];
    for (let k = a + 1; k < P; k++) s -= L[k * P + a] * x[k];
    x[a] = s / L[a * P + a];
  }
}
