/**
 * LIBSVM's SMO solver (Chang & Lin; Fan, Chen & Lin 2005 second-order working-set selection) with its shrinking,
 * over kernel rows given by the caller: the C-SVM and epsilon-SVR duals of svm.ts.
 */
const TAU = 1e-12;

/** The state of `smo` that its occasional steps (shrinking, rebuilding gradients) share with the main loop. */
interface SmoState {
  l: number;
  n: number;
  kRow: (i: number) => Float64Array;
  p: Float64Array;
  y: Int8Array;
  C: number;
  alpha: Float64Array;
  G: Float64Array;
  Gbar: Float64Array;
  /** active variables first: active[0, activeSize) */
  active: Int32Array;
  activeSize: number;
  /** the next working variable i and its violation, found while updating G (-1: choose it afresh) */
  nextI: number;
  nextGmax: number;
  /** false until shrinking first reorders `active` (until then active[s] = s) */
  permuted: boolean;
}

/** G of the inactive variables from G_bar and the free variables' rows (free variables are never inactive). */
function reconstructGradient(st: SmoState): void {
  const { l, n, alpha, G, y, C, active, activeSize } = st;
  if (activeSize === l) return;
  st.nextI = -1;
  for (let s = activeSize; s < l; s++) G[active[s]] = st.Gbar[active[s]] + st.p[active[s]];
  for (let s = 0; s < activeSize; s++) {
    const i = active[s];
    if (alpha[i] <= 0 || alpha[i] >= C) continue;
    const Ki = st.kRow(i < n ? i : i - n);
    const ai = alpha[i] * y[i];
    for (let r = activeSize; r < l; r++) {
      const t = active[r];
      G[t] += ai * y[t] * Ki[t < n ? t : t - n];
    }
  }
  st.activeSize = l;
}

/** G_bar_t += c Q_tu for every t (u reached the upper bound: c = C; left it: c = -C). */
function addUpperBound(st: SmoState, u: number, c: number, Ku: Float64Array): void {
  const { l, n, y, Gbar } = st;
  const cu = c * y[u];
  for (let t = 0; t < l; t++) Gbar[t] += cu * y[t] * Ku[t < n ? t : t - n];
}

/** LIBSVM's do_shrinking: variables at a bound beyond the largest violations leave the active set. */
function shrink(st: SmoState, eps: number, unshrink: boolean): boolean {
  const { alpha, G, y, C, active } = st;
  st.nextI = -1;
  let gmax1 = -Infinity;
  let gmax2 = -Infinity;
  for (let s = 0; s < st.activeSize; s++) {
    const t = active[s];
    if (y[t] === 1) {
      if (alpha[t] < C && -G[t] >= gmax1) gmax1 = -G[t];
      if (alpha[t] > 0 && G[t] >= gmax2) gmax2 = G[t];
    } else {
      if (alpha[t] < C && -G[t] >= gmax2) gmax2 = -G[t];
      if (alpha[t] > 0 && G[t] >= gmax1) gmax1 = G[t];
    }
  }
  if (!unshrink && gmax1 + gmax2 <= eps * 10) {
    unshrink = true;
    reconstructGradient(st);
  }
  for (let s = 0; s < st.activeSize; s++) {
    const t = active[s];
    let out = false;
    if (alpha[t] >= C) out = y[t] === 1 ? -G[t] > gmax1 : -G[t] > gmax2;
    else if (alpha[t] <= 0) out = y[t] === 1 ? G[t] > gmax2 : G[t] > gmax1;
    if (!out) continue;
    st.permuted = true;
    st.activeSize--;
    active[s] = active[st.activeSize];
    active[st.activeSize] = t;
    s--;
  }
  return unshrink;
}

/**
 * The working pair over the active variables (Fan, Chen & Lin's second-order rule) into `pair`, or false when
 * they satisfy the stopping rule; pair[0] = i, pair[1] = j.
 */
