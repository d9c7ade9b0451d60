import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';
import { createTestApp, TestApp } from './utils';

/**
 * The README's first analysis, run as written: its shell block (between the quickstart markers) against the real
 * service listening on a free port, with its first start's admin credentials in `.data` and the repository's
 * test/data beside it, as in a fresh clone where `npm start` runs. Only the service's address is changed.
 */
const ROOT = path.resolve(__dirname, '..');
const run = promisify(execFile);

/** The shell commands of the README's quickstart. */
function quickstart(): string {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const block = /<!-- quickstart:start -->\s*```sh\n([\s\S]*?)```\s*<!-- quickstart:end -->/.exec(readme)?.[1];
  if (!block) throw new Error('README.md has no quickstart block');
  return block;
}

describe("the README's first analysis", () => {
  let t: TestApp;
  let dir: string;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp({ ANALYSIS_SEED: '11' });
    const port = await freePort();
    await t.app.listen(port, '127.0.0.1');
    base = `http://127.0.0.1:${port}`;
    // a clone's folder as the commands see it: .data (the service's DATA_DIR, with admin-credentials.json) and test/data
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-quickstart-'));
    fs.symlinkSync(t.config.dataDir, path.join(dir, '.data'));
    fs.mkdirSync(path.join(dir, 'test'));
    fs.symlinkSync(path.join(ROOT, 'test', 'data'), path.join(dir, 'test', 'data'));
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs as written: every step chains to the next, and the report link it prints opens the report', async () => {
    const script = quickstart();
    expect(script).toContain('B=http://localhost:8080/api/public/v1');
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script.replace('http://localhost:8080', base)], {
      cwd: dir,
      timeout: 240_000,
    }).catch((e: { stdout: string; stderr: string }) => {
      throw new Error(`the quickstart stopped: ${e.stdout.slice(-1500)} ${e.stderr.slice(-1500)}`);
    });
    const lines = stdout.trim().split('\n');
    // the upload's answer, both waits, the result's summary, the report link
    expect(lines[0]).toBe('{"fileId":"iris.csv","sizeInBytes":3870}');
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^task\/\d+\/status: finished$/),
        expect.stringMatching(/^analysis\/\d+\/status: finished$/),
      ]),
    );
    const summary = JSON.parse(stdout.slice(stdout.indexOf('{\n  "model"'), stdout.lastIndexOf('}') + 1)) as Record<string, unknown>;
    expect(summary).toEqual({
      model: expect.any(String),
      performance: expect.objectContaining({ 'Balanced Accuracy': expect.any(Number) }),
      performanceCis: expect.any(Object),
      signatures: expect.arrayContaining([expect.any(Array)]),
    });
    const url = lines[lines.length - 1];
    expect(url).toMatch(new RegExp(`^${base}/api/public/v1/sharedReport/[\\w-]{43}$`));
    const report = await fetch(url);
    expect(report.status).toBe(200);
    expect(await report.text()).toContain('species');
  }, 300_000);
});
