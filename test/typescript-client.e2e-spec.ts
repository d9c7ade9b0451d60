import * as net from 'node:net';
import * as path from 'node:path';
import { SignetClient, SignetError } from '../clients/typescript/src/client';
import { journey } from '../clients/typescript/examples/journey';
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

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

describe('the TypeScript client', () => {
  let t: TestApp;
  let url: string;
  let username: string;
  let validator: ReturnType<typeof documentValidator>;

  beforeAll(async () => {
    t = await createTestApp();
    const port = await freePort();
    await t.app.listen(port, '127.0.0.1');
    url = `http://127.0.0.1:${port}`;
    ({ username } = await createUser(t, 'tsuser'));
    validator = documentValidator((await fetch(`${url}/api/public/v1/openapi.json`).then((r) => r.json())) as never);
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
});
