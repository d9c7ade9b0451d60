/**
 * Tabular ingest: how fast a stored CSV becomes a dataset (issue 21: >= 50 MB/s on a 441 MB CSV, under 1 GB
 * for the process that parses).
 *   npm run bench:ingest [-- --rows 1000000] [-- --file some.csv] [-- --build-only] [-- --profile out.cpuprofile]
 * Writes (once, kept in the temp dir) a plain CSV of `rows` x 40 with a header, 438 MB for 1,000,000 rows:
 * an integer id, 34 measurements (10-11 significant digits, a third negative, two with 2% empty cells, one in
 * scientific notation), an integer age, three categories (site, grade, sex) and a yes/no label. Uploads it
 * to the real service (its own embedded PostgreSQL, 127.0.0.1 only; the upload is timed apart), then times
 * createDataset from the request to the finished task: the file read back from PostgreSQL (binary COPY),
 * parsed in an engine process whose threads read the file and write the long columns' pieces as it goes, typed
 * and written, as every build runs. While it runs it samples the CPU time and memory of each process involved:
 * the engine process (its reading, parsing and writing threads included), this process (the service: jobs, the
 * PostgreSQL client) and PostgreSQL's processes, and gives
 * the CPU-based throughput (the file's MB per CPU second: what the wall figure would be with the cores to
 * itself, since the engine process yields them under SCHED_IDLE). Then the parser alone
 * (parseTable on the file, in this process) for where the time goes.
 * It counts the service's garbage collections during the build, and with --profile writes a V8 CPU profile of
 * the service process over the build alone. The output gives the ratio to BEFORE (below).
 */
import * as fs from 'node:fs';
import * as inspector from 'node:inspector/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { liveEngineProcesses } from '../src/common/engine-process';
import { parseTable } from '../src/datasets/table-parser';
import { call, DatasetInfo, startServer, TaskStatus, uploadFile } from './server';

