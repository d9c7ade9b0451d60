/** Cells a spreadsheet would run as a formula: OWASP's list of leading characters. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A finite number written the way String(number) writes it (e.g. -0.25, 1e-7): safe as it is. */
const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * One CSV cell: quoted when it holds a quote, comma or line break (RFC 4180), and, when it is text
 * that a spreadsheet would read as a formula (`=cmd|calc!A1`, `@SUM(...)`, `-1+1`), prefixed with a
 * single quote (OWASP's CSV injection rule). Numbers, negative ones included, are left as they are.
 */
export function csvCell(value: unknown): string {
  let s = cellText(value);
  if (typeof value !== 'number' && FORMULA_START.test(s) && !NUMBER.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}
