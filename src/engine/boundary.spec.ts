import * as fs from 'node:fs';
import * as path from 'node:path';

// The engine is a plain library (src/engine/README.md): nothing it loads may bring in Nest, the database or HTTP, and it
// imports no file of the service (src/layers.spec.ts holds every layer to that; the CSV reading its tests and
// benchmarks need is in bench/csv-dataset.ts). This follows every relative import from the engine's entry points
// to the packages at the end of the graph.
const FORBIDDEN = /^(@nestjs\/|typeorm$|pg$|express$|multer$|class-validator$|class-transformer$|reflect-metadata$|rxjs$)/;
const IMPORT = /(?:^|\n)\s*(?:import|export)\s(?:[^'";]*?\sfrom\s)?['"]([^'"]+)['"]|\brequire\(\s*['"]([^'"]+)['"]\s*\)/g;

function resolve(from: string, spec: string): string {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) if (fs.existsSync(candidate)) return candidate;
  throw new Error(`cannot resolve ${spec} from ${from}`);
}

/** Every file reached from `entries` by relative imports, and every package they import. */
function importGraph(entries: string[]): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    // `import type` is erased at compile time: it loads nothing
    const source = fs.readFileSync(file, 'utf8').replace(/(?:^|\n)\s*(?:import|export) type [^;]*;/g, '');
    for (const m of source.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      if (spec.startsWith('.')) visit(resolve(file, spec));
      else packages.add(spec);
    }
  };
  entries.forEach(visit);
  return { files, packages };
}

describe('the engine', () => {
  const { files, packages } = importGraph([path.join(__dirname, 'index.ts'), path.join(__dirname, 'worker.ts')]);

  it('loads no Nest, database or HTTP package, and no file outside src/engine', () => {
    expect([...packages].filter((p) => FORBIDDEN.test(p))).toEqual([]);
    expect([...files].filter((f) => !f.startsWith(__dirname + path.sep))).toEqual([]);
    // the walk did follow the engine's graph to its packages and through its folders
    expect(packages.has('ml-matrix')).toBe(true);
    expect([...files].some((f) => f.endsWith(path.join('lasso', 'selector.ts')))).toBe(true);
  });

  it('imports no Nest-facing file (controllers, services, modules, entities)', () => {
    expect([...files].filter((f) => /\.(controller|service|module|entity|guard|filter)\.ts$/.test(f))).toEqual([]);
  });
});
