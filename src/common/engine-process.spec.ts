import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  configureEngineProcesses,
  dropSpareEngineProcess,
  engineProcessOptions,
  EngineWorker,
  keepSpareEngineProcess,
  liveEngineProcesses,
  SPARE_ARG,
  spareEngineProcess,
} from './engine-process';
import { runInWorker } from './worker-thread';

// The host runs from dist/ (npm test builds first); these scripts are plain JavaScript worker threads.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-process-'));
function script(name: string, body: string): string {
  const file = path.join(dir, `${name}.js`);
  fs.writeFileSync(file, `const { parentPort, workerData } = require('node:worker_threads');\n${body}`);
  return file;
}
const ECHO = script(
  'echo',
  `parentPort.postMessage({ got: workerData });
   parentPort.on('message', (m) => { if (m === 'end') parentPort.close(); else parentPort.postMessage({ echo: m }); });`,
);
const SPIN = script('spin', `parentPort.postMessage('started'); for (;;) {}`);
const BUSY = script('busy', `for (;;) {}`);
const HOG = script('hog', `const keep = []; for (;;) keep.push(new Array(100000).fill({ x: Math.random() }));`);

/** Niceness of every thread of a process (Linux: field 19 of /proc/<pid>/task/<tid>/stat). */
/** A field of every thread's /proc stat line, by its index after the command (0: state, 16: nice, 38: policy). */
function threadField(pid: number, index: number): number[] {
  return fs.readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[index])];
    } catch {
      return []; // a thread that ended meanwhile
    }
  });
}
const threadNiceness = (pid: number) => threadField(pid, 16);
const SCHED_OTHER = 0;
const SCHED_IDLE = 5;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const next = <T>(w: EngineWorker, event: string): Promise<T> => new Promise((resolve) => w.once(event, resolve));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('EngineWorker (an engine thread in a child process)', () => {
  const saved = engineProcessOptions();
  afterEach(() => configureEngineProcesses(saved));

  it('relays workerData and messages both ways, typed arrays included, and exits 0 with its thread', async () => {
    const w = new EngineWorker(ECHO, { workerData: { values: new Float64Array([1.5, NaN, -2]), codes: new Int32Array([3, -1]) } });
    const first = await next<{ got: { values: Float64Array; codes: Int32Array } }>(w, 'message');
    // (another realm's Float64Array under jest: compare by tag)
    expect(Object.prototype.toString.call(first.got.values)).toBe('[object Float64Array]');
    expect(Array.from(first.got.values)).toEqual([1.5, NaN, -2]);
    expect(Array.from(first.got.codes)).toEqual([3, -1]);
    w.postMessage({ chunk: Buffer.from('abcdef').subarray(2, 4) });
    const echo = await next<{ echo: { chunk: Uint8Array } }>(w, 'message');
    expect(Buffer.from(echo.echo.chunk).toString()).toBe('cd');
    const exit = next<number>(w, 'exit');
    w.postMessage('end');
    expect(await exit).toBe(0);
  });

  it('carries large typed arrays (the data pipe) both ways, in message order, beside small ones', async () => {
    const big = (k: number) => Float64Array.from({ length: 100_000 + k }, (_, i) => i * 0.5 + k);
    const w = new EngineWorker(ECHO, { workerData: { columns: [{ values: big(0), codes: new Int32Array(200_000).fill(7) }] } });
    const first = await next<{ got: { columns: { values: Float64Array; codes: Int32Array }[] } }>(w, 'message');
    expect(first.got.columns[0].values.length).toBe(100_000);
    expect(first.got.columns[0].values[99_999]).toBe(49_999.5);
    expect(first.got.columns[0].codes.every((c) => c === 7)).toBe(true);
    const echoes: { echo: { k: number; values: Float64Array; small: Uint8Array } }[] = [];
    w.on('message', (m: (typeof echoes)[number]) => echoes.push(m));
    for (let k = 1; k <= 5; k++) w.postMessage({ k, values: big(k), small: new Uint8Array([k]) });
    while (echoes.length < 5) await new Promise((r) => setTimeout(r, 10));
    expect(echoes.map((e) => [e.echo.k, e.echo.values.length, e.echo.values[1], e.echo.small[0]])).toEqual(
      [1, 2, 3, 4, 5].map((k) => [k, 100_000 + k, 0.5 + k, k]),
    );
    await w.terminate();
  });

  it('runs every thread of the engine process at ENGINE_NICE, and leaves this process as it was', async () => {
    if (process.platform !== 'linux') return;
    const before = os.getPriority(process.pid); // 0, or what `nice npm test` set
    configureEngineProcesses({ nice: 10, maxMemoryMb: 0 });
    const w = new EngineWorker(SPIN);
    await next(w, 'message'); // the worker thread exists and computes
    const pid = w.pid!;
    const niceness = threadNiceness(pid);
    expect(niceness.length).toBeGreaterThan(2);
    expect(niceness.every((n) => n === 10)).toBe(true);
    expect(os.getPriority(process.pid)).toBe(before);
    await w.terminate();
  });

  it('runs the engine process under SCHED_IDLE where chrt can start one (else as an ordinary process), not this one', async () => {
    if (process.platform !== 'linux') return;
    const chrt = spawnSync('chrt', ['--idle', '0', 'true']).status === 0;
    const w = new EngineWorker(SPIN);
    await next(w, 'message');
    const policies = threadField(w.pid!, 38);
    expect(policies.length).toBeGreaterThan(2);
    expect(new Set(policies)).toEqual(new Set([chrt ? SCHED_IDLE : SCHED_OTHER]));
    expect(new Set(threadField(process.pid, 38))).toEqual(new Set([SCHED_OTHER]));
    await w.terminate();
  });

  it('terminate kills the process at once, mid-computation, without an error event', async () => {
    const w = new EngineWorker(SPIN);
    const errors: Error[] = [];
    w.on('error', (e: Error) => errors.push(e));
    await next(w, 'message');
    const pid = w.pid!;
    expect(liveEngineProcesses()).toContain(pid);
    const started = Date.now();
    await w.terminate();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(alive(pid)).toBe(false);
    expect(liveEngineProcesses()).not.toContain(pid);
    expect(errors).toEqual([]);
  });

  it('a kill -9 of the engine process is an error with a reason here, and this process goes on', async () => {
    const w = new EngineWorker(SPIN);
    await next(w, 'message');
    const error = next<Error>(w, 'error');
    process.kill(w.pid!, 'SIGKILL');
    expect((await error).message).toMatch(/engine process was killed/);
  });

  it('an engine that allocates past ENGINE_MAX_MEMORY_MB fails with a reason; this process goes on', async () => {
    configureEngineProcesses({ nice: 10, maxMemoryMb: 64 });
    const before = process.memoryUsage().rss;
    await expect(runInWorker(HOG, {})).rejects.toThrow(/out of memory/);
    // nothing of it was allocated here
    expect(process.memoryUsage().rss - before).toBeLessThan(50 * 1024 * 1024);
  }, 30_000);

  it('aborting runInWorker stops the computation within 2 s', async () => {
    const controller = new AbortController();
    const run = runInWorker(BUSY, {}, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 300));
    const [pid] = liveEngineProcesses();
    const started = Date.now();
    controller.abort(new Error('deleted'));
    await expect(run).rejects.toThrow('deleted');
    while (alive(pid) && Date.now() - started < 2000) await new Promise((r) => setTimeout(r, 20));
    expect(alive(pid)).toBe(false);
  });
});