/**
 * The build of the 1,000,000 x 40 file (438 MB) at 896a37d, before the byte-level fast path, on this 2-core
 * machine shared with other engineers' tests (load 6-7): wall s and CPU s of the three parts; two runs, 32.3
 * and 32.5 s. The engine process runs under SCHED_IDLE, so its wall time stretches with other load: compare
 * CPU times first. The parser alone took 5.5-6.1 s CPU (6.7 s wall when the machine was quieter).
 *
 * Measured since (same machine, never quiet: load 10-22 through 2026-11-25 00:00-00:45; CPU times grow
 * with load too, the parser alone took 5.7 s CPU at load 12 where it took 3.5 s at load 4.5):
 * - at 540be9f (the byte-level fast path; chunks read as hex text): 39.7 s wall at load 11-13, engine
 *   3.9 s, service 10.6 s, PostgreSQL 4.0 s (the service's GCs were not counted yet: ~194 by the profile).
 * - binary COPY, deflate in the engine process (its CPU now includes it: ~2.5 s), Buffers down the data
 *   pipe, reused read pieces (two runs, load 11-12): 28.4 and 42.9 s wall (15.4 and 10.2 MB/s), engine
 *   6.3-6.5 s, service 7.1-7.4 s, PostgreSQL 3.0-3.4 s, 140-142 major GCs; engine peak 529-540 MB, service
 *   563-569 MB; 67-69 MB/s per CPU second of the engine process, 59-61 MB/s were the engine's and the
 *   service's work fully overlapped (only the reading overlaps the parse; the deflate and the writes follow
 *   it), 25-26 MB/s for all three processes on one core. Not measured on an idle machine (none came).
 * - 2026-11-27, main just before the next change, load 11.8-14.4: 143.8 s wall (3.0 MB/s), engine 12.3 s,
 *   service 20.1 s, PostgreSQL 12.4 s (the upload's checkpoint included), peak 551 / 539 MB, 200 major GCs.
 * - the engine process reads the file from PostgreSQL itself, the columns go in one binary COPY streamed
 *   from its pipe through the service, measurement columns kept raw (stored blocks framed on the way), load
 *   14.2-13.4: 50.9 s wall (8.6 MB/s), engine 7.7 s, service 4.6 s, PostgreSQL 5.5 s (after a checkpoint of
 *   the upload), peak 409 / 230 MB, 36 major GCs. The wall time is the engine process waiting under
 *   SCHED_IDLE at this load: the service's profile is 84% idle.
 * - 2026-11-27, load 2.2-3.4, the file parsed in two halves at once (two threads, reverted): 11.3-12.3 s wall,
 *   engine 9.6-10.8 s, peak 591-623 MB, against 10.5-13.4 s, 7.8-10.6 s and 425-433 MB with one reading (in
 *   one build the halves were read by 4.7 and 5.0 s, the columns' finish after them took 1.4 s). The service's profile at load 7: 3.1 of its 5.4 s
 *   CPU in the garbage collector (20-40 mark-compacts of a 35 MB heap while the columns stream), 1.2 s in writev.
 *   Where a build's 10.6 s went at load 2.2-2.6 (one reading): engine process up 0.45 s, read and parse 5.2 s,
 *   the columns' finish (distinct counts) 0.8 s, deflate 0.2 s, then the COPY 3.65 s (PostgreSQL 3.8 s CPU,
 *   service 2.7 s); CPU in all 14.3 s (engine 7.8 s), so 2 cores cannot go below ~7.2 s even fully overlapped.
 * - 2026-11-27 (fourth session), the long number columns written in pieces while the file is parsed (from a thread
 *   of the engine process), the file read by another thread, the distinct counts on two threads; quiet machine:
 *   8.3-8.9 s wall (49.2-52.5 MB/s) in about half the runs, 9.4-12.1 s in the others (the machine's speed varies:
 *   engine CPU 9.2-13.8 s for the same build); fast runs: engine 9.2-10.0 s (parse thread ~6.3 s, reading thread
 *   ~1.7 s, writing thread ~1.1 s), PostgreSQL 4.3-4.7 s, service 0.5 s, engine peak 648-657 MB. Under load 4-5 the
 *   same code took 10.8-20 s: the engine's threads run under SCHED_IDLE.
 * - 2026-11-27 (fifth session), the engine's threads without TypeORM, the pieces read in the parse's shared memory
 *   and written without a copy, the distinct counts' arrays reused; quiet machine, 14 runs: 7.6-8.6 s (50.8-57.7
 *   MB/s) in 10, 8.9-10.0 s in the others; engine 7.8-11.0 s CPU, peak 446-489 MB; PostgreSQL 4.6-5.9 s.
 * - 2026-11-27 (sixth session), the embedded server with glibc malloc settings of its own (a page fault costs ~14 us
 *   on this machine, and glibc's defaults faulted each 1 MiB row's buffers in afresh: PostgreSQL's faults during a
 *   build 135k -> ~70k); quiet machine, 18 runs: 7.3-8.9 s, at least 50 MB/s in 17 (median 7.8 s, 56 MB/s),
 *   PostgreSQL 3.6-4.6 s (5.3-5.5 s in three runs just before), engine 8.5-10.1 s, peak 443-464 MB; the upload
 *   6.2-7.7 s where it took 11.5-12.3 s. A faster number scan inlined in the parse (no call per cell) gained ~10%
 *   of the parse alone but nothing measurable in the build (four alternating pairs); not kept.
 *   The engine process's ~107k faults (its columns' 304 MB among them) are its memory's first touch.
 */
const BEFORE = { wallS: 32.4, engineCpuS: 6.5, serviceCpuS: 12.6, postgresCpuS: 4.3, rows: 1_000_000 };

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

const SITES = ['north', 'south', 'east', 'west', 'centre'];

