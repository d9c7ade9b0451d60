import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

/**
 * The size bounds of docs/architecture.md: no file of src/ (tests included) over MAX_FILE_LINES lines,
 * no function over MAX_FUNCTION_LINES (a function's lines count those of the functions inside it). What breaks one
 * is split by what it does, its bodies moved, not squeezed.
 */
const MAX_FILE_LINES = 500;
const MAX_FUNCTION_LINES = 150;

const SRC = __dirname;

/** Every TypeScript file under `dir`, relative to src/. */
function typeScriptFiles(dir = SRC): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return typeScriptFiles(full);
    return e.name.endsWith('.ts') ? [path.relative(SRC, full).split(path.sep).join('/')] : [];
  });
}

interface Sized {
  /** "file:line name" */
  where: string;
  lines: number;
}

/** The lines of a file's text (a last line without its newline counts). */
function lineCount(text: string): number {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** Every function with a body in `text` (declarations, methods, constructors, accessors, expressions, arrows) and its lines. */
function functionsOf(file: string, text: string): Sized[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const line = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const out: Sized[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const named = node.name ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name : undefined);
      const name = ts.isConstructorDeclaration(node) ? 'constructor' : named ? named.getText(source) : '(anonymous)';
      const start = line(node.getStart(source));
      out.push({ where: `${file}:${start} ${name}`, lines: line(node.end) - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function over(sized: Sized[], max: number): string[] {
  return sized.filter((s) => s.lines > max).map((s) => `${s.where}: ${s.lines} lines`);
}

describe('the size of what src/ holds', () => {
  const files = typeScriptFiles().map((file) => ({ file, text: fs.readFileSync(path.join(SRC, file), 'utf8') }));

  it(`has no file over ${MAX_FILE_LINES} lines`, () => {
    expect(files.length).toBeGreaterThan(100);
    expect(
      over(
        files.map(({ file, text }) => ({ where: file, lines: lineCount(text) })),
        MAX_FILE_LINES,
      ),
    ).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    const functions = files.flatMap(({ file, text }) => functionsOf(file, text));
    expect(functions.length).toBeGreaterThan(1000);
    expect(over(functions, MAX_FUNCTION_LINES)).toEqual([]);
  });

  it('measures every kind of function, the functions inside it too (the check can fail)', () => {
    const text = [
      'function a() {',
      '  const b = () => {',
      '    return 1;',
      '  };',
      '  return b();',
      '}',
      'class C {',
      '  constructor() {}',
      '  get d() { return 1; }',
      '  e(): void {',
      '    void function () {};',
      '  }',
      '}',
      'const f = function () {',
      '};',
      'declare function g(): void;',
      '',
    ].join('\n');
    expect(lineCount(text)).toBe(16);
    expect(functionsOf('x.ts', text)).toEqual([
      { where: 'x.ts:1 a', lines: 6 },
      { where: 'x.ts:2 b', lines: 3 },
      { where: 'x.ts:8 constructor', lines: 1 },
      { where: 'x.ts:9 d', lines: 1 },
      { where: 'x.ts:10 e', lines: 3 },
      { where: 'x.ts:11 (anonymous)', lines: 1 },
      { where: 'x.ts:14 f', lines: 2 },
    ]);
    expect(over(functionsOf('x.ts', text), 2)).toEqual(['x.ts:1 a: 6 lines', 'x.ts:2 b: 3 lines', 'x.ts:10 e: 3 lines']);
  });
});
