import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Jimp } from 'jimp';
import { OPERATION_METHODS, SignetClient, SignetError, SignetNetworkError } from '../clients/typescript/src/client';
import { journey } from '../clients/typescript/examples/journey';
import { freePort } from './free-port';
import { OpenApiDoc, responseValidator } from './response-schemas';
import { createTestApp, createUser, TEST_DATA, TestApp } from './utils';

/**
 * The TypeScript client (clients/typescript: types generated from the OpenAPI document, calls through
 * openapi-fetch) against the real app listening on a free port: its example journey on breast_cancer.csv,
 * and errors thrown with the API's code.
 */
/** Every JSON answer the client receives, checked against the document's schema of its operation. */
function documentValidator(doc: OpenApiDoc) {
  const validate = responseValidator(doc);
  const ops = Object.keys(doc.paths).map((p) => ({ p, re: new RegExp('^' + p.replace(/\{\w+\}/g, '[^/]+') + '$') }));
  const checked: string[] = [];
  const problems: string[] = [];
  return {
    checked,
    problems,
    check(method: string, pathname: string, body: unknown) {
      const op = ops.find((o) => o.re.test(pathname) && doc.paths[o.p][method.toLowerCase()]);
      if (!op) return problems.push(`${method} ${pathname}: not in the document`);
      checked.push(`${method} ${op.p}`);
      const problem = validate(method, op.p, body);
      if (problem) problems.push(problem);
    },
  };
}