async function writeCsv(file: string, rows: number): Promise<void> {
  const out = fs.createWriteStream(file);
  const names = ['id', ...Array.from({ length: 34 }, (_, j) => `x${j + 1}`), 'age', 'site', 'grade', 'sex', 'label'];
  out.write(names.join(',') + '\n');
  let seed = 12345;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff; // exact 32-bit LCG
  const lines: string[] = [];
  const cells = new Array<string>(names.length);
  for (let i = 0; i < rows; i++) {
    cells[0] = String(i + 1);
    for (let j = 0; j < 34; j++) {
      const r = rnd();
      if (j % 17 === 5 && r < 0.02) cells[j + 1] = '';
      else if (j === 33) cells[j + 1] = (r * 1e-3).toExponential(6);
      else if (j % 3 === 0) cells[j + 1] = ((r - 0.5) * 200).toPrecision(10);
      else cells[j + 1] = (r * 1000).toPrecision(11);
    }
    cells[35] = String(18 + Math.floor(rnd() * 70));
    cells[36] = SITES[Math.floor(rnd() * 5)];
    cells[37] = `G${1 + Math.floor(rnd() * 4)}`;
    cells[38] = rnd() < 0.5 ? 'F' : 'M';
    cells[39] = rnd() < 0.3 ? 'yes' : 'no';
    lines.push(cells.join(','));
    if (lines.length === 2000) {
      if (!out.write(lines.join('\n') + '\n')) await new Promise<void>((r) => out.once('drain', () => r()));
      lines.length = 0;
    }
  }
  if (lines.length) out.write(lines.join('\n') + '\n');
  await new Promise<void>((r) => out.end(() => r()));
}

/** Clock ticks per second of /proc/<pid>/stat's CPU times (USER_HZ: 100 on Linux). */
const TICK = 100;

/** CPU seconds (user + system, all threads) of a live process, and its resident and peak resident MB; undefined once it is gone. */
function procStat(pid: number): { cpuS: number; rssMb: number; peakMb: number } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuS = (Number(fields[11]) + Number(fields[12])) / TICK;
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { cpuS, rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

/** The pids of the processes whose command line mentions `needle` (PostgreSQL's, by its data directory). */
function pidsMentioning(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmd.includes(needle)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** A PostgreSQL child process's role, from its title ("postgres: user db host(port) COPY" or "... [local] COPY" for a backend). */
function pgRole(pid: number): 'backend' | 'background' {
  try {
    const title = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    return /\(\d+\)|\[local\]/.test(title) ? 'backend' : 'background';
  } catch {
    return 'background';
  }
}

/**
 * Samples every 50 ms the processes of one build: the engine processes (CPU and peak memory, kept from their
 * last sample: they are killed when done), PostgreSQL's postmaster and backends (children of the postmaster).
 */
function processSampler(pgDir: string) {
  const engines = new Map<number, { cpuS: number; peakMb: number }>();
  const postgres = new Map<number, number>();
  const postmaster = pidsMentioning(pgDir)[0];
  const pgPids = () => {
    const pids = postmaster ? [postmaster] : [];
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) pids.push(Number(entry));
      } catch {
        // gone meanwhile
      }
    }
    return pids;
  };
  /** Each PostgreSQL process's role: a backend serving a connection, or one of its background processes. */
  const roles = new Map<number, 'backend' | 'background'>();
  const pgStart = new Map<number, number>();
  for (const pid of pgPids()) pgStart.set(pid, procStat(pid)?.cpuS ?? 0);
  let pgList = pgPids();
  let ticks = 0;
  const sample = () => {
    for (const pid of liveEngineProcesses()) {
      const s = procStat(pid);
      // a process killed but not yet reaped still has its stat, but no memory lines: keep the highest seen
      const before = engines.get(pid);
      if (s) engines.set(pid, { cpuS: Math.max(s.cpuS, before?.cpuS ?? 0), peakMb: Math.max(s.peakMb, before?.peakMb ?? 0) });
    }
    if (++ticks % 10 === 0) pgList = pgPids(); // new backends, twice a second
    for (const pid of pgList) {
      const s = procStat(pid);
      if (s) postgres.set(pid, Math.max(s.cpuS, postgres.get(pid) ?? 0));
      if (!roles.has(pid)) roles.set(pid, pgRole(pid));
    }
  };
  // its own CPU time is this process's too: counted, to be taken off the service's
  let ownCpuS = 0;
  const timed = () => {
    const t = process.cpuUsage();
    sample();
    const d = process.cpuUsage(t);
    ownCpuS += (d.user + d.system) / 1e6;
  };
  const timer = setInterval(timed, 50);
  return {
    stop() {
      timed();
      clearInterval(timer);
      const postgresCpuS = [...postgres].reduce((sum, [pid, cpu]) => sum + cpu - (pgStart.get(pid) ?? 0), 0);
      const backendCpuS = [...postgres]
        .filter(([pid]) => roles.get(pid) === 'backend')
        .reduce((sum, [pid, cpu]) => sum + cpu - (pgStart.get(pid) ?? 0), 0);
      const engineCpuS = [...engines.values()].reduce((sum, e) => sum + e.cpuS, 0);
      const enginePeakMb = Math.max(0, ...[...engines.values()].map((e) => e.peakMb));
      return { engineCpuS, enginePeakMb, postgresCpuS, backendCpuS, engineCount: engines.size, ownCpuS };
    },
  };
}

