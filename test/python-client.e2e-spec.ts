import { execFile } from 'node:child_process';
import { freePort } from './free-port';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { createTestApp, createUser, TEST_DATA, TestApp } from './utils';

/**
 * The Python client (clients/python) against the real app listening on a free port: its unittest suite, run with
 * the machine's python3. It covers every operation, the errors (code, message and HTTP status), the with block that
 * logs out, the example journey on breast_cancer.csv, and the jadbio layer: JADBio's signatures, and a script
 * written for JADBio's client run with only its import and host changed.
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

  const liveTokens = async (userId: string): Promise<number> => {
    const [{ n }] = await t.db.query(
      'SELECT count(*)::int AS n FROM tokens WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now()',
      [userId],
    );
    return n as number;
  };

  it('passes its unittest suite against the service, and leaves no token of its own live', async () => {
    const user = await createUser(t, 'pyuser');
    const other = await createUser(t, 'pyother');
    const env = {
      ...process.env,
      SIGNET_URL: url,
      SIGNET_USERNAME: user.username,
      SIGNET_PASSWORD: `password-${user.username}`,
      SIGNET_OTHER_USERNAME: other.username,
      SIGNET_OTHER_PASSWORD: `password-${other.username}`,
      SIGNET_DATA: path.join(TEST_DATA, 'breast_cancer.csv'),
      SIGNET_IRIS: path.join(TEST_DATA, 'iris.csv'),
      PYTHONDONTWRITEBYTECODE: '1',
    };
    const res = await run('python3', ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.', '-v'], {
      cwd: path.join(ROOT, 'clients', 'python'),
      env,
      timeout: 560_000,
    }).catch((e: { code: number; stdout: string; stderr: string }) => e);
    const out = `${res.stdout}\n${res.stderr}`;
    // unittest reports on stderr: every test ran and passed, none skipped
    expect(out).toMatch(/Ran 24 tests in [\d.]+s\s+OK\s*$/);
    expect(out).not.toMatch(/skipped|FAIL|ERROR|could not log out/);
    // every session the suite opened (dozens of logins) was logged out: only the tokens made here are live
    expect(await liveTokens(user.userId)).toBe(1);
    expect(await liveTokens(other.userId)).toBe(1);
  }, 600_000);
});
