/**
 * The fits of the calibration maps (calibration.ts): Platt scaling's slope and intercept and temperature scaling's
 * temperature, by maximum likelihood (Newton's method) against Platt's targets (calibrationTargets), each bounded by
 * MAX_SCALE.
 */

const EPS = 1e-12;

/** log(p / (1 - p)), p held within [1e-12, 1 - 1e-12]. */
export const logit = (p: number): number => {
  const q = Math.min(1 - EPS, Math.max(EPS, p));
  return Math.log(q / (1 - q));
};
/** 1 / (1 + e^-z). */
export const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/**
 * Platt's a and b for scores x (logits) and targets y in [0, 1] (0/1 outcomes, or calibrationTargets) on the given rows: Newton's method with step halving; a
 * slope above MAX_SCALE is held at it, with b fitted again for it.
 */
export function fitPlatt(x: ArrayLike<number>, y: ArrayLike<number>, rows: ArrayLike<number>): [number, number] {
  const [a, b] = fitPlattFree(x, y, rows);
  if (!(a > MAX_SCALE)) return [a, b];
  return [MAX_SCALE, fitIntercept(x, y, rows, MAX_SCALE, b)];
}

/** The b maximising the likelihood of sigmoid(a x + b) for a fixed slope a (Newton's method from b0). */
function fitIntercept(x: ArrayLike<number>, y: ArrayLike<number>, rows: ArrayLike<number>, a: number, b0: number): number {
  let b = b0;
  for (let iter = 0; iter < 100; iter++) {
    let g = -1e-6 * b;
    let h = 1e-6;
    for (let k = 0; k < rows.length; k++) {
      const i = rows[k];
      const p = sigmoid(a * x[i] + b);
      g += y[i] - p;
      h += p * (1 - p);
    }
    const step = g / h;
    b += Math.max(-5, Math.min(5, step));
    if (Math.abs(step) < 1e-10) break;
  }
  return b;
}

function fitPlattFree(x: ArrayLike<number>, y: ArrayLike<number>, rows: ArrayLike<number>): [number, number] {
  // log-likelihood with a tiny ridge, which keeps a separable fold finite
  const loglik = (a: number, b: number): number => {
    let l = 0;
    for (let k = 0; k < rows.length; k++) {
      const i = rows[k];
      const z = a * x[i] + b;
      // log sigmoid(z) = -log(1 + e^-z), written stably
      // t log sigmoid(z) + (1 - t) log sigmoid(-z) for a target t in [0, 1], with log sigmoid(z) = -log(1 + e^-|z|) + min(0, z)
      const common = -Math.log1p(Math.exp(-Math.abs(z)));
      l += common + y[i] * Math.min(0, z) + (1 - y[i]) * Math.min(0, -z);
    }
    return l - 5e-7 * (a * a + b * b);
  };
  let a = 1;
  let b = 0;
  let current = loglik(a, b);
  for (let iter = 0; iter < 100; iter++) {
    let ga = -1e-6 * a;
    let gb = -1e-6 * b;
    let haa = 1e-6;
    let hab = 0;
    let hbb = 1e-6;
    for (let k = 0; k < rows.length; k++) {
      const i = rows[k];
      const p = sigmoid(a * x[i] + b);
      const r = y[i] - p;
      const w = p * (1 - p);
      ga += r * x[i];
      gb += r;
      haa += w * x[i] * x[i];
      hab += w * x[i];
      hbb += w;
    }
    const det = haa * hbb - hab * hab;
    if (!(det > 0)) break;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    let t = 1;
    let next = loglik(a + da, b + db);
    while (!(next >= current) && t > 1e-10) {
      t /= 2;
      next = loglik(a + t * da, b + t * db);
    }
    if (!(next >= current)) break;
    a += t * da;
    b += t * db;
    const gain = next - current;
    current = next;
    if (gain < 1e-12 * (1 + Math.abs(current))) break;
  }
  return [a, b];
}

/**
 * How much a calibration map may sharpen or soften: Platt's slope a and temperature scaling's 1 / T stay within
 * [1 / MAX_SCALE, MAX_SCALE]. On out-of-fold probabilities that separate the classes perfectly (180 images of three
 * digits: every configuration's cross-validated AUC 1) the likelihood grows without end as a map sharpens, and an
 * unbounded one drove every probability to the floor, so that the calibrated log loss of every configuration read the
 * floor (0.0056) instead of the data, and a mistake on new data cost -log(floor).
 */
