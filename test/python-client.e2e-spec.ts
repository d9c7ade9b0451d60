import { execFile } from 'node:child_process';
import { freePort } from './free-port';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { createTestApp, createUser, TEST_DATA, TestApp } from './utils';

/**
 * The Python client (clients/python) against the real app listening on a free port: its unittest suite,
 * which includes the example journey on breast_cancer.csv, run with the machine's python3.
 */
const ROOT = path.resolve(__dirname, '..');
const run = promisify(execFile);

describe('the Python client', () => {
  let t: TestApp;
  let url: string;

  beforeAll(async () => {
    t = await createTestApp();
    const port = await freePort();
    await t.app.listen(port, '127.0.0.1');
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(() => t.close());

  it('passes its unittest suite (errors with codes, projects, image upload, the whole journey) against the service', async () => {
    const { username } = await createUser(t, 'pyuser');
    const env = {
      ...process.env,
      SIGNET_URL: url,
      SIGNET_USERNAME: username,
      SIGNET_PASSWORD: `password-${username}`,
      SIGNET_DATA: path.join(TEST_DATA, 'breast_cancer.csv'),
      PYTHONDONTWRITEBYTECODE: '1',
    };
    const res = await run('python3', ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.', '-v'], {
      cwd: path.join(ROOT, 'clients', 'python'),
      env,
      timeout: 280_000,
    }).catch((e: { code: number; stdout: string; stderr: string }) => e);
    const out = `${res.stdout}\n${res.stderr}`;
    // unittest reports on stderr: every test ran and passed, none skipped
    expect(out).toMatch(/Ran 7 tests in [\d.]+s\s+OK\s*$/);
    expect(out).not.toMatch(/skipped|FAIL|ERROR/);
  }, 300_000);
});