describe('the spare engine process (started ahead of the next job)', () => {
  const saved = engineProcessOptions();
  const cmdline = (pid: number) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  const waitFor = async (ok: () => boolean) => {
    for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) if (ok()) return true;
    return false;
  };
  afterEach(async () => {
    await dropSpareEngineProcess();
    configureEngineProcesses(saved);
  });

  it('is taken by the next worker, which runs in it as in a new one; another is started once that worker ends', async () => {
    configureEngineProcesses({ nice: 15, maxMemoryMb: 0 });
    keepSpareEngineProcess();
    const spare = spareEngineProcess()!;
    // (until its exec, a forked process shows this one's command line; chrt's, then node's)
    const started = () => cmdline(spare)[0].endsWith('node') && cmdline(spare).some((a) => a.endsWith('engine-host.js'));
    expect(await waitFor(started)).toBe(true);
    expect(cmdline(spare)).toContain(SPARE_ARG);
    expect(liveEngineProcesses()).not.toContain(spare);
    const w = new EngineWorker(ECHO, { workerData: { n: 1 } });
    expect(w.pid).toBe(spare);
    expect(spareEngineProcess()).toBeUndefined();
    expect(await next<{ got: unknown }>(w, 'message')).toEqual({ got: { n: 1 } });
    // no longer a spare, by its title too; at the engine's niceness
    expect(cmdline(spare)).not.toContain(SPARE_ARG);
    expect(cmdline(spare).join(' ')).toContain('engine-host.js');
    expect(new Set(threadNiceness(spare))).toEqual(new Set([15]));
    const exit = next<number>(w, 'exit');
    w.postMessage('end');
    expect(await exit).toBe(0);
    // the next one a moment after (once the ended job has stored its result)
    expect(await waitFor(() => spareEngineProcess() !== undefined)).toBe(true);
    const again = spareEngineProcess();
    expect(again).not.toBe(spare);
    await dropSpareEngineProcess();
    expect(spareEngineProcess()).toBeUndefined();
    expect(await waitFor(() => !alive(again!))).toBe(true);
  });

  it('started under settings since changed is replaced, and a worker runs under the new ones', async () => {
    configureEngineProcesses({ nice: 12, maxMemoryMb: 0 });
    keepSpareEngineProcess();
    const old = spareEngineProcess()!;
    configureEngineProcesses({ nice: 17, maxMemoryMb: 0 });
    expect(await waitFor(() => !alive(old) && spareEngineProcess() !== undefined)).toBe(true);
    const w = new EngineWorker(ECHO, { workerData: {} });
    await next(w, 'message');
    expect(new Set(threadNiceness(w.pid!))).toEqual(new Set([17]));
    await w.terminate();
  });

  it('killed while it waits is not handed out: the next worker starts a process of its own', async () => {
    keepSpareEngineProcess();
    const spare = spareEngineProcess()!;
    process.kill(spare, 'SIGKILL');
    // once its end is seen here, it is no longer the spare (another may have started since)
    expect(await waitFor(() => spareEngineProcess() !== spare)).toBe(true);
    const w = new EngineWorker(ECHO, { workerData: { n: 2 } });
    expect(w.pid).not.toBe(spare);
    expect(await next<{ got: unknown }>(w, 'message')).toEqual({ got: { n: 2 } });
    await w.terminate();
  });
});