export const MAX_SCALE = 5;
const INVERSE_TEMPERATURE = { min: 1 / MAX_SCALE, max: MAX_SCALE };

/**
 * The temperature T minimising the cross-entropy of softmax(log p / T) on `rows` against targets that put `own[i]` on
 * sample i's class `y[i]` (default 1: the likelihood of the class indices) and the rest equally on the other classes,
 * for n x K log-probabilities `logp`: Newton's method on s = 1 / T (the cross-entropy is convex in s), with step halving.
 */
export function fitTemperature(
  logp: Float64Array,
  y: ArrayLike<number>,
  K: number,
  rows: ArrayLike<number>,
  own?: ArrayLike<number>,
): number {
  const q = new Float64Array(K);
  /** the targets' mean of the log-probabilities of sample i (its row at o) */
  const targetMean = (i: number, o: number): number => {
    const t = own ? own[i] : 1;
    const mine = logp[o + y[i]];
    if (t === 1) return mine;
    let others = -mine;
    for (let c = 0; c < K; c++) others += logp[o + c];
    return t * mine + ((1 - t) * others) / (K - 1);
  };
  /** negative log-likelihood, its derivative and second derivative in s */
  const evaluate = (s: number): { f: number; g: number; h: number } => {
    let f = 0;
    let g = 0;
    let h = 0;
    for (let k = 0; k < rows.length; k++) {
      const o = rows[k] * K;
      let max = -Infinity;
      for (let c = 0; c < K; c++) max = Math.max(max, s * logp[o + c]);
      let sum = 0;
      for (let c = 0; c < K; c++) sum += q[c] = Math.exp(s * logp[o + c] - max);
      const target = targetMean(rows[k], o);
      f += max + Math.log(sum) - s * target;
      let m1 = 0;
      let m2 = 0;
      for (let c = 0; c < K; c++) {
        const w = q[c] / sum;
        m1 += w * logp[o + c];
        m2 += w * logp[o + c] * logp[o + c];
      }
      g += m1 - target;
      h += m2 - m1 * m1;
    }
    return { f, g, h };
  };
  let s = 1;
  let current = evaluate(s);
  for (let iter = 0; iter < 50; iter++) {
    if (!(current.h > 0)) break;
    const step = -current.g / current.h;
    let t = 1;
    let next = Math.min(INVERSE_TEMPERATURE.max, Math.max(INVERSE_TEMPERATURE.min, s + step));
    // each trial with its derivatives: the one accepted (nearly always the first) is the next step's start
    let trial = evaluate(next);
    while (!(trial.f <= current.f) && t > 1e-8) {
      t /= 2;
      next = Math.min(INVERSE_TEMPERATURE.max, Math.max(INVERSE_TEMPERATURE.min, s + t * step));
      trial = evaluate(next);
    }
    if (!(trial.f <= current.f)) break;
    const gain = current.f - trial.f;
    s = next;
    current = trial;
    if (gain < 1e-12 * (1 + Math.abs(trial.f)) || Math.abs(t * step) < 1e-10) break;
  }
  return 1 / s;
}

/**
 * Platt's targets: for each sample (of `rows`) of class c, (N_c + 1) / (N_c + 2), where N_c is the number of samples of
 * class c among `rows` counted once (each appears `copies` times); the rest of the target is spread equally over the
 * other classes (fitTemperature). With two classes these are Platt's (N+ + 1) / (N+ + 2) and 1 / (N- + 2) of the
 * positive class. An n-length array; rows not in `rows` are left at 1.
 */
export function calibrationTargets(y: ArrayLike<number>, K: number, rows: ArrayLike<number>, copies = 1): Float64Array {
  const counts = new Float64Array(K);
  for (let k = 0; k < rows.length; k++) counts[y[rows[k]]] += 1 / copies;
  const own = new Float64Array(y.length).fill(1);
  for (let k = 0; k < rows.length; k++) {
    const N = counts[y[rows[k]]];
    own[rows[k]] = (N + 1) / (N + 2);
  }
  return own;
}
