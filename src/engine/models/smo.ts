/**
 * LIBSVM's SMO solver (Chang & Lin; Fan, Chen & Lin 2005 second-order working-set selection) with its shrinking,
 * over kernel rows given by the caller: the C-SVM and epsilon-SVR duals of svm.ts.
 *
 * The state keeps F_t = y_t G_t (G the dual gradient) instead of G: then the update of a pair is
 * F_t += K(i, t) y_i d_i + K(j, t) y_j d_j, with no label in the loop, the working variable i is the largest -F_t
 * over the variables that may move up (`up[t]`: y_t = 1 below C, or y_t = -1 above 0) and j ranges over those
 * that may move down (`down[t]`), each set a byte per variable updated when alpha_i and alpha_j change. The same
 * choices as LIBSVM's select_working_set and do_shrinking, as numbers: y_t = +-1 makes the sign flips exact.
 */
const TAU = 1e-12;

/** The state of `smo` that its occasional steps (shrinking, rebuilding gradients) share with the main loop. */
interface SmoState {
  l: number;
  /** the number of samples (kernel rows' length): l for classification, l / 2 for regression */
  n: number;
  /** base[t]: the sample of variable t (t mod n, or the caller's index), the index into kernel rows */
  base: Int32Array;
  /** base[t] = t mod n (no index given): the passes that read K_it at t itself */
  direct: boolean;
  kRow: (i: number) => Float64Array;
  p: Float64Array;
  y: Int8Array;
  C: number;
  alpha: Float64Array;
  /** y_t G_t */
  F: Float64Array;
  Gbar: Float64Array;
  up: Uint8Array;
  down: Uint8Array;
  /** active variables first: active[0, activeSize) */
  active: Int32Array;
  activeSize: number;
  /** the next working variable i and its violation, found while updating F (-1: choose it afresh) */
  nextI: number;
  nextGmax: number;
  /** false until shrinking first reorders `active` (until then active[s] = s) */
  permuted: boolean;
}

/** Which ways variable t may move, from its label and bound. */
function setBounds(st: SmoState, t: number): void {
  const a = st.alpha[t];
  const below = a < st.C ? 1 : 0;
  const above = a > 0 ? 1 : 0;
  st.up[t] = st.y[t] === 1 ? below : above;
  st.down[t] = st.y[t] === 1 ? above : below;
}

/** F of the inactive variables from G_bar and the free variables' rows (free variables are never inactive). */
function reconstructGradient(st: SmoState): void {
  const { l, base, alpha, F, y, C, active, activeSize } = st;
  if (activeSize === l) return;
  st.nextI = -1;
  for (let s = activeSize; s < l; s++) {
    const t = active[s];
    F[t] = y[t] * (st.Gbar[t] + st.p[t]);
  }
  for (let s = 0; s < activeSize; s++) {
    const i = active[s];
    if (alpha[i] <= 0 || alpha[i] >= C) continue;
    const Ki = st.kRow(base[i]);
    const ai = alpha[i] * y[i];
    for (let r = activeSize; r < l; r++) {
      const t = active[r];
      F[t] += ai * Ki[base[t]];
    }
  }
  st.activeSize = l;
}

/** G_bar_t += c Q_tu for every t (u reached the upper bound: c = C; left it: c = -C). */
function addUpperBound(st: SmoState, u: number, c: number, Ku: Float64Array): void {
  const { l, n, y, Gbar } = st;
  const cu = c * y[u];
  // y_t = +-1: y_t (cu K_ut) is (cu y_t) K_ut to the bit; variables t and t + n (regression) share K_ut
  if (!st.direct) for (let t = 0; t < l; t++) Gbar[t] += y[t] * (cu * Ku[st.base[t]]);
  else if (l === n) for (let t = 0; t < n; t++) Gbar[t] += y[t] * (cu * Ku[t]);
  else
    for (let k = 0; k < n; k++) {
      const w = cu * Ku[k];
      Gbar[k] += y[k] * w;
      Gbar[k + n] += y[k + n] * w;
    }
}

