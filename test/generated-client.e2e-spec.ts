import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import type { AnalysisResult, Dataset, PlotOne, PredictionResult } from '../clients/typescript/src/client';
import { freePort } from './free-port';
import { createTestApp, createUser, TEST_DATA, TestApp } from './utils';

/**
 * A client generated from the served OpenAPI document by a third-party generator this repository does not
 * otherwise use (@hey-api/openapi-ts: functions per operation over its own fetch client) runs the journey
 * against the real app: login, upload, dataset, analysis waited for, result, plot, prediction waited for, its
 * rows. The generated code and the journey below are type-checked together (a journey that does not fit the
 * generated types fails to compile), then loaded and run. Nothing generated is committed: it all goes to a
 * temporary folder.
 */
// its package exports no path to the command line: the devDependency's bin, where npm ci puts it
const GENERATOR = path.resolve(__dirname, '..', 'node_modules', '@hey-api', 'openapi-ts', 'bin', 'run.js');

/** The journey, written against the generated SDK as a user of that generator would write it. */
const JOURNEY = `
import { client } from './sdk/client.gen';
import * as sdk from './sdk/sdk.gen';
import type { ErrorEnvelope } from './sdk/types.gen';

/** The payload of a success envelope; an Error with the code for an error envelope or another HTTP status. */
function payload<P>(what: string, answer: { data?: { status: 'success'; payload: P } | ErrorEnvelope; response?: Response }): P {
  const body = answer.data;
  if (!body) throw new Error(what + ': HTTP ' + String(answer.response?.status));
  if (body.status === 'error') throw new Error(what + ': ' + body.code + ': ' + body.message);
  return body.payload;
}

async function waitUntilDone<S extends { state: string; error?: { code: string } }>(what: string, read: () => Promise<S>): Promise<S> {
  for (let i = 0; i < 600; i++) {
    const status = await read();
    if (status.state === 'finished') return status;
    if (status.state === 'failed') throw new Error(what + ' failed: ' + status.error?.code);
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(what + ' did not finish');
}

export async function journey(baseUrl: string, username: string, password: string, csv: string) {
  let token = '';
  client.setConfig({ baseUrl, auth: () => token });
  token = payload('login', await sdk.authLogin({ body: { usernameOrEmail: username, password } })).token;
  const { projectId } = payload('createProject', await sdk.projectsCreate({ body: { name: 'generated client' } }));
  const uploaded = payload('upload', await sdk.datasetsUpload({ path: { fileId: 'iris.csv' }, body: new Blob([csv]) }));
  const { taskId } = payload(
    'createDataset',
    await sdk.datasetsCreateDataset({
      path: { fileId: 'iris.csv' },
      body: { projectId, name: 'iris', fileSizeInBytes: uploaded.sizeInBytes },
    }),
  );
  const task = await waitUntilDone('task', async () => payload('task status', await sdk.datasetsTaskStatus({ path: { taskId } })));
  const dataset = payload('dataset', await sdk.datasetsGet({ path: { datasetId: task.datasetId as string } }));
  const { analysisId } = payload(
    'analyze',
    await sdk.analysesAnalyze({
      path: { datasetId: dataset.datasetId },
      body: { name: 'species', outcome: { classification: 'species' }, thoroughness: 'preliminary', coreCount: 1 },
    }),
  );
  await waitUntilDone('analysis', async () => payload('analysis status', await sdk.analysesStatus({ path: { analysisId } })));
  const result = payload('result', await sdk.analysesResult({ path: { analysisId } }));
  const { plots } = payload('plots', await sdk.plotsAvailableByQuery({ path: { analysisId }, query: { modelKey: 'best' } }));
  const { plot } = payload('plot', await sdk.plotsPlotByQuery({ path: { analysisId }, query: { modelKey: 'best', plotKey: plots[0] } }));
  const { predictionId } = payload(
    'predict',
    await sdk.predictionsCreate({ path: { analysisId, datasetId: dataset.datasetId }, body: { modelKey: 'best' } }),
  );
  await waitUntilDone('prediction', async () => payload('prediction status', await sdk.predictionsStatus({ path: { predictionId } })));
  const predicted = payload('prediction result', await sdk.predictionsResult({ path: { predictionId } }));
  const unknown = await sdk.analysesResult({ path: { analysisId: '999999' } });
  return { dataset, result, plots, plot, predicted, unknown: unknown.data };
}
`;

