/**
 * Register-blocked dense products for the linear models' solvers and the SVMs' kernel rows. Each inner loop keeps
 * four to eight sums in locals (rows or columns times columns), so a loaded value feeds several multiply-adds:
 * about twice the rate of one dot product at a time in V8. Sums run in index order within each block.
 */

/** out[i] = bias + sum_j x[i * d + j] * v[j], four rows at a time. */
export function rowsTimesVector(x: Float64Array, n: number, d: number, v: Float64Array, bias: number, out: Float64Array): void {
  let i = 0;
  for (; i + 3 < n; i += 4) {
    const x0 = i * d;
    let s0 = bias;
    let s1 = bias;
    let s2 = bias;
    let s3 = bias;
    for (let j = 0; j < d; j++) {
      const c = v[j];
      s0 += x[x0 + j] * c;
      s1 += x[x0 + d + j] * c;
      s2 += x[x0 + 2 * d + j] * c;
      s3 += x[x0 + 3 * d + j] * c;
    }
    out[i] = s0;
    out[i + 1] = s1;
    out[i + 2] = s2;
    out[i + 3] = s3;
  }
  for (; i < n; i++) {
    let s = bias;
    for (let j = 0; j < d; j++) s += x[i * d + j] * v[j];
    out[i] = s;
  }
}

/**
 * out[o + a * stride + b] = sum_i z[a * n + i] * x[b * n + i] for a < A and b < B, or only b <= a when `lower`
 * (z: A x n and x: B x n, one column of the design per row). With z = x: the Gram matrix; with z = x weighted by
 * a row weight: the weighted cross products of a Hessian. xtR: out[o + h * stride + a] = residuals h times column a.
 */
export function crossProducts(
  z: Float64Array,
  x: Float64Array,
  n: number,
  A: number,
  B: number,
  lower: boolean,
  out: Float64Array,
  o: number,
  stride: number,
): void {
  let a = 0;
  for (; a + 1 < A; a += 2) {
    const za = a * n;
    const zb = za + n;
    const bMax = lower ? Math.min(B, a + 2) : B;
    let b = 0;
    for (; b + 3 < bMax; b += 4) {
      const x0 = b * n;
      let a0 = 0;
      let a1 = 0;
      let a2 = 0;
      let a3 = 0;
      let b0 = 0;
      let b1 = 0;
      let b2 = 0;
      let b3 = 0;
      for (let i = 0; i < n; i++) {
        const u = z[za + i];
        const v = z[zb + i];
        const c0 = x[x0 + i];
        const c1 = x[x0 + n + i];
        const c2 = x[x0 + 2 * n + i];
        const c3 = x[x0 + 3 * n + i];
        a0 += u * c0;
        a1 += u * c1;
        a2 += u * c2;
        a3 += u * c3;
        b0 += v * c0;
        b1 += v * c1;
        b2 += v * c2;
        b3 += v * c3;
      }
      const ra = o + a * stride + b;
      const rb = ra + stride;
      out[rb] = b0;
      out[rb + 1] = b1;
      out[rb + 2] = b2;
      out[rb + 3] = b3;
      // in the lower triangle, row a stops at column a
      out[ra] = a0;
      if (!lower || b + 1 <= a) out[ra + 1] = a1;
      if (!lower || b + 2 <= a) out[ra + 2] = a2;
      if (!lower || b + 3 <= a) out[ra + 3] = a3;
    }
    for (; b < bMax; b++) {
      const x0 = b * n;
      let a0 = 0;
      let b0 = 0;
      for (let i = 0; i < n; i++) {
        const c = x[x0 + i];
        a0 += z[za + i] * c;
        b0 += z[zb + i] * c;
      }
      if (!lower || b <= a) out[o + a * stride + b] = a0;
      out[o + (a + 1) * stride + b] = b0;
    }
  }
  if (a < A) {
    const za = a * n;
    const bMax = lower ? Math.min(B, a + 1) : B;
    const ra = o + a * stride;
    let b = 0;
    for (; b + 3 < bMax; b += 4) {
      const x0 = b * n;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let i = 0; i < n; i++) {
        const u = z[za + i];
        s0 += u * x[x0 + i];
        s1 += u * x[x0 + n + i];
        s2 += u * x[x0 + 2 * n + i];
        s3 += u * x[x0 + 3 * n + i];
      }
      out[ra + b] = s0;
      out[ra + b + 1] = s1;
      out[ra + b + 2] = s2;
      out[ra + b + 3] = s3;
    }
    for (; b < bMax; b++) {
      let s0 = 0;
      let s1 = 0;
      const x0 = b * n;
      let i = 0;
      for (; i + 1 < n; i += 2) {
        s0 += z[za + i] * x[x0 + i];
        s1 += z[za + i + 1] * x[x0 + i + 1];
      }
      if (i < n) s0 += z[za + i] * x[x0 + i];
      out[ra + b] = s0 + s1;
    }
  }
}
