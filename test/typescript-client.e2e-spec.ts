import * as net from 'node:net';
import * as path from 'node:path';
import { SignetClient, SignetError } from '../clients/typescript/src/client';
import { journey } from '../clients/typescript/examples/journey';
import { createTestApp, createUser, SHARED_DATA, TestApp } from './utils';

/**
 * The TypeScript client (clients/typescript: types generated from the OpenAPI document, calls through
 * openapi-fetch) against the real app listening on a free port: its example journey on breast_cancer.csv,
 * and errors thrown with the API's code.
 */
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

  beforeAll(async () => {
    t = await createTestApp();
    const port = await freePort();
    await t.app.listen(port, '127.0.0.1');
    url = `http://127.0.0.1:${port}`;
    ({ username } = await createUser(t, 'tsuser'));
  });
  afterAll(() => t.close());

  it('runs the example journey: upload, preliminary analysis with progress, result, plots, predictions', async () => {
    const lines: string[] = [];
    const out = await journey({
      url,
      username,
      password: `password-${username}`,
      data: path.join(SHARED_DATA, 'breast_cancer.csv'),
      print: (l) => lines.push(l),
    });
    expect(out.dataset).toMatchObject({ sampleCount: 569, featureCount: 31, name: 'breast cancer' });
    expect(out.dataset.datasetId).toMatch(/^[1-9][0-9]*$/);
    const best = out.result.models.best;
    expect(best.signatures[0].length).toBeGreaterThan(0);
    expect(best.performance['Area Under the ROC Curve']).toBeGreaterThan(0.9);
    expect(out.plots).toEqual({
      'Feature Importance': best.signatures[0].length,
      'Progressive Feature Importance': best.signatures[0].length,
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
