/**
 * L-BFGS (Nocedal and Wright, algorithm 7.4; `M` curvature pairs) with a backtracking Armijo line search,
 * maximizing a smooth concave objective from `w0` until no gradient entry exceeds `gtol`. `evaluate(w, g)`
 * returns the objective at w and writes its gradient into g. Returns the weights reached.
 */
export function lbfgsMaximize(
  evaluate: (w: Float64Array, g: Float64Array) => number,
  w0: Float64Array,
  gtol: number,
  maxIter = 5000,
  M = 10,
): Float64Array {
  const P = w0.length;
  const S = Array.from({ length: M }, () => new Float64Array(P));
  const Yd = Array.from({ length: M }, () => new Float64Array(P));
  const rho = new Float64Array(M);
  const alpha = new Float64Array(M);
  let w: Float64Array = Float64Array.from(w0);
  let cand: Float64Array = new Float64Array(P);
  let g: Float64Array = new Float64Array(P);
  let gNew: Float64Array = new Float64Array(P);
  const dir = new Float64Array(P);
  let obj = evaluate(w, g);
  let stored = 0;
  let head = 0;
  const dot = (a: Float64Array, b: Float64Array): number => {
    let s = 0;
    for (let q = 0; q < P; q++) s += a[q] * b[q];
    return s;
  };
  for (let iter = 0; iter < maxIter; iter++) {
    let gmax = 0;
    for (let q = 0; q < P; q++) gmax = Math.max(gmax, Math.abs(g[q]));
    if (gmax < gtol) break;
    // two-loop recursion on the ascent direction (g is the gradient of the objective we maximize)
    dir.set(g);
    for (let k = 0; k < stored; k++) {
      const m = (head - 1 - k + M) % M;
      alpha[m] = rho[m] * dot(S[m], dir);
      const sm = Yd[m];
      const am = alpha[m];
      for (let q = 0; q < P; q++) dir[q] -= am * sm[q];
    }
    if (stored > 0) {
      const m = (head - 1 + M) % M;
      const gamma = dot(S[m], Yd[m]) / dot(Yd[m], Yd[m]);
      for (let q = 0; q < P; q++) dir[q] *= gamma;
    }
    for (let k = stored - 1; k >= 0; k--) {
      const m = (head - 1 - k + M) % M;
      const c = alpha[m] - rho[m] * dot(Yd[m], dir);
      const sm = S[m];
      for (let q = 0; q < P; q++) dir[q] += c * sm[q];
    }
    let slope = dot(g, dir);
    if (!(slope > 0)) {
      dir.set(g);
      slope = dot(g, g);
      stored = 0;
    }
    let t = stored === 0 ? Math.min(1, 1 / Math.sqrt(slope)) : 1;
    let nextObj = obj;
    let accepted = false;
    for (let half = 0; half < 40; half++) {
      for (let q = 0; q < P; q++) cand[q] = w[q] + t * dir[q];
      nextObj = evaluate(cand, gNew);
      if (nextObj >= obj + 1e-4 * t * slope) {
        accepted = true;
        break;
      }
      t /= 2;
    }
    if (!accepted) break;
    // curvature pair for the negated objective: s = step, y = -(gNew - g)
    const s = S[head];
    const yd = Yd[head];
    for (let q = 0; q < P; q++) {
      s[q] = cand[q] - w[q];
      yd[q] = g[q] - gNew[q];
    }
    const sy = dot(s, yd);
    if (sy > 1e-16 * dot(yd, yd)) {
      rho[head] = 1 / sy;
      head = (head + 1) % M;
      stored = Math.min(M, stored + 1);
    }
    let swap = w;
    w = cand;
    cand = swap;
    swap = g;
    g = gNew;
    gNew = swap;
    obj = nextObj;
  }
  return w;
}
