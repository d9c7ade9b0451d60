import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

// Every worker-thread script runs in a thread (or an engine process) of its own, which loads its imports afresh:
// TypeORM alone is 354 modules and ~0.25 s of CPU there, which a thread that only parses, computes or COPYs never
// needs. Each compiled script (dist/: npm test builds first) is loaded in a fresh process and its modules counted.
const root = path.resolve(__dirname, '..', '..');
function workerScripts(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) return workerScripts(file);
    return e.name.endsWith('.worker.ts') || e.name === 'engine-host.ts' ? [file] : [];
  });
}

/** The modules a script loads (its top-level imports; running it without a parent thread fails after them, quietly). */
function loadedModules(script: string): string[] {
  // every module file loaded, kept even when loading it failed (which drops it from require.cache)
  const probe = `
    const Module = require('node:module'); const loaded = []; const load = Module.prototype.load;
    Module.prototype.load = function (file) { loaded.push(file); return load.apply(this, arguments); };
    process.on('uncaughtException', () => {}); process.on('unhandledRejection', () => {});
    try { require(${JSON.stringify(script)}); } catch {}
    setImmediate(() => { console.log(JSON.stringify(loaded)); process.exit(0); });`;
  const run = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8', timeout: 30_000 });
  return JSON.parse(run.stdout.trim().split('\n').pop() ?? '[]') as string[];
}

describe('worker-thread scripts', () => {
  const scripts = workerScripts(path.join(root, 'src')).map((file) =>
    path.join(root, 'dist', path.relative(root, file)).replace(/\.ts$/, '.js'),
  );

  it('are found (the engine, the datasets and the image-upload threads among them)', () => {
    const names = scripts.map((s) => path.basename(s));
    expect(names).toEqual(
      expect.arrayContaining([
        'analysis.worker.js',
        'table-parser.worker.js',
        'stored-file.worker.js',
        'image-features.worker.js',
        'engine-host.js',
      ]),
    );
  });

  it.each(workerScripts(path.join(root, 'src')).map((f) => path.relative(root, f)))('%s loads neither TypeORM nor Nest', (rel) => {
    const modules = loadedModules(path.join(root, 'dist', rel).replace(/\.ts$/, '.js'));
    // the script itself was loaded (else the check below would pass for nothing)
    expect(modules.some((m) => m.endsWith(path.basename(rel).replace(/\.ts$/, '.js')))).toBe(true);
    expect(modules.filter((m) => m.includes(`${path.sep}typeorm${path.sep}`) || m.includes(`${path.sep}@nestjs${path.sep}`))).toEqual([]);
  });
});
