// Deletes build outputs whose TypeScript source is gone (a file moved or removed), before `tsc -b` builds:
// tsc never deletes them, and Node would load a stale dist/src/engine/lasso.js ahead of the new
// dist/src/engine/lasso/index.js after an update of an existing checkout.
//   node tools/clean-stale-build.js
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const dist = path.join(root, 'dist');
const OUTPUT = /\.(js|js\.map|d\.ts|d\.ts\.map)$/;

function sweep(dir) {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      sweep(file);
      if (fs.readdirSync(file).length === 0) fs.rmdirSync(file);
      continue;
    }
    if (!OUTPUT.test(entry.name)) continue;
    const source = path.join(root, path.relative(dist, file)).replace(OUTPUT, '.ts');
    if (!fs.existsSync(source)) fs.rmSync(file);
  }
}

for (const top of ['src', 'bench', 'migrations']) sweep(path.join(dist, top));
