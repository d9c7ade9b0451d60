import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { freePort } from './free-port';
import { createTestApp, createUser, TEST_DATA, TestApp } from './utils';

/**
 * The TypeScript client as a dependency of another project, as a user installs it: `npm install <folder>` (which
 * links the folder and builds it on install) and `npm install <tarball of npm pack>`, each in a new empty project;
 * then a program of that project, type-checked against the installed package's types, runs the journey against
 * the real app in a process of its own. The client's folder is copied to a temporary one first (without its
 * node_modules and dist, as a fresh clone has it), so the repository's tree is left as it is. npm reads packages
 * from its cache when it has them (--prefer-offline) and from the registry otherwise.
 */
const ROOT = path.resolve(__dirname, '..');
const CLIENT = path.join(ROOT, 'clients', 'typescript');
const run = promisify(execFile);

/** The environment of a user's shell: without the npm_* variables of the npm that runs these tests (its prefix, its lifecycle). */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_UPDATE_NOTIFIER: '1' };
  for (const key of Object.keys(env)) if (/^npm_/i.test(key) && !/^npm_config_(cache|registry|userconfig)$/i.test(key)) delete env[key];
  return env;
}

async function npm(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd,
    env: userEnv(),
    maxBuffer: 1 << 24,
  });
  return stdout;
}

/** A new empty project in `dir`. */
function project(dir: string): string {
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: path.basename(dir), version: '1.0.0', private: true }));
  return dir;
}

/** A program of the consuming project, written as its user would (imports the package by its name). */
const CONSUMER = `
import { SignetClient, SignetError, SignetNetworkError, type AnalysisResult } from '@signet/client';

async function main(): Promise<void> {
  const [url, username, password, csv, deadUrl] = process.argv.slice(2);
  const client = new SignetClient(url);
  await client.login(username, password);
  const projectId = await client.createProject('installed client');
  const dataset = await client.uploadDataset(projectId, csv, 'iris');
  const analysisId = await client.analyze(dataset.datasetId, {
    name: 'species',
    outcome: { classification: 'species' },
    thoroughness: 'preliminary',
    coreCount: 1,
  });
  await client.waitForAnalysis(analysisId, { intervalMs: 200 });
  const result: AnalysisResult = await client.analysisResult(analysisId);
  const plots = await client.availablePlots(analysisId, 'best');
  const { plot } = await client.plot(analysisId, 'best', plots[0]);
  const predictionId = await client.predict(analysisId, dataset.datasetId, 'best');
  await client.waitForPrediction(predictionId, { intervalMs: 200 });
  const { predictions } = await client.predictionResult(predictionId);
  const refused = await new SignetClient(deadUrl).version().catch((e: unknown) => e);
  const unknown = await client.getDataset('999999').catch((e: unknown) => e);
  await client.logout();
  console.log(
    JSON.stringify({
      dataset,
      model: result.models.best.model,
      plots,
      plotted: Object.keys(plot),
      predictions: predictions.length,
      refused: refused instanceof SignetNetworkError ? refused.reason : String(refused),
      unknown: unknown instanceof SignetError ? unknown.code : String(unknown),
    }),
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
`;

/** Type-checks `file` as the consuming project's TypeScript would (Node's resolution, through the package's exports) and compiles it beside. */
function compile(file: string): string[] {
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: true,
    // a Node project's types (fetch, Response, FormData are globals there)
    types: ['node'],
    typeRoots: [path.join(ROOT, 'node_modules', '@types')],
  });
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...program.emit().diagnostics];
  return diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('the TypeScript client installed in another project', () => {
  let t: TestApp;
  let url: string;
  let tmp: string;
  let copy: string;

  beforeAll(async () => {
    t = await createTestApp();
    const port = await freePort();
    await t.app.listen(port, '127.0.0.1');
    url = `http://127.0.0.1:${port}`;
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-client-package-'));
    copy = path.join(tmp, 'signet-client');
    fs.cpSync(CLIENT, copy, { recursive: true, filter: (src) => !/[\\/](node_modules|dist)$/.test(src) });
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('installs from its folder: npm builds it (installing its compiler first) and require finds it', async () => {
    const a = project(path.join(tmp, 'from-folder'));
    await npm(a, 'install', copy);
    expect(fs.existsSync(path.join(copy, 'dist', 'src', 'index.d.ts'))).toBe(true);
    const { stdout } = await run(process.execPath, ['-e', "console.log(Object.keys(require('@signet/client')).sort().join(' '))"], {
      cwd: a,
    });
    expect(stdout.trim()).toBe('OPERATION_METHODS SignetClient SignetError SignetNetworkError');

    // its types are generated: the committed src/schema.ts is what its generator (installed with it) writes from the
    // document the service serves, as `npm run generate` there does
    const generated = path.join(tmp, 'schema.ts');
    const generator = path.join(copy, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
    await run(process.execPath, [generator, `${url}/api/public/v1/openapi.json`, '--default-non-nullable', 'false', '--output', generated]);
    const wanted = fs.readFileSync(generated, 'utf8');
    expect(fs.readFileSync(path.join(CLIENT, 'src', 'schema.ts'), 'utf8') === wanted).toBe(true);
  }, 240_000);

  it('installs from the tarball of npm pack and runs the journey in a program of that project', async () => {
    await npm(copy, 'pack', '--pack-destination', tmp);
    const tarball = path.join(tmp, 'signet-client-0.1.0.tgz');
    const listed = (await run('tar', ['-tzf', tarball])).stdout.split('\n').filter(Boolean).sort();
    expect(listed).toEqual(expect.arrayContaining(['package/dist/src/index.js', 'package/dist/src/index.d.ts', 'package/package.json']));
    // the package holds the built client and its source, not the build tooling or the examples
    expect(listed.filter((f) => !/^package\/(dist\/src|src)\/[\w.]+$|^package\/package\.json$/.test(f))).toEqual([]);

    const b = project(path.join(tmp, 'from-tarball'));
    await npm(b, 'install', tarball);
    expect(fs.existsSync(path.join(b, 'node_modules', 'openapi-fetch', 'package.json'))).toBe(true);
    // an ES module imports it by name too
    const esm = await run(
      process.execPath,
      ['--input-type=module', '-e', "import { SignetClient } from '@signet/client'; console.log(typeof SignetClient)"],
      {
        cwd: b,
      },
    );
    expect(esm.stdout.trim()).toBe('function');

    fs.writeFileSync(path.join(b, 'journey.ts'), CONSUMER);
    expect(compile(path.join(b, 'journey.ts'))).toEqual([]);
    const { username } = await createUser(t, 'pkguser');
    const dead = `http://127.0.0.1:${await freePort()}`;
    const { stdout } = await run(
      process.execPath,
      ['journey.js', url, username, `password-${username}`, path.join(TEST_DATA, 'iris.csv'), dead],
      { cwd: b, timeout: 150_000 },
    );
    const out = JSON.parse(stdout);
    expect(out.dataset).toMatchObject({ name: 'iris', sampleCount: 150, featureCount: 5 });
    expect(out.model).toEqual(expect.any(String));
    expect(out.plots).toEqual(expect.arrayContaining(['Feature Importance']));
    expect(out.plotted).toEqual([out.plots[0]]);
    expect(out.predictions).toBe(150);
    expect(out.refused).toBe('refused');
    expect(out.unknown).toBe('notFound-110-1-1');
  }, 240_000);
});