describe('the TypeScript client', () => {
  let t: TestApp;
  let url: string;
  let username: string;
  let validator: ReturnType<typeof documentValidator>;
  let doc: OpenApiDoc;

  beforeAll(async () => {
    t = await createTestApp();
    const port = await freePort();
    await t.app.listen(port, '127.0.0.1');
    url = `http://127.0.0.1:${port}`;
    ({ username } = await createUser(t, 'tsuser'));
    doc = (await fetch(`${url}/api/public/v1/openapi.json`).then((r) => r.json())) as OpenApiDoc;
    validator = documentValidator(doc);
  });
  afterAll(() => t.close());

  it('runs the example journey: upload, preliminary analysis with progress, result, plots, predictions', async () => {
    const lines: string[] = [];
    const out = await journey({
      url,
      username,
      password: `password-${username}`,
      data: path.join(TEST_DATA, 'breast_cancer.csv'),
      print: (l) => lines.push(l),
      onClient: (client) =>
        client.api.use({
          onResponse: async ({ request, response }) => {
            if ((response.headers.get('content-type') ?? '').startsWith('application/json')) {
              validator.check(request.method, new URL(request.url).pathname, await response.clone().json());
            }
            return undefined;
          },
        }),
    });
    // every answer of the journey matched the document (13 operations and more)
    expect(validator.problems).toEqual([]);
    expect(new Set(validator.checked).size).toBeGreaterThanOrEqual(13);
    // and the check can fail: a version payload with a number where the document says string
    validator.check('GET', '/api/public/v1/version', { status: 'success', payload: { version: 1, mlEngine: 'x' } });
    expect(validator.problems).toEqual([expect.stringContaining('GET /api/public/v1/version: ')]);
    expect(out.dataset).toMatchObject({ sampleCount: 569, featureCount: 31, name: 'breast cancer' });
    expect(out.dataset.datasetId).toMatch(/^[1-9][0-9]*$/);
    const best = out.result.models.best;
    expect(best.signatures[0].length).toBeGreaterThan(0);
    expect(best.performance['Area Under the ROC Curve']).toBeGreaterThan(0.9);
    expect(out.plots).toEqual({
      'Feature Importance': best.signatures[0].length,
      'Progressive Feature Importance': best.signatures[0].length,
      'Feature Stability': new Set(best.signatures.flat()).size,
      // objects: one each
      'Feature Contributions': 1,
      'Partial Dependence': 1,
      'Precision-Recall Curve': 1,
      'Threshold Table': 1,
      // one curve and one calibration entry for the positive class; one probability entry per true class
      'ROC Curve': 1,
      Calibration: 1,
      'Confusion Matrix': 1,
      Probabilities: 2,
    });
    expect(out.predictions).toHaveLength(569);
    expect(out.csv.trim().split('\n')).toHaveLength(570);
    expect(lines).toEqual(
      expect.arrayContaining([
        `best model: ${best.model}`,
        expect.stringMatching(/^ {2}estimate Area Under the ROC Curve: 0\.9\d\d \(95% CI /),
      ]),
    );
    expect(lines.some((l) => /^ {2}analysis \d+: +\d+\.\d%$/.test(l))).toBe(true);
  }, 120_000);

  it('throws a SignetError carrying the API code', async () => {
    const client = new SignetClient(url);
    await expect(client.login(username, 'wrong password')).rejects.toMatchObject({ name: 'SignetError', code: 'auth-10-3' });
    await client.login(username, `password-${username}`);
    const unknown = await client.analysisResult('999999').catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(SignetError);
    expect(unknown).toMatchObject({ code: 'notFound-120-2-1', httpStatus: 200 });
    await expect(new SignetClient(url, { token: 'not-a-token' }).getProject('1')).rejects.toMatchObject({
      code: 'http-403',
      httpStatus: 403,
    });
  });

  it('has a method for every operation of the document, and each answers', async () => {
    const operationIds = Object.values(doc.paths).flatMap((item) =>
      Object.values(item).map((op) => (op as { operationId: string }).operationId),
    );
    expect(operationIds.length).toBeGreaterThanOrEqual(44);
    expect(Object.keys(OPERATION_METHODS).sort()).toEqual([...operationIds].sort());
    for (const method of Object.values(OPERATION_METHODS))
      expect({ method, type: typeof SignetClient.prototype[method] }).toEqual({ method, type: 'function' });

    const owner = new SignetClient(url);
    await owner.login(username, `password-${username}`);
    const { username: friend } = await createUser(t);
    expect(await owner.live()).toEqual({ status: 'ok' });
    expect(await owner.ready()).toEqual({ status: 'ok', database: 'ok' });
    const projectId = await owner.createProject('every method');
    expect(await owner.shareProject(projectId, friend, ['read'])).toEqual({ projectId, username: friend, permissions: ['read'] });
    const guest = new SignetClient(url);
    await guest.login(friend, `password-${friend}`);
    expect((await guest.sharedProjects()).data.map((p) => p.projectId)).toEqual([projectId]);
    expect(await owner.unshareProject(projectId, friend)).toEqual({ projectId, username: friend });
    expect((await guest.sharedProjects(0, 10)).totalCount).toBe(0);
    expect((await owner.ownedProjects()).data.map((p) => p.projectId)).toContain(projectId);

    const dataset = await owner.uploadDataset(projectId, path.join(TEST_DATA, 'iris.csv'), 'iris');
    expect((await owner.files()).data).toEqual(expect.arrayContaining([expect.objectContaining({ usedByDataset: true })]));
    expect((await owner.datasets(projectId)).data.map((d) => d.datasetId)).toEqual([dataset.datasetId]);
    const changed = await owner.changeFeatureTypes(dataset.datasetId, { petal_width_cm: 'categorical' });
    expect(changed.features.find((f) => f.name === 'petal_width_cm')?.type).toBe('categorical');
    expect((await owner.features(dataset.datasetId)).features).toEqual(changed.features);
    const parameters = { name: 'species', outcome: { classification: 'species' }, thoroughness: 'preliminary', coreCount: 1 } as const;
    expect(await owner.checkAnalyze(dataset.datasetId, parameters)).toMatchObject({ errors: [] });
    // timeLimitSeconds is one of the typed parameters; under 10 it is refused with its code
    expect(await owner.checkAnalyze(dataset.datasetId, { ...parameters, timeLimitSeconds: 5 })).toMatchObject({
      errors: [expect.objectContaining({ code: 'badRequest-120-0-14' })],
    });
    const analysisId = await owner.analyze(dataset.datasetId, parameters);
    // the status states the expected running time and peak memory
    expect((await owner.analysisStatus(analysisId)).estimate?.peakMemoryInBytes.expected).toBeGreaterThan(0);
    expect((await owner.analyses(projectId)).data.map((a) => a.analysisId)).toEqual([analysisId]);
    await owner.waitForAnalysis(analysisId, { intervalMs: 200 });
    expect(await owner.getAnalysis(analysisId)).toMatchObject({ analysisId, projectId, state: 'finished' });
    // the report, written where asked; an analysis without a result throws its code and writes nothing
    const reportPath = path.join(os.tmpdir(), `signet-report-${analysisId}-${process.pid}.html`);
    expect(await owner.downloadReport(analysisId, reportPath)).toBe(reportPath);
    const report = fs.readFileSync(reportPath, 'utf8');
    fs.rmSync(reportPath);
    expect(report.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(report).toContain(`Analysis ${analysisId} `);
    await expect(owner.downloadReport('999999', reportPath)).rejects.toMatchObject({ code: 'notFound-120-2-1', httpStatus: 200 });
    expect(fs.existsSync(reportPath)).toBe(false);
    // a report link: opened without a token, listed without its URL, withdrawn by the owner
    const link = await owner.createReportLink(analysisId, 2);
    const token = link.url.slice(link.url.lastIndexOf('/') + 1);
    expect(await new SignetClient(url).openReportLink(token)).toContain(`Analysis ${analysisId} `);
    expect((await owner.reportLinks(analysisId)).data).toEqual([expect.objectContaining({ linkId: link.linkId, username })]);
    expect(await owner.deleteReportLink(analysisId, link.linkId)).toMatchObject({ linkId: link.linkId });
    await expect(new SignetClient(url).openReportLink(token)).rejects.toMatchObject({ code: 'http-404', httpStatus: 404 });
    const names = await owner.availablePlots(analysisId, 'best');
    expect((await owner.availablePlotsByBody(analysisId, 'best')).plots).toEqual(names);
    expect(await owner.plotByBody(analysisId, 'best', names[0])).toEqual(await owner.plot(analysisId, 'best', names[0]));
    expect(await owner.plotsByBody(analysisId, 'best')).toEqual(await owner.plots(analysisId, 'best'));
    // out-of-fold predictions as JSON and CSV (issue 41, finding 12: the client had no CSV method)
    const oof = await owner.outOfFoldPredictions(analysisId, 'best');
    const oofCsv = (await owner.outOfFoldPredictionsCsv(analysisId, 'best')).trim().split('\n');
    expect(oofCsv[0]).toMatch(/^row,actual,prediction,probability:/);
    expect(oofCsv).toHaveLength(oof.predictions.length + 1);
    await expect(owner.outOfFoldPredictionsCsv(analysisId, 'nope')).rejects.toMatchObject({ code: 'notFound-140-1-1' });
    // times are sent (a classification model refuses them: the service saw them)
    await expect(owner.predict(analysisId, dataset.datasetId, 'best', undefined, { times: [1, 2] })).rejects.toMatchObject({
      code: 'badRequest-1-0-7',
    });
    // the model leaves the service: its card, its ONNX file (written where asked), rows scored in one call
    const card = await owner.modelCard(analysisId, 'best');
    expect(card.outcome.classes).toEqual(['setosa', 'versicolor', 'virginica']);
    const onnxPath = path.join(os.tmpdir(), `signet-model-${analysisId}-${process.pid}.onnx`);
    expect(await owner.exportModel(analysisId, 'best', onnxPath)).toBe(onnxPath);
    expect(fs.statSync(onnxPath).size).toBeGreaterThan(100);
    fs.rmSync(onnxPath);
    await expect(owner.exportModel(analysisId, 'best', onnxPath, 9)).rejects.toMatchObject({ code: 'badRequest-150-0-1' });
    expect(fs.existsSync(onnxPath)).toBe(false);
    const row = Object.fromEntries(card.inputs.map((i) => [i.name, i.type === 'numerical' ? 5 : null]));
    const scored = await owner.score(analysisId, 'best', [row, row]);
    expect(scored.predictions.map((p) => p.row)).toEqual([0, 1]);
    await expect(owner.score(analysisId, 'best', [{}])).rejects.toMatchObject({ code: 'badRequest-150-3-1' });
    const predictionId = await owner.predict(analysisId, dataset.datasetId, 'best');
    expect((await owner.predictions(analysisId)).data.map((p) => p.predictionId)).toEqual([predictionId]);
    await owner.waitForPrediction(predictionId, { intervalMs: 200 });
    expect(await owner.deletePrediction(predictionId)).toMatchObject({ predictionId, state: 'finished' });
    expect(await owner.deleteAnalysis(analysisId)).toMatchObject({ analysisId });
    expect(await owner.deleteDataset(dataset.datasetId)).toMatchObject({ datasetId: dataset.datasetId });
    const [file] = (await owner.files()).data;
    expect(await owner.deleteFile(file.fileId)).toEqual({ fileId: file.fileId, sizeInBytes: file.sizeInBytes });

    // an image dataset: init with the samples, one image each, commit, wait
    const taskId = await owner.initImageUpload('sampleId,label\ns1,a\ns2,b\n', { projectId, name: 'scans' });
    for (const [sampleId, width] of [
      ['s1', 2],
      ['s2', 3],
    ] as const) {
      const png = await new Jimp({ width, height: 4, color: 0x3366ccff }).getBuffer('image/png');
      expect(await owner.addImage(taskId, sampleId, png, `${sampleId}.png`)).toBe(taskId);
    }
    expect((await owner.imageUploadStatus(taskId)).state).toBe('pending');
    await owner.commitImageUpload(taskId);
    const { datasetId } = await owner.waitForTask(taskId, { intervalMs: 200 });
    expect(await owner.getDataset(datasetId as string)).toMatchObject({ name: 'scans', sampleCount: 2 });
    expect(await owner.deleteProject(projectId)).toMatchObject({ projectId, name: 'every method' });

    await owner.logout();
    await expect(owner.ownedProjects()).rejects.toMatchObject({ code: 'http-403' });
  }, 120_000);
});

describe('the TypeScript client without an answer', () => {
  /** A TCP server on a free port doing `onConnection` with every connection; closed after the test. */
  const servers: net.Server[] = [];
  const sockets: net.Socket[] = [];
  async function server(onConnection: (socket: net.Socket) => void): Promise<string> {
    const srv = net.createServer((socket) => {
      sockets.push(socket);
      onConnection(socket);
    });
    servers.push(srv);
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(srv.address() as net.AddressInfo).port}`;
  }
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    for (const srv of servers) await new Promise((resolve) => srv.close(resolve));
  });

  const failure = (p: Promise<unknown>) =>
    p.then(
      () => 'answered',
      (e: unknown) => e,
    );

  it('throws a SignetNetworkError with the reason: refused, dns, reset, timeout', async () => {
    const refused = await failure(new SignetClient(`http://127.0.0.1:${await freePort()}`).version());
    expect(refused).toBeInstanceOf(SignetNetworkError);
    expect(refused).toBeInstanceOf(SignetError);
    expect(refused).toMatchObject({
      name: 'SignetNetworkError',
      code: 'network',
      reason: 'refused',
      systemCode: 'ECONNREFUSED',
      httpStatus: undefined,
    });
    expect((refused as Error).message).toMatch(
      /^GET \/api\/public\/v1\/version: network: no answer from http:\/\/127\.0\.0\.1:\d+: connection refused/,
    );
    expect((refused as Error).cause).toMatchObject({ name: 'TypeError', message: 'fetch failed' });

    // .invalid never resolves (RFC 2606)
    expect(await failure(new SignetClient('http://signet.invalid').login('a', 'b'))).toMatchObject({
      reason: 'dns',
      operation: 'POST /api/public/v1/login',
    });

    const reset = await server((socket) => socket.destroy());
    expect(await failure(new SignetClient(reset).getProject('1'))).toMatchObject({ name: 'SignetNetworkError', reason: 'reset' });

    // the headers, then the connection closes halfway through the body
    const cut = await server((socket) =>
      socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"status":')),
    );
    expect(await failure(new SignetClient(cut).version())).toMatchObject({
      name: 'SignetNetworkError',
      reason: 'reset',
      operation: 'GET version',
    });

    const silent = await server(() => undefined);
    const started = Date.now();
    expect(await failure(new SignetClient(silent, { timeoutMs: 300 }).version())).toMatchObject({
      name: 'SignetNetworkError',
      reason: 'timeout',
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('leaves answers and other errors as they are', async () => {
    const teapot = await server((socket) =>
      socket.once('data', () => socket.end('HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')),
    );
    expect(await failure(new SignetClient(teapot).version())).toMatchObject({ name: 'SignetError', code: 'http-500', httpStatus: 500 });
    const bug = new Error('not the network');
    const failing = new SignetClient('http://127.0.0.1:1', { fetch: () => Promise.reject(bug) });
    expect(await failure(failing.version())).toBe(bug);
    // the message of a failure without a system code says what fetch said
    expect(await failure(new SignetClient('http://127.0.0.1:9').version())).toMatchObject({
      reason: 'other',
      message: expect.stringContaining('(bad port)'),
    });
  });
});
