import * as fs from 'node:fs';
import * as path from 'node:path';
import { ERROR_CODES } from '../src/common/error-codes';

const ROOT = path.resolve(__dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

/** The API guide's error table must list exactly the codes of src/common/error-codes.ts, with their conditions. */
export function errorTable(): string {
  const rows = Object.entries(ERROR_CODES).map(([code, condition]) => `| \`${code}\` | ${condition} |`);
  return ['| code | condition |', '|---|---|', ...rows].join('\n');
}

/** The README and the pages of docs/, by path from the repository's root. */
function pages(): string[] {
  return [
    'README.md',
    ...fs
      .readdirSync(path.join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = read(file).replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1])));
}

/** Every file of the repository's own code, configuration and scripts (not its dependencies, builds or outputs). */
function sourceFiles(dir = ROOT): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (['node_modules', 'dist', '.git', '.data', 'test-output', 'coverage', 'docs'].includes(e.name) || e.name.startsWith('.')) return [];
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return /\.(ts|js|mjs|py|ya?ml|R|sh)$|^Dockerfile$/.test(e.name) ? [full] : [];
  });
}

describe('the documentation', () => {
  it('README: at most about 150 lines, linking every page of docs/', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(150);
    for (const page of pages().filter((p) => p !== 'README.md')) expect(readme).toContain(`(${page})`);
  });

  it('lists every error code with its condition (docs/api-guide.md)', () => {
    const m = /<!-- error-codes:start -->\n([\s\S]*?)\n<!-- error-codes:end -->/.exec(read('docs/api-guide.md'));
    expect(m?.[1]).toBe(errorTable());
  });

  it('documents every environment variable the config reads (docs/operators.md)', () => {
    const source = read('src/config/config.ts');
    const vars = new Set([...source.matchAll(/env(?:\.|, ')([A-Z_]{3,})/g)].map((x) => x[1]));
    expect(vars.size).toBeGreaterThan(10);
    const operators = read('docs/operators.md');
    expect([...vars].filter((v) => !operators.includes(`| \`${v}\` |`))).toEqual([]);
  });

  it('has no link that leads nowhere: every relative link names a file of the repository, and its anchor a heading there', () => {
    const broken: string[] = [];
    for (const page of pages()) {
      const text = read(page).replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue; // http:, https:, mailto:
        const [file, anchor] = target.split('#');
        const resolved = file ? path.normalize(path.join(path.dirname(page), file)) : page;
        if (!fs.existsSync(path.join(ROOT, resolved))) broken.push(`${page}: ${target} (no file ${resolved})`);
        else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor))
          broken.push(`${page}: ${target} (no heading #${anchor})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('no file of the repository cites a Markdown file it lacks', () => {
    const missing: string[] = [];
    for (const file of sourceFiles()) {
      for (const [cited] of fs.readFileSync(file, 'utf8').matchAll(/[\w./-]*[\w-]+\.md\b/g)) {
        const candidates = [path.join(ROOT, cited), path.join(path.dirname(file), cited)];
        if (!candidates.some((c) => fs.existsSync(c))) missing.push(`${path.relative(ROOT, file)}: ${cited}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