function selectPair(st: SmoState, QD: Float64Array, eps: number, pair: Int32Array): boolean {
  const { n, alpha, G, y, C, active, activeSize } = st;
  let Gmax = st.nextGmax;
  let i = st.nextI;
  if (i < 0) {
    Gmax = -Infinity;
    for (let s = 0; s < activeSize; s++) {
      const t = active[s];
      if (y[t] === 1) {
        if (alpha[t] < C && -G[t] >= Gmax) {
          Gmax = -G[t];
          i = t;
        }
      } else if (alpha[t] > 0 && G[t] >= Gmax) {
        Gmax = G[t];
        i = t;
      }
    }
  }
  st.nextI = -1;
  if (i < 0) return false;
  const Ki = st.kRow(i < n ? i : i - n);
  const QDi = QD[i];
  let Gmax2 = -Infinity;
  let j = -1;
  let objMin = Infinity;
  for (let s = 0; s < activeSize; s++) {
    const t = active[s];
    const yt = y[t];
    if (yt === 1) {
      if (alpha[t] > 0) {
        const Gt = G[t];
        if (Gt >= Gmax2) Gmax2 = Gt;
        const gd = Gmax + Gt;
        if (gd > 0) {
          // QD_i + QD_t - 2 y_i Q_it with Q_it = y_i y_t K_it
          const q = QDi + QD[t] - 2 * Ki[t < n ? t : t - n];
          const o = -(gd * gd) / (q > 0 ? q : TAU);
          if (o <= objMin) {
            j = t;
            objMin = o;
          }
        }
      }
    } else if (alpha[t] < C) {
      const Gt = G[t];
      if (-Gt >= Gmax2) Gmax2 = -Gt;
      const gd = Gmax - Gt;
      if (gd > 0) {
        const q = QDi + QD[t] - 2 * Ki[t < n ? t : t - n];
        const o = -(gd * gd) / (q > 0 ? q : TAU);
        if (o <= objMin) {
          j = t;
          objMin = o;
        }
      }
    }
  }
  pair[0] = i;
  pair[1] = j;
  return !(Gmax + Gmax2 < eps || j < 0);
}

/**
 * The dual problem of LIBSVM (Chang & Lin; Fan, Chen & Lin 2005 second-order working-set selection), with
 * LIBSVM's shrinking: min 1/2 a'Qa + p'a  subject to  y'a = const, 0 <= a_i <= C, where
 * Q_st = y_s y_t K(s mod n, t mod n) over the n samples' kernel rows `kRow` (l = n for classification, 2n for
 * regression). Every min(l, 1000) iterations, variables at a bound that the largest violations say will stay
 * there leave the active set; their gradients are rebuilt (from G_bar, the upper-bound variables' share)
 * before the solution is declared optimal on all l (`shrinking` false: never). Returns alpha and rho.
 */
