import * as fs from 'node:fs';
import * as path from 'node:path';
import { ERROR_CODES } from '../src/common/error-codes';

/** The README's error table must list exactly the codes of src/common/error-codes.ts, with their conditions. */
export function errorTable(): string {
  const rows = Object.entries(ERROR_CODES).map(([code, condition]) => `| \`${code}\` | ${condition} |`);
  return ['| code | condition |', '|---|---|', ...rows].join('\n');
}

describe('README', () => {
  const readme = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');

  it('lists every error code with its condition', () => {
    const m = /<!-- error-codes:start -->\n([\s\S]*?)\n<!-- error-codes:end -->/.exec(readme);
    expect(m?.[1]).toBe(errorTable());
  });

  it('documents every environment variable the config reads', () => {
    const source = fs.readFileSync(path.join(__dirname, '..', 'src', 'config', 'config.ts'), 'utf8');
    const vars = new Set([...source.matchAll(/env(?:\.|, ')([A-Z_]{3,})/g)].map((x) => x[1]));
    expect(vars.size).toBeGreaterThan(10);
    const missing = [...vars].filter((v) => !readme.includes(`\`${v}\``));
    expect(missing).toEqual([]);
  });
});
