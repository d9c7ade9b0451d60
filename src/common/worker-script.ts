import * as path from 'node:path';

/**
 * The compiled script of a worker-thread module. Jest runs the TypeScript sources, but worker threads
 * need JavaScript: from a .ts file, point at its build in dist/ (`npm test` builds before running).
 */
export function workerScript(dirname: string, filename: string, basename: string): string {
  if (filename.endsWith('.ts')) {
    const rel = path.relative(path.resolve(__dirname, '..', '..'), dirname);
    return path.resolve(__dirname, '..', '..', 'dist', rel, `${basename}.js`);
  }
  return path.join(dirname, `${basename}.js`);
}
