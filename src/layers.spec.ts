import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

/**
 * The layers of docs/architecture.md, top floor first. Each entry is a unit: a folder of src/
 * ("jobs/"), a file ("cli.ts"), or several joined by " + " that form one unit. A file may import the files of its
 * own unit and of the units on lower floors; the units of one floor do not import each other; and no files import
 * each other in a circle. A new folder or file of src/ must be placed here (and in the picture of docs/architecture.md).
 */
const FLOORS: string[][] = [
  ['main.ts', 'worker-main.ts', 'cli.ts'],
  ['app.ts + app.module.ts + bootstrap.ts + openapi/'],
  ['plots/', 'predictions/', 'image-upload/', 'reports/', 'metrics/'],
  ['analyses/'],
  ['datasets/'],
  ['projects/', 'health/'],
  ['jobs/', 'auth/'],
  ['database/'],
  ['common/', 'version.ts'],
  ['engine/', 'config/'],
];

const SRC = __dirname;

interface Unit {
  name: string;
  floor: number;
  paths: string[];
}

const UNITS: Unit[] = FLOORS.flatMap((units, i) =>
  units.map((name) => ({ name, floor: FLOORS.length - i, paths: name.split(' + ').map((p) => p.trim()) })),
);

/** The unit of a file (a path relative to src/, with '/'), or undefined. */
function unitOf(file: string, units: Unit[] = UNITS): Unit | undefined {
  return units.find((u) => u.paths.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p)));
}

/** Every TypeScript file under `dir` but tests, relative to src/. */
function sourceFiles(dir = SRC): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') ? [path.relative(SRC, full).split(path.sep).join('/')] : [];
  });
}

/** The files of src/ that `file` imports (import, import type, export ... from, require, import()), read by TypeScript's scanner. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(SRC, file), 'utf8');
  const out: string[] = [];
  for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
    if (!fileName.startsWith('.')) continue; // a package
    const target = path.resolve(SRC, path.dirname(file), fileName);
    const found = [`${target}.ts`, path.join(target, 'index.ts'), target].find((f) => fs.existsSync(f) && fs.statSync(f).isFile());
    if (!found) throw new Error(`${file} imports ${fileName}, which is no file`);
    const rel = path.relative(SRC, found).split(path.sep).join('/');
    if (!rel.startsWith('..')) out.push(rel); // outside src/: package.json, migrations/
  }
  return out;
}

type Graph = Map<string, string[]>;

/** The imports that break the rule, as "importer -> imported: why". */
function brokenImports(graph: Graph, units: Unit[] = UNITS): string[] {
  const broken: string[] = [];
  for (const [file, imported] of graph) {
    const from = unitOf(file, units);
    if (!from) {
      broken.push(`${file} is on no floor: place its folder in FLOORS (src/layers.spec.ts) and in docs/architecture.md's picture`);
      continue;
    }
    for (const target of imported) {
      const to = unitOf(target, units);
      if (!to || to === from || to.floor < from.floor) continue;
      const why = to.floor === from.floor ? 'a unit of the same floor' : 'a unit of a higher floor';
      broken.push(`${file} -> ${target}: ${from.name} imports ${to.name}, ${why}`);
    }
  }
  return broken;
}

/** Sets of files that import each other in a circle (Tarjan's strongly connected components of two files or more). */
function circles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the layers of src/ (docs/architecture.md)', () => {
  const graph: Graph = new Map(sourceFiles().map((f) => [f, importsOf(f)]));

  it('reads the whole of src/', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('main.ts')).toEqual(expect.arrayContaining(['app.ts', 'bootstrap.ts']));
  });

  it('has every import point down the floors', () => {
    expect(brokenImports(graph)).toEqual([]);
  });

  it('has no circle between files', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('names every unit once', () => {
    const paths = UNITS.flatMap((u) => u.paths);
    expect(paths.length).toBe(new Set(paths).size);
    for (const p of paths) expect(fs.existsSync(path.join(SRC, p))).toBe(true);
  });

  it('finds an import up a floor, between units of one floor, and a circle (the checks can fail)', () => {
    const units: Unit[] = [
      { name: 'top/', floor: 3, paths: ['top/'] },
      { name: 'left/', floor: 2, paths: ['left/'] },
      { name: 'right/', floor: 2, paths: ['right/'] },
      { name: 'ground/', floor: 1, paths: ['ground/'] },
    ];
    const small: Graph = new Map([
      ['top/a.ts', ['left/b.ts', 'ground/d.ts']],
      ['left/b.ts', ['right/c.ts']],
      ['right/c.ts', []],
      ['ground/d.ts', ['top/a.ts']],
      ['stray.ts', []],
    ]);
    expect(brokenImports(small, units)).toEqual([
      'left/b.ts -> right/c.ts: left/ imports right/, a unit of the same floor',
      'ground/d.ts -> top/a.ts: ground/ imports top/, a unit of a higher floor',
      "stray.ts is on no floor: place its folder in FLOORS (src/layers.spec.ts) and in docs/architecture.md's picture",
    ]);
    expect(circles(small)).toEqual([['ground/d.ts', 'top/a.ts']]);
  });
});
