/**
 * Register-blocked dense products for the linear models' solvers. Each inner loop keeps eight sums in locals
 * (two rows or columns times four heads or columns), so a loaded value feeds two or four multiply-adds: about
 * twice the rate of one dot product at a time in V8. Sums run in index order within each block.
 */

/**
 * out[h * n + i] = bias[h] + sum_j x[i * d + j] * wt[j * H + h]: the rows of x (row-major n x d) times H heads (wt:
 * d x H, one head per column) plus each head's intercept, written head by head.
 */
export function rowsTimesHeads(
  x: Float64Array,
  n: number,
  d: number,
  wt: Float64Array,
  bias: Float64Array,
  H: number,
  out: Float64Array,
): void {
  if (H === 1) {
    rowsTimesVector(x, n, d, wt, bias[0], out);
    return;
  }
  let i = 0;
  for (; i + 1 < n; i += 2) {
    const xa = i * d;
    const xb = xa + d;
    let h = 0;
    for (; h + 3 < H; h += 4) {
      let a0 = bias[h];
      let a1 = bias[h + 1];
      let a2 = bias[h + 2];
      let a3 = bias[h + 3];
      let b0 = a0;
      let b1 = a1;
      let b2 = a2;
      let b3 = a3;
      for (let j = 0, q = h; j < d; j++, q += H) {
        const u = x[xa + j];
        const v = x[xb + j];
        const w0 = wt[q];
        const w1 = wt[q + 1];
        const w2 = wt[q + 2];
        const w3 = wt[q + 3];
        a0 += u * w0;
        a1 += u * w1;
        a2 += u * w2;
        a3 += u * w3;
        b0 += v * w0;
        b1 += v * w1;
        b2 += v * w2;
        b3 += v * w3;
      }
      const o = h * n + i;
      out[o] = a0;
      out[o + 1] = b0;
      out[o + n] = a1;
      out[o + n + 1] = b1;
      out[o + 2 * n] = a2;
      out[o + 2 * n + 1] = b2;
      out[o + 3 * n] = a3;
      out[o + 3 * n + 1] = b3;
    }
    for (; h < H; h++) {
      let a0 = bias[h];
      let a1 = 0;
      let b0 = a0;
      let b1 = 0;
      let j = 0;
      let q = h;
      for (; j + 1 < d; j += 2, q += 2 * H) {
        a0 += x[xa + j] * wt[q];
        b0 += x[xb + j] * wt[q];
        a1 += x[xa + j + 1] * wt[q + H];
        b1 += x[xb + j + 1] * wt[q + H];
      }
      if (j < d) {
        a0 += x[xa + j] * wt[q];
        b0 += x[xb + j] * wt[q];
      }
      out[h * n + i] = a0 + a1;
      out[h * n + i + 1] = b0 + b1;
    }
  }
  if (i < n) {
    const xa = i * d;
    for (let h = 0; h < H; h++) {
      let s = bias[h];
      for (let j = 0; j < d; j++) s += x[xa + j] * wt[j * H + h];
      out[h * n + i] = s;
    }
  }
}

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