/** What the journey returns, typed from the TypeScript client's copy of the same document. */
type Journey = (
  url: string,
  username: string,
  password: string,
  csv: string,
) => Promise<{
  dataset: Dataset;
  result: AnalysisResult;
  plots: string[];
  plot: PlotOne['plot'];
  predicted: PredictionResult;
  unknown: unknown;
}>;

/** Type-checks and compiles every .ts file of `dir` to CommonJS beside it; the compiler's complaints, if any. */
function compile(dir: string): string[] {
  const files = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  const program = ts.createProgram(
    files.map((f) => path.join(dir, f)),
    {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
      strict: true,
      skipLibCheck: true,
      outDir: dir,
      rootDir: dir,
    },
  );
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...program.emit().diagnostics];
  return diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('a client generated by @hey-api/openapi-ts from the served document', () => {
  let t: TestApp;
  let url: string;
  let dir: string;

  beforeAll(async () => {
    t = await createTestApp();
    const port = await freePort();
    await t.app.listen(port, '127.0.0.1');
    url = `http://127.0.0.1:${port}`;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-generated-'));
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('generates, compiles with the journey, and runs it: login, upload, dataset, analysis, result, plot, prediction', async () => {
    const { username } = await createUser(t, 'genuser');
    // generated from the document the running service serves
    await promisify(execFile)(process.execPath, [GENERATOR, '-i', `${url}/api/public/v1/openapi.json`, '-o', path.join(dir, 'sdk')], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1' },
    });
    const sdk = fs.readFileSync(path.join(dir, 'sdk', 'sdk.gen.ts'), 'utf8');
    // one function per operation, named by its operationId
    expect(sdk).toContain('export const analysesResult = ');
    expect(sdk).toContain('export const imageUploadAdd = ');
    const types = fs.readFileSync(path.join(dir, 'sdk', 'types.gen.ts'), 'utf8');
    // the answers are the document's named schemas, not anonymous unions
    expect(types).toContain('export type AnalysisResultResponse = AnalysisResultSuccess | ErrorEnvelope;');
    expect(types).toMatch(/200: AnalysisResultResponse;/);

    fs.writeFileSync(path.join(dir, 'journey.ts'), JOURNEY);
    expect(compile(dir)).toEqual([]);

    const { journey } = (await import(path.join(dir, 'journey.js'))) as { journey: Journey };
    const out = await journey(url, username, `password-${username}`, fs.readFileSync(path.join(TEST_DATA, 'iris.csv'), 'utf8'));
    expect(out.dataset).toMatchObject({ name: 'iris', sampleCount: 150, featureCount: 5 });
    const best = out.result.models.best;
    expect(best.signatures[0].length).toBeGreaterThan(0);
    expect(best.performance).toEqual(expect.objectContaining({ Accuracy: expect.any(Number) }));
    expect(out.plots).toEqual(expect.arrayContaining(['Feature Importance']));
    expect(out.plot[out.plots[0] as keyof PlotOne['plot']]).toEqual(expect.any(Array));
    expect(out.predicted.predictions).toHaveLength(150);
    expect(out.predicted.predictions[0]).toMatchObject({ row: 0, prediction: expect.any(String) });
    // an error envelope reaches the generated client as the typed ErrorEnvelope
    expect(out.unknown).toEqual({ status: 'error', code: 'notFound-120-2-1', message: expect.any(String) });
  }, 180_000);
});