/** LIBSVM's do_shrinking: variables at a bound beyond the largest violations leave the active set. */
function shrink(st: SmoState, eps: number, unshrink: boolean): boolean {
  const { F, up, down, active } = st;
  st.nextI = -1;
  let gmax1 = -Infinity;
  let gmax2 = -Infinity;
  for (let s = 0; s < st.activeSize; s++) {
    const t = active[s];
    if (up[t] && -F[t] >= gmax1) gmax1 = -F[t];
    if (down[t] && F[t] >= gmax2) gmax2 = F[t];
  }
  if (!unshrink && gmax1 + gmax2 <= eps * 10) {
    unshrink = true;
    reconstructGradient(st);
  }
  for (let s = 0; s < st.activeSize; s++) {
    const t = active[s];
    // at a bound: it may move one way only; it leaves when that way is beyond the other side's largest violation
    const out = up[t] ? !down[t] && F[t] > gmax2 : -F[t] > gmax1;
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
  const { base, F, up, down, active, activeSize } = st;
  let Gmax = st.nextGmax;
  let i = st.nextI;
  if (i < 0) {
    Gmax = -Infinity;
    for (let s = 0; s < activeSize; s++) {
      const t = active[s];
      if (up[t] && -F[t] >= Gmax) {
        Gmax = -F[t];
        i = t;
      }
    }
  }
  st.nextI = -1;
  if (i < 0) return false;
  const Ki = st.kRow(base[i]);
  const QDi = QD[i];
  let Gmax2 = -Infinity;
  let j = -1;
  // the largest decrease gd^2 / q, compared as gd^2 >= best q (no division per candidate)
  let best = 0;
  for (let s = 0; s < activeSize; s++) {
    const t = active[s];
    if (!down[t]) continue;
    const Ft = F[t];
    if (Ft >= Gmax2) Gmax2 = Ft;
    const gd = Gmax + Ft;
    if (gd > 0) {
      // QD_i + QD_t - 2 y_i Q_it, with Q_it = y_i y_t K_it: -2 K_it whatever the labels
      let q = QDi + QD[t] - 2 * Ki[base[t]];
      if (!(q > 0)) q = TAU;
      const g2 = gd * gd;
      if (j < 0 || g2 >= best * q) {
        j = t;
        best = g2 / q;
      }
    }
  }
  pair[0] = i;
  pair[1] = j;
  return !(Gmax + Gmax2 < eps || j < 0);
}

/** LIBSVM's analytic update of alpha_i and alpha_j (with Q_ij = y_i y_j K_ij), clipped to the box. */
function updatePair(st: SmoState, i: number, j: number, Kij: number, QD: Float64Array): void {
  const { alpha, y, C } = st;
  const yi = y[i];
  const yj = y[j];
  const Gi = yi * st.F[i];
  const Gj = yj * st.F[j];
  const Qij = yi * yj * Kij;
  if (yi !== yj) {
    let q = QD[i] + QD[j] + 2 * Qij;
    if (q <= 0) q = TAU;
    const delta = (-Gi - Gj) / q;
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
    const delta = (Gi - Gj) / q;
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
  setBounds(st, i);
  setBounds(st, j);
}

/**
 * F_t += K_it ci + K_jt cj over the active variables; the same pass finds the next iteration's i as selectPair
 * would (the largest -F_t of those that may move up, the last of equals).
 */
function updateGradient(st: SmoState, Ki: Float64Array, ci: number, Kj: Float64Array, cj: number): void {
  const { base, F, up, active, activeSize } = st;
  let Gmax = -Infinity;
  let next = -1;
  const permuted = st.permuted;
  const n = st.n;
  if (st.direct && !permuted && activeSize === 2 * n) {
    // SVR before any shrinking: t and t + n share a kernel entry (the same products, the same sums as below); the
    // largest of each half, the second half's on a tie (it comes later in the order of t)
    let Gmax2 = -Infinity;
    let next2 = -1;
    for (let k = 0; k < n; k++) {
      const u = Ki[k] * ci;
      const v = Kj[k] * cj;
      const Fa = F[k] + u + v;
      F[k] = Fa;
      if (up[k] && -Fa >= Gmax) {
        Gmax = -Fa;
        next = k;
      }
      const Fb = F[k + n] + u + v;
      F[k + n] = Fb;
      if (up[k + n] && -Fb >= Gmax2) {
        Gmax2 = -Fb;
        next2 = k + n;
      }
    }
    if (next2 >= 0 && Gmax2 >= Gmax) {
      Gmax = Gmax2;
      next = next2;
    }
    st.nextI = next;
    st.nextGmax = Gmax;
    return;
  }
  for (let s = 0; s < activeSize; s++) {
    const t = permuted ? active[s] : s;
    const b = base[t];
    const Ft = F[t] + Ki[b] * ci + Kj[b] * cj;
    F[t] = Ft;
    if (up[t] && -Ft >= Gmax) {
      Gmax = -Ft;
      next = t;
    }
  }
  st.nextI = next;
  st.nextGmax = Gmax;
}

/** LIBSVM's rho: the mean y G of the free variables, else the middle of the bounds' range. */
function offset(st: SmoState): number {
  const { l, alpha, F, y, C } = st;
  let ub = Infinity;
  let lb = -Infinity;
  let free = 0;
  let sumFree = 0;
  for (let t = 0; t < l; t++) {
    const yG = F[t];
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
  return free > 0 ? sumFree / free : (ub + lb) / 2;
}

/**
 * The dual problem of LIBSVM (Chang & Lin; Fan, Chen & Lin 2005 second-order working-set selection), with
 * LIBSVM's shrinking: min 1/2 a'Qa + p'a  subject to  y'a = const, 0 <= a_i <= C, where
 * Q_st = y_s y_t K(s mod n, t mod n) over the n samples' kernel rows `kRow` (l = n for classification, 2n for
 * regression). Every min(l, 1000) iterations, variables at a bound that the largest violations say will stay
 * there leave the active set; their gradients are rebuilt (from G_bar, the upper-bound variables' share)
 * before the solution is declared optimal on all l (`shrinking` false: never). `index`: the sample of each
 * variable (its index into kernel rows) when it is not t mod n (one-vs-one: a pair's samples in rows of all
 * samples). Returns alpha and rho.
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
  index?: Int32Array,
): { alpha: Float64Array; rho: number } {
  const alpha = new Float64Array(l);
  const st: SmoState = {
    l,
    n,
    base: index ?? Int32Array.from({ length: l }, (_, t) => t % n),
    direct: !index,
    kRow,
    p,
    y,
    C,
    alpha,
    F: Float64Array.from(p, (v, t) => y[t] * v),
    Gbar: new Float64Array(l),
    up: new Uint8Array(l),
    down: new Uint8Array(l),
    active: Int32Array.from({ length: l }, (_, t) => t),
    activeSize: l,
    nextI: -1,
    nextGmax: -Infinity,
    permuted: false,
  };
  for (let t = 0; t < l; t++) setBounds(st, t);
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
    const Ki = kRow(st.base[i]);
    const Kj = kRow(st.base[j]);
    const oi = alpha[i];
    const oj = alpha[j];
    updatePair(st, i, j, Ki[st.base[j]], QD);
    updateGradient(st, Ki, y[i] * (alpha[i] - oi), Kj, y[j] * (alpha[j] - oj));
    // G_bar_t = sum over upper-bound variables u of C Q_tu
    if (oi >= C !== alpha[i] >= C) addUpperBound(st, i, alpha[i] >= C ? C : -C, Ki);
    if (oj >= C !== alpha[j] >= C) addUpperBound(st, j, alpha[j] >= C ? C : -C, Kj);
  }
  reconstructGradient(st);
  return { alpha, rho: offset(st) };
}
