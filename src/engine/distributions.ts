/**
 * Log tail probabilities of the chi-square, Student t and F distributions, for the conditional-independence
 * tests of SES. They are computed in log space because the p-values of strong associations underflow as plain
 * numbers (p = 1e-400 is common on large data), and SES must still order them. Everything reduces to the
 * regularized incomplete gamma and beta functions, evaluated by their series / continued fractions
 * (Numerical Recipes, 3rd ed., 6.2 and 6.4) with the prefactor kept as a logarithm.
 */

const EPS = 1e-16;
const TINY = 1e-300;
const MAX_ITER = 100000;

// Lanczos approximation (g = 7, n = 9), relative error about 1e-15 for x > 0
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
  -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];
const HALF_LOG_2PI = 0.5 * Math.log(2 * Math.PI);

/** ln Gamma(x) for x > 0. */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const z = x - 1;
  let s = LANCZOS[0];
  for (let k = 1; k < 9; k++) s += LANCZOS[k] / (z + k);
  const t = z + 7.5;
  return HALF_LOG_2PI + (z + 0.5) * Math.log(t) - t + Math.log(s);
}

/** ln B(a, b). */
export function logBeta(a: number, b: number): number {
  return logGamma(a) + logGamma(b) - logGamma(a + b);
}

/** ln(1 - e^v) for v <= 0, accurate near both ends. */
function log1mExp(v: number): number {
  return v > -Math.LN2 ? Math.log(-Math.expm1(v)) : Math.log1p(-Math.exp(v));
}

/** ln Q(a, x), the regularized upper incomplete gamma function (Q = 1 - P). */
export function logGammaQ(a: number, x: number): number {
  if (!(x > 0)) return 0;
  if (x === Infinity) return -Infinity;
  const logFront = -x + a * Math.log(x) - logGamma(a);
  if (x < a + 1) {
    // series for P: e^-x x^a / Gamma(a + 1) * sum x^k / ((a + 1) ... (a + k))
    let term = 1 / a;
    let sum = term;
    for (let k = 1; k < MAX_ITER; k++) {
      term *= x / (a + k);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * EPS) break;
    }
    return log1mExp(Math.min(0, logFront + Math.log(sum)));
  }
  // continued fraction for Q (modified Lentz)
  let b = x + 1 - a;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < MAX_ITER; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPS) break;
  }
  return logFront + Math.log(h);
}

/** Continued fraction of the incomplete beta function (modified Lentz). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m < MAX_ITER; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPS) break;
  }
  return h;
}

/**
 * ln I_x(a, b), the regularized incomplete beta function. Takes x and y = 1 - x separately (with their logs) so
 * that callers can pass a y that was computed without cancellation (e.g. t^2 / (df + t^2)).
 */
function logBetaIncomplete(a: number, b: number, x: number, y: number, logX: number, logY: number): number {
  // x may underflow to 0 where its log is still finite (t = 1e200): only the logs decide
  if (logX === -Infinity) return -Infinity;
  if (logY === -Infinity) return 0;
  const logFront = a * logX + b * logY - logBeta(a, b);
  if (x < (a + 1) / (a + b + 2)) return logFront - Math.log(a) + Math.log(betaContinuedFraction(a, b, x));
  // I_x(a, b) = 1 - I_y(b, a), the continued fraction converges fast on this side
  return log1mExp(Math.min(0, logFront - Math.log(b) + Math.log(betaContinuedFraction(b, a, y))));
}

/** ln P(X > x) for X ~ chi-square with `df` degrees of freedom. */
export function logChiSquareSurvival(x: number, df: number): number {
  if (!(df > 0) || Number.isNaN(x)) return 0;
  return logGammaQ(df / 2, x / 2);
}

/** ln P(|T| > t) for T ~ Student t with `df` degrees of freedom (the two-sided p-value of t). */
export function logStudentTTwoSided(t: number, df: number): number {
  if (!(df > 0) || Number.isNaN(t)) return 0;
  const u = Math.abs(t);
  if (u === Infinity) return -Infinity;
  // x = df / (df + t^2), y = t^2 / (df + t^2); logs written so that t^2 may overflow
  const r = u / Math.sqrt(df);
  const logX = r > 1e150 ? -2 * Math.log(r) : -Math.log1p(r * r);
  const logY = r > 1e150 ? 0 : 2 * Math.log(r) + logX;
  return logBetaIncomplete(df / 2, 0.5, Math.exp(logX), Math.exp(logY), logX, logY);
}

/** ln P(F > f) for F ~ F(df1, df2). */
export function logFSurvival(f: number, df1: number, df2: number): number {
  if (!(df1 > 0) || !(df2 > 0) || !(f > 0)) return 0;
  if (f === Infinity) return -Infinity;
  // x = df2 / (df2 + df1 f), y = df1 f / (df2 + df1 f)
  const r = (df1 * f) / df2;
  const logX = r > 1e300 ? -Math.log(r) : -Math.log1p(r);
  const logY = r > 1e300 ? 0 : Math.log(r) + logX;
  return logBetaIncomplete(df2 / 2, df1 / 2, Math.exp(logX), Math.exp(logY), logX, logY);
}
