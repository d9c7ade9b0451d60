/** How the report writes numbers: the same function for a value wherever it appears (text, tables, chart titles). */

const DASH = '\u2013';
const MINUS = '\u2212';

/** A number with about three significant decimals: 0.973, 12.35, 1234; tiny and huge ones in exponent form. */
export function num(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return 'n/a';
  if (!Number.isFinite(value)) return value > 0 ? '\u221e' : `${MINUS}\u221e`;
  const a = Math.abs(value);
  let s: string;
  if (a === 0) s = '0';
  else if (a >= 1e6 || a < 1e-3) s = value.toExponential(2);
  else if (a >= 1000) s = value.toFixed(0);
  else if (a >= 100) s = value.toFixed(1);
  else if (a >= 10) s = value.toFixed(2);
  else s = value.toFixed(3);
  // -0.000 and the like read as 0
  if (/^-0(\.0+)?$/.test(s)) s = s.slice(1);
  return s.replace(/^-/, MINUS);
}

/** A fraction as a percentage: 0.9731 -> 97.3%. */
export function pct(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return 'n/a';
  const s = (value * 100).toFixed(digits);
  return `${/^-0(\.0+)?$/.test(s) ? s.slice(1) : s.replace(/^-/, MINUS)}%`;
}

/** A 95% interval: 0.951–0.989 (with the formatter of its value). */
export function interval(cis: readonly [number, number] | undefined, format: (v: number) => string = num): string {
  if (!cis) return 'n/a';
  return `${format(cis[0])}${DASH}${format(cis[1])}`;
}

/** A p-value as journals write it: p < 0.001, else three decimals. */
export function pValue(p: number): string {
  if (!Number.isFinite(p)) return 'n/a';
  return p < 0.001 ? '< 0.001' : num(p);
}

/** A whole count, its thousands grouped: 12,345 (by hand: Intl's first call costs tens of milliseconds). */
export function count(n: number): string {
  return Number.isFinite(n) ? String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : 'n/a';
}

/** A duration in seconds as people say it: 48 s, 3 min 12 s, 2 h 05 min. */
export function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return 'n/a';
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m} min ${String(Math.round(seconds % 60)).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** A timestamp in UTC, to the minute: 2026-11-26 20:28 UTC. */
export function timestamp(iso: string | Date): string {
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  if (Number.isNaN(d.getTime())) return 'n/a';
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