const cpuOfThisProcess = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

async function main() {
  const rows = Number(arg('rows') ?? 1_000_000);
  const given = arg('file');
  const file = given ?? path.join(os.tmpdir(), `signet-ingest-${rows}x40.csv`);
  if (!fs.existsSync(file)) {
    const t = Date.now();
    await writeCsv(file, rows);
    process.stdout.write(`wrote ${file} in ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
  }
  const bytes = fs.statSync(file).size;
  const mb = bytes / 1048576;
  const shape = given ? path.basename(file) : `${rows.toLocaleString('en')} x 40 (36 numerical, 4 categorical)`;
  process.stdout.write(
    `file: ${shape}, ${mb.toFixed(1)} MB (MiB), ${os.availableParallelism()} cores, load ${os.loadavg()[0].toFixed(1)}\n`,
  );

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-ingest-'));
  const s = await startServer({ WORKER_CORES: '2', MAX_TABULAR_FILE_BYTES: String(2 * 1024 ** 3) }, dir);
  let built: { wallS: number; sampleCount: number; featureCount: number; storedMb: number };
  let usage: ReturnType<ReturnType<typeof processSampler>['stop']>;
  let serviceCpuS: number;
  let serviceSystemS: number;
  let servicePeakMb: number;
  let gcs = { minor: 0, major: 0, ms: 0 };
  try {
    const { projectId } = await call<{ projectId: string }>(s, 'POST', '/createProject', { name: 'bench' });
    let t = Date.now();
    const up = await uploadFile(s.base, s.auth, 'big', file);
    process.stdout.write(
      `upload:        ${((Date.now() - t) / 1000).toFixed(1)} s, ${(mb / ((Date.now() - t) / 1000)).toFixed(1)} MB/s (not part of the build)\n`,
    );

    // the upload's pages written out now: the checkpoint that would follow it is not the build's work
    await s.app.get(DataSource).query('CHECKPOINT');
    global.gc?.();
    const profile = arg('profile');
    const session = profile ? new inspector.Session() : undefined;
    if (session) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    gcs = { minor: 0, major: 0, ms: 0 };
    const gcObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const kind = (e as { detail?: { kind?: number } }).detail?.kind;
        if (kind === 1)
          gcs.minor++; // NODE_PERFORMANCE_GC_MINOR
        else gcs.major++;
        gcs.ms += e.duration;
      }
    });
    gcObserver.observe({ entryTypes: ['gc'] });
    const sampler = processSampler(dir);
    let peakRss = process.memoryUsage.rss();
    const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 50);
    const cpu0 = cpuOfThisProcess();
    const usage0 = process.cpuUsage();
    t = Date.now();
    const { taskId } = await call<{ taskId: string }>(s, 'POST', '/file/big/createDataset', {
      projectId,
      name: 'big',
      fileSizeInBytes: up.sizeInBytes,
    });
    let task: TaskStatus;
    do {
      // a status request costs the service a few ms of CPU: 4 a second, not 20 (they counted as the build's)
      await new Promise((r) => setTimeout(r, 250));
      task = await call<TaskStatus>(s, 'GET', `/task/${taskId}/status`);
    } while (task.state !== 'finished' && task.state !== 'failed');
    const wallS = (Date.now() - t) / 1000;
    clearInterval(rssTimer);
    servicePeakMb = peakRss / 1048576;
    usage = sampler.stop();
    gcObserver.disconnect();
    if (session && profile) {
      const { profile: out } = await session.post('Profiler.stop');
      fs.writeFileSync(profile, JSON.stringify(out));
      session.disconnect();
    }
    serviceCpuS = cpuOfThisProcess() - cpu0 - usage.ownCpuS;
    const split = process.cpuUsage(usage0);
    serviceSystemS = split.system / 1e6;
    if (task.state !== 'finished') throw new Error(`task failed: ${JSON.stringify(task.error)}`);
    const ds = await call<DatasetInfo>(s, 'GET', `/dataset/${task.datasetId}`);
    built = { wallS, sampleCount: ds.sampleCount, featureCount: ds.featureCount, storedMb: ds.sizeInBytes / 1048576 };
  } finally {
    await s.stop();
  }

  const ratio = (now: number, before: number) =>
    before > 0 && !given && rows === BEFORE.rows ? ` (${(now / before).toFixed(2)}x before)` : '';
  const speed = mb / built.wallS;
  const beforeSpeed = BEFORE.wallS > 0 ? mb / BEFORE.wallS : 0;
  process.stdout.write(
    [
      `build:         ${built.wallS.toFixed(1)} s wall, ${speed.toFixed(1)} MB/s${ratio(speed, beforeSpeed)} (target >= 50 MB/s: ${speed >= 50 ? 'met' : 'MISSED'}); ${built.sampleCount} x ${built.featureCount}, stored ${built.storedMb.toFixed(1)} MB`,
      `CPU time:      engine process (read, parse, write) ${usage.engineCpuS.toFixed(1)} s${ratio(usage.engineCpuS, BEFORE.engineCpuS)}, service ${serviceCpuS.toFixed(1)} s${ratio(serviceCpuS, BEFORE.serviceCpuS)} (${serviceSystemS.toFixed(1)} s in the kernel), PostgreSQL ${usage.postgresCpuS.toFixed(1)} s${ratio(usage.postgresCpuS, BEFORE.postgresCpuS)} (${usage.backendCpuS.toFixed(1)} s in backends)`,
      // what the build would run at with a core to itself: the engine process waits under SCHED_IDLE when others want the cores
      `CPU-based:     ${(mb / usage.engineCpuS).toFixed(1)} MB/s per CPU second of the engine process, ${(mb / Math.max(usage.engineCpuS, serviceCpuS)).toFixed(1)} MB/s were the engine's and the service's work fully overlapped, ${(mb / (usage.engineCpuS + serviceCpuS + usage.postgresCpuS)).toFixed(1)} MB/s on one core for all three`,
      `peak memory:   engine process ${usage.enginePeakMb.toFixed(0)} MB (target < 1024 MB: ${usage.enginePeakMb < 1024 ? 'met' : 'MISSED'}), service process ${servicePeakMb.toFixed(0)} MB (this process)`,
      `service GC:    ${gcs.major} major (incl. incremental marking), ${gcs.minor} minor, ${(gcs.ms / 1000).toFixed(1)} s in pauses`,
    ].join('\n') + '\n',
  );

  // the parser alone, in this process, from the file (no PostgreSQL, no engine process)
  if (process.argv.includes('--build-only')) return;
  const cpu0 = cpuOfThisProcess();
  const t = Date.now();
  const table = await parseTable(fs.createReadStream(file, { highWaterMark: 1 << 20 }), {
    separator: ',',
    hasFeatureHeaders: true,
    hasSampleHeaders: false,
    hasSamplesInRows: true,
    sizeInBytes: bytes,
  });
  const parseS = (Date.now() - t) / 1000;
  process.stdout.write(
    `parser alone:  ${parseS.toFixed(1)} s wall, ${(mb / parseS).toFixed(1)} MB/s, ${(cpuOfThisProcess() - cpu0).toFixed(1)} s CPU (${table.sampleCount} x ${table.columns.length})\n`,
  );
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exit(1);
  },
);