export function smo(
  l: number,
  n: number,
  kRow: (i: number) => Float64Array,
  QD: Float64Array,
  p: Float64Array,
  y: Int8Array,
  C: number,
  eps = 1e-3,
  shrinking = true,
): { alpha: Float64Array; rho: number } {
  const alpha = new Float64Array(l);
  const G = Float64Array.from(p);
  const Gbar = new Float64Array(l);
  const active = Int32Array.from({ length: l }, (_, t) => t);
  const st: SmoState = { l, n, kRow, p, y, C, alpha, G, Gbar, active, activeSize: l, nextI: -1, nextGmax: -Infinity, permuted: false };
  const pair = new Int32Array(2);
  let unshrink = false;
  let counter = Math.min(l, 1000) + 1;
  const maxIter = Math.max(200000, 100 * l);
  for (let iter = 0; iter < maxIter; iter++) {
    if (shrinking && --counter === 0) {
      counter = Math.min(l, 1000);
      unshrink = shrink(st, eps, unshrink);
    }
    if (!selectPair(st, QD, eps, pair)) {
      if (st.activeSize === l) break;
      reconstructGradient(st);
      if (!selectPair(st, QD, eps, pair)) break;
      counter = 1;
    }
    const i = pair[0];
    const j = pair[1];
    const Ki = kRow(i < n ? i : i - n);
    const Kj = kRow(j < n ? j : j - n);
    const yi = y[i];
    const yj = y[j];
    const Qij = yi * yj * Ki[j < n ? j : j - n];
    const oi = alpha[i];
    const oj = alpha[j];
    if (yi !== yj) {
      let q = QD[i] + QD[j] + 2 * Qij;
      if (q <= 0) q = TAU;
      const delta = (-G[i] - G[j]) / q;
      const diff = alpha[i] - alpha[j];
      alpha[i] += delta;
      alpha[j] += delta;
      if (diff > 0) {
        if (alpha[j] < 0) {
          alpha[j] = 0;
          alpha[i] = diff;
        }
      } else if (alpha[i] < 0) {
        alpha[i] = 0;
        alpha[j] = -diff;
      }
      if (diff > 0) {
        if (alpha[i] > C) {
          alpha[i] = C;
          alpha[j] = C - diff;
        }
      } else if (alpha[j] > C) {
        alpha[j] = C;
        alpha[i] = C + diff;
      }
    } else {
      let q = QD[i] + QD[j] - 2 * Qij;
      if (q <= 0) q = TAU;
      const delta = (G[i] - G[j]) / q;
      const sum = alpha[i] + alpha[j];
      alpha[i] -= delta;
      alpha[j] += delta;
      if (sum > C) {
        if (alpha[i] > C) {
          alpha[i] = C;
          alpha[j] = sum - C;
        }
      } else if (alpha[j] < 0) {
        alpha[j] = 0;
        alpha[i] = sum;
      }
      if (sum > C) {
        if (alpha[j] > C) {
          alpha[j] = C;
          alpha[i] = sum - C;
        }
      } else if (alpha[i] < 0) {
        alpha[i] = 0;
        alpha[j] = sum;
      }
    }
    // G_t += Q_ti di + Q_tj dj over the active variables, with Q_ti = y_t y_i K(i, t); the same pass finds the
    // next iteration's i as selectPair would (largest violation, the last of equals)
    const ci = yi * (alpha[i] - oi);
    const cj = yj * (alpha[j] - oj);
    const activeSize = st.activeSize;
    let Gmax = -Infinity;
    let next = -1;
    const permuted = st.permuted;
    for (let s = 0; s < activeSize; s++) {
      const t = permuted ? active[s] : s;
      const bt = t < n ? t : t - n;
      const yt = y[t];
      const Gt = G[t] + yt * (Ki[bt] * ci + Kj[bt] * cj);
      G[t] = Gt;
      if (yt === 1) {
        if (alpha[t] < C && -Gt >= Gmax) {
          Gmax = -Gt;
          next = t;
        }
      } else if (alpha[t] > 0 && Gt >= Gmax) {
        Gmax = Gt;
        next = t;
      }
    }
    st.nextI = next;
    st.nextGmax = Gmax;
    // G_bar_t = sum over upper-bound variables u of C Q_tu
    if (oi >= C !== alpha[i] >= C) addUpperBound(st, i, alpha[i] >= C ? C : -C, Ki);
    if (oj >= C !== alpha[j] >= C) addUpperBound(st, j, alpha[j] >= C ? C : -C, Kj);
  }
  reconstructGradient(st);
  let ub = Infinity;
  let lb = -Infinity;
  let free = 0;
  let sumFree = 0;
  for (let t = 0; t < l; t++) {
    const yG = y[t] * G[t];
    if (alpha[t] >= C) {
      if (y[t] === -1) ub = Math.min(ub, yG);
      else lb = Math.max(lb, yG);
    } else if (alpha[t] <= 0) {
      if (y[t] === 1) ub = Math.min(ub, yG);
      else lb = Math.max(lb, yG);
    } else {
      free++;
      sumFree += yG;
    }
  }
  const rho = free > 0 ? sumFree / free : (ub + lb) / 2;
  return { alpha, rho };
}
