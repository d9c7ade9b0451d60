// Builds the package (dist/) when it is installed: by `npm ci` here, `npm pack`, or `npm install <this folder>`
// in another project. The last links this folder without installing its dependencies, so the compiler and the
// types it needs are then installed here first, from the lock file (`npm ci`), before compiling.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const dir = path.resolve(__dirname, '..');
const NEEDED = ['typescript', '@types/node', 'openapi-fetch'];
const missing = NEEDED.filter((name) => !fs.existsSync(path.join(dir, 'node_modules', name, 'package.json')));

if (missing.length) {
  // the npm that runs this script; its lifecycle passes the outer command's settings as npm_config_* variables,
  // and those that say where or what to install (prefix, global, omit=dev...) must not steer this install
  const npm = process.env.npm_execpath;
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^npm_config_(prefix|global|location|omit|include|production|only|save.*|install_links|workspaces?|include_workspace_root|ignore_scripts|package_lock.*|dry_run)$/i.test(key)) delete env[key];
  }
  process.stderr.write(`@signet/client: installing ${missing.join(', ')} in ${dir} to build it\n`);
  const args = ['ci', '--include=dev', '--ignore-scripts', '--no-audit', '--no-fund'];
  if (npm && /\.[cm]?js$/.test(npm)) execFileSync(process.execPath, [npm, ...args], { cwd: dir, env, stdio: 'inherit' });
  else execFileSync(npm || 'npm', args, { cwd: dir, env, stdio: 'inherit', shell: process.platform === 'win32' });
}

execFileSync(process.execPath, [require.resolve('typescript/bin/tsc', { paths: [dir] }), '-p', 'tsconfig.build.json'], {
  cwd: dir,
  stdio: 'inherit',
});
