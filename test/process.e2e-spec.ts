import { ChildProcess, execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';

/**
 * The service as an operator runs it: `node dist/src/main.js` (what `npm start` runs once dist is current) on a
 * fresh data directory with the embedded PostgreSQL, the CLI beside it, then SIGTERM; and the README's commands
 * themselves, `npm start` and `npm run worker`, stopped by a signal to npm.
 */
const ROOT = path.resolve(__dirname, '..');
const run = promisify(execFile);

async function waitFor<T>(probe: () => Promise<T | undefined>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Pids of the `postgres` processes (server and its children) serving the data directory `pgDir`. */
function postgresProcessesOf(pgDir: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((pid) => {
      try {
        const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        const d = argv.indexOf('-D');
        return path.basename(argv[0]) === 'postgres' && d >= 0 && path.resolve(argv[d + 1]) === pgDir ? [Number(pid)] : [];
      } catch {
        return [];
      }
    });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Every live descendant of `pid` (Linux /proc), with its command line. */
function descendantsOf(pid: number): { pid: number; cmd: string }[] {
  const parentOf = new Map<number, number>();
  for (const d of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      // state, then ppid, after the command in parentheses
      if (stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z')
        parentOf.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  for (let frontier = [pid]; frontier.length;) {
    frontier = [...parentOf].filter(([, ppid]) => frontier.includes(ppid)).map(([p]) => p);
    found.push(...frontier);
  }
  return found.flatMap((p) => {
    try {
      return [{ pid: p, cmd: fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').join(' ').trim() }];
    } catch {
      return [];
    }
  });
}

/** Whether `pid` is still a live process (a zombie is not: it has exited). */
function running(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('the service process', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-proc-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('starts on embedded PostgreSQL, bootstraps admin, serves the CLI, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const pgPort = await freePort();
    const metricsPort = await freePort();
    const env = {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      EMBEDDED_PG_PORT: String(pgPort),
      LOG_FORMAT: 'json',
      METRICS_PORT: String(metricsPort),
    };
    const child = spawn(process.execPath, ['dist/src/main.js'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const done = exited(child);
    try {
      const base = `http://127.0.0.1:${port}/api/public/v1`;
      const ready = await waitFor(async () => {
        const r = await fetch(`${base}/health/ready`);
        return r.ok ? await r.json() : undefined;
      }, 60_000);
      expect(ready).toEqual({ status: 'ok', database: 'ok' });
      // its own metrics listener: the embedded server it runs, the queue
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(metrics).toContain('signet_embedded_postgres_state{state="running"} 1');
      expect(metrics).toContain('signet_jobs{kind="analysis",state="queued"} 0');

      // JSON logs, one object per line, saying where the admin credentials are
      const lines = out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { level: string; msg?: string });
      expect(lines.some((l) => l.msg?.includes(path.join(dataDir, 'admin-credentials.json')))).toBe(true);
      const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'admin-credentials.json'), 'utf8'));

      // the CLI uses the running embedded server
      const cli = await run(process.execPath, ['dist/src/cli.js', 'users', 'create', 'dora', '--password', 'dora-password'], {
        cwd: ROOT,
        env,
      });
      const created = JSON.parse(cli.stdout.trim());
      expect(created).toEqual({ userId: expect.stringMatching(/^\d+$/), token: expect.stringMatching(/^[\w-]{43}$/) });
      expect(cli.stderr).toContain(
        `database: postgresql://postgres@127.0.0.1:${pgPort}/signet (embedded PostgreSQL of DATA_DIR ${dataDir}, already running)`,
      );

      // pointed at a DATA_DIR with no database while the service's server runs: refused, nothing created
      const wrongDir = path.join(os.tmpdir(), `signet-wrong-${process.pid}-${Date.now()}`);
      const refused = await run(process.execPath, ['dist/src/cli.js', 'users', 'create', 'eve', '--password', 'eve-password'], {
        cwd: ROOT,
        env: { ...env, DATA_DIR: wrongDir },
      }).catch((e: { code: number; stdout: string; stderr: string }) => e);
      expect((refused as { code: number }).code).toBe(1);
      expect((refused as { stdout: string }).stdout).toBe('');
      expect((refused as { stderr: string }).stderr).toContain(`DATA_DIR=${dataDir} (port ${pgPort})`);
      expect((refused as { stderr: string }).stderr).toContain('Nothing was created');
      expect(fs.existsSync(wrongDir)).toBe(false);
      // told to, it makes its own there, and stops it when done
      const own = await run(process.execPath, ['dist/src/cli.js', 'users', 'list', '--new-database'], {
        cwd: ROOT,
        env: { ...env, DATA_DIR: wrongDir, EMBEDDED_PG_PORT: String(await freePort()) },
      });
      expect(own.stderr).toContain(`(embedded PostgreSQL of DATA_DIR ${wrongDir}, started for this command)`);
      expect(postgresProcessesOf(path.join(wrongDir, 'pg'))).toEqual([]);
      fs.rmSync(wrongDir, { recursive: true, force: true });

      const login = await fetch(`${base}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ usernameOrEmail: 'dora', password: 'dora-password' }),
      });
      expect(((await login.json()) as { status: string }).status).toBe('success');
      const owned = await fetch(`${base}/projects/owned/0/1`, { headers: { authorization: `Bearer ${creds.token}` } });
      expect(await owned.json()).toEqual({ payload: { offset: 0, totalCount: 0, data: [] }, status: 'success' });

      const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
      const pgPid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
      const t0 = Date.now();
      child.kill('SIGTERM');
      expect(await done).toBe(0);
      expect(Date.now() - t0).toBeLessThan(10_000);
      // the last line says the service stopped
      const last = JSON.parse(out.trim().split('\n').pop() as string) as Record<string, unknown>;
      expect(last).toMatchObject({
        level: 'info',
        event: 'service.stopped',
        signal: 'SIGTERM',
        msg: expect.stringMatching(/^stopped \(SIGTERM\) in \d+ ms$/),
      });
      // the embedded server is gone with it
      expect(() => process.kill(pgPid, 0)).toThrow();
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 120_000);

  it('after kill -9 of the service, the next start stops the orphaned PostgreSQL and SIGTERM leaves none running', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-kill-'));
    const port = await freePort();
    const env = { ...process.env, DATA_DIR: dir, PORT: String(port), EMBEDDED_PG_PORT: String(await freePort()), LOG_FORMAT: 'json' };
    const base = `http://127.0.0.1:${port}/api/public/v1`;
    const ready = () => waitFor(async () => ((await fetch(`${base}/health/ready`)).ok ? true : undefined), 60_000);
    const serversOfDir = () => postgresProcessesOf(path.join(dir, 'pg'));
    const children: ChildProcess[] = [];
    try {
      const first = spawn(process.execPath, ['dist/src/main.js'], { cwd: ROOT, env, stdio: 'ignore' });
      children.push(first);
      await ready();
      // the postmaster (postmaster.pid's first line); a short-lived postgres of the same directory may come and go
      const orphan = [Number(fs.readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0])];
      expect(serversOfDir()).toEqual(expect.arrayContaining(orphan));
      first.kill('SIGKILL');
      await exited(first);
      // PostgreSQL outlives the killed service
      expect(serversOfDir()).toEqual(expect.arrayContaining(orphan));

      const second = spawn(process.execPath, ['dist/src/main.js'], { cwd: ROOT, env, stdio: 'ignore' });
      children.push(second);
      const done = exited(second);
      await ready();
      expect(serversOfDir().filter((pid) => orphan.includes(pid))).toEqual([]);
      const t0 = Date.now();
      second.kill('SIGTERM');
      expect(await done).toBe(0);
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(serversOfDir()).toEqual([]);
    } finally {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      for (const pid of serversOfDir()) process.kill(pid, 'SIGQUIT');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('refuses to start with a bad setting, saying which', async () => {
    const res = await run(process.execPath, ['dist/src/main.js'], {
      cwd: ROOT,
      env: { ...process.env, PORT: 'eighty', DATA_DIR: dataDir },
    }).catch((e: { code: number; stderr: string }) => e);
    expect((res as { code: number }).code).toBe(2);
    expect((res as { stderr: string }).stderr).toContain('PORT must be an integer');
  });
});

describe("the README's commands, stopped by a signal", () => {
  const dist = path.join(ROOT, 'dist', 'src', 'main.js');
  // dist is current (npm test builds first; a run of this file alone gets it built here), so neither command rebuilds
  beforeAll(() => run(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: ROOT }), 120_000);

  /**
   * Runs `npm <args>` in its own process group on a fresh data directory until `ready`, checks that it started
   * without rebuilding dist, sends `signal` to npm (or to the whole group, as Ctrl-C in a terminal does), and
   * asserts that npm exits and nothing it started (node, the embedded PostgreSQL) is left 10 s later.
   */
  async function startThenStop(
    args: string[],
    signal: NodeJS.Signals,
    to: 'npm' | 'group',
    ready: (port: number, out: () => string) => Promise<unknown>,
  ) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-npm-'));
    const port = await freePort();
    const env = { ...process.env, DATA_DIR: dir, PORT: String(port), EMBEDDED_PG_PORT: String(await freePort()), LOG_FORMAT: 'json' };
    const built = fs.statSync(dist).mtimeMs;
    const npm = spawn('npm', args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    let stdout = '';
    npm.stdout.on('data', (d) => ((out += d), (stdout += d)));
    npm.stderr.on('data', (d) => (out += d));
    const done = exited(npm);
    let tree: { pid: number; cmd: string }[] = [];
    try {
      await ready(port, () => out);
      expect(fs.statSync(dist).mtimeMs).toBe(built);
      tree = descendantsOf(npm.pid as number);
      // npm's shell execs node: node is npm's child and gets the signal npm forwards
      expect(tree.map((p) => p.cmd)).toEqual(expect.arrayContaining([expect.stringMatching(/^node dist\/src\/(main|worker-main)\.js$/)]));
      expect(postgresProcessesOf(path.join(dir, 'pg')).length).toBeGreaterThan(0);
      const t0 = Date.now();
      process.kill(to === 'group' ? -(npm.pid as number) : (npm.pid as number), signal);
      await done;
      while (tree.some((p) => running(p.pid)) && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 100));
      expect(tree.filter((p) => running(p.pid))).toEqual([]);
      expect(postgresProcessesOf(path.join(dir, 'pg'))).toEqual([]);
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(out).toContain(`${signal}: shutting down`);
      expect(out).toContain(`"event":"service.stopped"`);
      // with --silent npm writes nothing of its own: stdout is the service's JSON lines alone, for a log collector
      if (args.includes('--silent')) for (const line of stdout.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    } finally {
      for (const p of tree) if (running(p.pid)) process.kill(p.pid, 'SIGKILL');
      if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  const serving = (port: number) =>
    waitFor(async () => ((await fetch(`http://127.0.0.1:${port}/api/public/v1/health/ready`)).ok ? true : undefined), 60_000);

  it(
    'npm start --silent: SIGTERM to npm leaves no node or PostgreSQL within 10 s; stdout holds JSON lines only',
    () => startThenStop(['start', '--silent'], 'SIGTERM', 'npm', serving),
    120_000,
  );

  it(
    'npm start: Ctrl-C (SIGINT to the whole process group, PostgreSQL included) leaves nothing within 10 s',
    () => startThenStop(['start'], 'SIGINT', 'group', serving),
    120_000,
  );

  it(
    'npm run worker: SIGINT to npm leaves no node or PostgreSQL within 10 s',
    () =>
      startThenStop(['run', 'worker'], 'SIGINT', 'npm', (_port, out) =>
        waitFor(async () => (out().includes('worker started with') ? true : undefined), 60_000),
      ),
    120_000,
  );
});
