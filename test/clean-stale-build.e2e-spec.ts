import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist', 'src');

describe('tools/clean-stale-build.js (run by npm run build, start and worker)', () => {
  it('deletes the outputs of sources that are gone, and nothing else', () => {
    // a file moved into a folder of the same name leaves its old output behind, which Node would load first
    const staleFile = path.join(DIST, 'stale-probe-of-a-moved-module.js');
    const staleDir = path.join(DIST, 'stale-probe-folder');
    fs.writeFileSync(staleFile, 'module.exports = 1;\n');
    fs.writeFileSync(`${staleFile}.map`, '{}');
    fs.mkdirSync(staleDir, { recursive: true });
    fs.writeFileSync(path.join(staleDir, 'index.js'), 'module.exports = 2;\n');
    const kept = path.join(DIST, 'main.js');
    expect(fs.existsSync(kept)).toBe(true);
    execFileSync(process.execPath, [path.join(ROOT, 'tools', 'clean-stale-build.js')]);
    expect(fs.existsSync(staleFile)).toBe(false);
    expect(fs.existsSync(`${staleFile}.map`)).toBe(false);
    expect(fs.existsSync(staleDir)).toBe(false);
    expect(fs.existsSync(kept)).toBe(true);
    expect(fs.existsSync(path.join(DIST, 'engine', 'lasso', 'index.js'))).toBe(true);
  });
});
