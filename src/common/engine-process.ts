import { ChildProcess, fork, spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import * as os from 'node:os';
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { BlobReader, extractBlobs, PipeClosedError, restoreBlobs, writeBlobs } from './blob-channel';
import { workerScript } from './worker-script';

/**
 * How engine work runs: in a child process at a lower scheduling priority than the API (so the event loop
 * wins the cores when both want them) and with its own heap limit (so an analysis that runs out of memory
 * ends that process, not the service). On Linux the engine process also runs under SCHED_IDLE when it can
 * (util-linux's `chrt`, in every Debian-based image): it gets a core only when no ordinary process wants
 * one, and an API thread that wakes up takes the core from it at once, where niceness 19 still leaves it a
 * small share and lets it finish its time slice.
 */
export interface EngineProcessOptions {
  /** Niceness of the engine processes, 0 (the API's) to 19 (lowest). */
  nice: number;
  /** Heap limit of each engine process and of its threads, in MB; 0 leaves V8's default. */
  maxMemoryMb: number;
}

let settings: EngineProcessOptions = { nice: 19, maxMemoryMb: 0 };

/** `chrt` when it can start a program under SCHED_IDLE here (found once, on the first engine process). */
let idleLauncher: string | null | undefined;
function schedIdleLauncher(): string | null {
  if (idleLauncher === undefined) {
    const probe = spawnSync('chrt', ['--idle', '0', process.execPath, '-e', '0'], { stdio: 'ignore', timeout: 10_000 });
    idleLauncher = probe.status === 0 ? 'chrt' : null;
  }
  return idleLauncher;
}

/**
 * Set once at start-up from the configuration (ENGINE_NICE, ENGINE_MAX_MEMORY_MB). It also looks for the SCHED_IDLE
 * launcher then, before the service takes requests: found by the first engine process, its probe (a child process
 * waited for) stalled the event loop for 2.4 s on a loaded machine.
 */
export function configureEngineProcesses(options: EngineProcessOptions): void {
  settings = { ...options };
  schedIdleLauncher();
  // a spare started with the settings before is replaced (it is no longer the spare from this line on)
  if (spare) void endSpare().then(startSpare);
}

export function engineProcessOptions(): EngineProcessOptions {
  return { ...settings };
}

const HOST = workerScript(__dirname, __filename, 'engine-host');
/** The argument of an engine process started ahead of its job (a spare): it drops it from its title once taken. */
export const SPARE_ARG = 'spare';

/** An engine process started under the current settings, its process ready to take a script (engine-host.ts). */
function startHost(asSpare: boolean): ChildProcess {
  const { nice, maxMemoryMb } = settings;
  const execArgv = maxMemoryMb > 0 ? [`--max-old-space-size=${maxMemoryMb}`] : [];
  const launcher = schedIdleLauncher();
  const child = fork(HOST, asSpare ? [SPARE_ARG] : [], {
    // `chrt --idle 0 node ...` sets the policy and then is node (same process, same channels)
    ...(launcher ? { execPath: launcher, execArgv: ['--idle', '0', process.execPath, ...execArgv] } : { execArgv }),
    serialization: 'advanced',
    // stdout, stderr: the service's own (an engine's stray print shows up in its logs); no stdin
    // 4: data to the host, 5: data from it (the large typed arrays of messages)
    stdio: ['ignore', 'inherit', 'inherit', 'ipc', 'pipe', 'pipe'],
    env: { ...process.env, ENGINE_NICE: String(nice), ENGINE_MAX_MEMORY_MB: String(maxMemoryMb) },
  });
  // The host lowers its own threads too (those started before this call); this covers its main thread
  // from the start, before it has run a line.
  if (child.pid !== undefined) setNice(child.pid, nice);
  return child;
}

/**
 * The spare engine process: started ahead of the next job, so that a job does not wait for a process to start
 * (Node's own start and the host's: ~0.2 s of a job's time on this machine, most of a short one's fixed cost). It
 * holds nothing of this process alive (unreferenced) and ends with it (the host exits when its channel closes).
 */
let spare: { child: ChildProcess; exited: Promise<void> } | undefined;
/** Whether a spare is kept: one is started again after an engine process ends, when none is there (keepSpareEngineProcess). */
let keepingSpare = false;

/** How long after an engine process ends the next spare starts. */
const SPARE_AFTER_MS = 300;

/** The handles of a spare's process: referenced again once it is taken, not while it waits. */
function spareHandles(child: ChildProcess): { ref(): void; unref(): void }[] {
  const pipes = child.stdio as unknown as (Socket | null)[];
  const handles: ({ ref(): void; unref(): void } | null | undefined)[] = [child, child.channel, pipes[4], pipes[5]];
  return handles.filter((h): h is { ref(): void; unref(): void } => !!h && typeof h.unref === 'function');
}

function startSpare(): void {
  if (spare || !keepingSpare) return;
  const child = startHost(true);
  for (const h of spareHandles(child)) h.unref();
  const pipes = child.stdio as unknown as (Socket | null)[];
  pipes[4]?.on('error', ignore);
  pipes[5]?.on('error', ignore);
  child.on('error', ignore);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const mine = { child, exited };
  spare = mine;
  // a spare that ends by itself (killed from outside) is not handed out
  void exited.then(() => {
    if (spare === mine) spare = undefined;
  });
}

/**
 * The spare, when it is alive (always one started under the current settings). The next one starts a moment after an
 * engine process ends (EngineWorker.end): started now, it would take CPU from the job that took this one.
 */
function takeSpare(): ChildProcess | undefined {
  const taken = spare;
  spare = undefined;
  if (!taken) return undefined;
  const { child } = taken;
  if (child.exitCode !== null || child.signalCode !== null || !child.connected) {
    child.kill('SIGKILL');
    return undefined;
  }
  child.removeListener('error', ignore);
  for (const h of spareHandles(child)) h.ref();
  return child;
}

/**
 * Keeps a spare engine process from now on (processes that run jobs: job-runner.ts). Each spare is an idle Node
 * process (~30 MB) until a job takes it.
 */
export function keepSpareEngineProcess(): void {
  keepingSpare = true;
  startSpare();
}

/** Stops keeping a spare and ends the one there is (shutdown); resolves once it has exited. */
export async function dropSpareEngineProcess(): Promise<void> {
  keepingSpare = false;
  await endSpare();
}

async function endSpare(): Promise<void> {
  const s = spare;
  spare = undefined;
  if (!s) return;
  s.child.kill('SIGKILL');
  await s.exited;
}

/** The spare engine process's pid, if there is one (for tests and diagnostics). */
export function spareEngineProcess(): number | undefined {
  return spare?.child.pid;
}

const live = new Set<EngineWorker>();

/** Engine processes alive in this process's care (for tests and diagnostics). */
export function liveEngineProcesses(): number[] {
  return [...live].map((w) => w.pid).filter((p): p is number => p !== undefined);
}

/** From the host to this process: the thread's messages, or how it ended. */
/** From the host to this process: the thread's messages (large typed arrays on the data pipe), or how it ended. */
export type HostMessage =
  { type: 'message'; message: unknown; blobs: number } | { type: 'error'; message: string; outOfMemory?: boolean } | { type: 'end' };
/** From this process to the host: the first message starts the thread; the later ones are relayed to it. */
export interface ToHost {
  script?: string;
  message: unknown;
  blobs: number;
}

/**
 * A worker thread that lives in its own child process: the same events ('message', 'error', 'exit') and
 * methods (postMessage, terminate) as a worker_threads Worker, so the code around it stays as it was.
 * The host process (engine-host.ts) runs `script` on a thread with `workerData` and relays messages both
 * ways; large typed arrays go down a data pipe beside the IPC channel (blob-channel.ts: no copy on this
 * event loop), the rest by structured clone (serialization 'advanced'). A crash, an
 * out-of-memory or a kill of the host is an 'error' here, never a fault of this process. terminate() kills
 * the host at once (SIGKILL): the computation stops whatever it is doing.
 */
export class EngineWorker extends EventEmitter {
  private readonly child: ChildProcess;
  private ended = false;
  private terminating = false;
  private failure: Error | undefined;
  private readonly toHost: Writable;
  private readonly fromHost: BlobReader;
  /** Messages are restored one after another (their data in pipe order); the exit waits for them. */
  private chain: Promise<void> = Promise.resolve();

  /**
   * `streamBlobs`: the large typed arrays of the thread's messages are left in the data pipe as PipedBytes
   * (blob-channel.ts), for the receiver to hand on as they arrive; the next message waits until they are read.
   */
  constructor(script: string, options: { workerData?: unknown; streamBlobs?: boolean } = {}) {
    super();
    this.child = takeSpare() ?? startHost(false);
    live.add(this);
    this.toHost = this.child.stdio[4] as Writable;
    const fromHost = (this.child.stdio as unknown as Readable[])[5];
    // a pipe of a killed process fails: its exit says why
    this.toHost.on('error', ignore);
    fromHost.on('error', ignore);
    this.fromHost = new BlobReader(fromHost);
    this.child.on('message', (m: HostMessage) => {
      if (m.type === 'message') {
        this.chain = this.chain
          .then(() => restoreBlobs(m.message, m.blobs, this.fromHost, options.streamBlobs))
          .then(
            ({ message, drained }) => {
              this.emit('message', message);
              return drained;
            },
            (e: Error) => {
              // a message that cannot be read (not a closed pipe: that is the process ending) ends the process
              if (e instanceof PipeClosedError) return;
              this.failure ??= new Error(`a message of the engine process could not be read: ${e.message}`);
              this.child.kill('SIGKILL');
            },
          );
      } else if (m.type === 'error') this.failure ??= m.outOfMemory ? new EngineCrash(m.message) : new Error(m.message);
    });
    // 'on', not 'once': a send to a process that just died is an error event too, and one not listened to
    // would throw in this process
    this.child.on('error', (e) => {
      // the process could not be started (or signalled): the same as its failure
      this.failure ??= new Error(`the engine process could not run: ${e.message}`);
      if (this.child.pid === undefined) this.end(null, null);
    });
    this.child.once('exit', (code, signal) => void this.chain.then(() => this.end(code, signal)));
    this.send({ script, message: options.workerData });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  postMessage(message: unknown): void {
    if (!this.ended && this.child.connected) this.send({ message });
  }

  private send(m: { script?: string; message: unknown }): void {
    const { skeleton, blobs } = extractBlobs(m.message);
    this.child.send({ ...m, message: skeleton, blobs: blobs.length } satisfies ToHost, ignore);
    void writeBlobs(this.toHost, blobs);
  }

  /** Kills the process (SIGKILL: nothing in it needs to finish) and resolves once it is gone. */
  terminate(): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve) => {
      this.terminating = true;
      this.once('exit', () => resolve());
      this.child.kill('SIGKILL');
    });
  }

  private end(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.ended) return;
    this.ended = true;
    live.delete(this);
    // the next spare once the job that ends here has stored its result: a fork holds this event loop (~20 ms)
    setTimeout(startSpare, SPARE_AFTER_MS).unref();
    if (code !== 0 && !this.terminating) countFailure(this.failure, signal);
    // as a Worker: no 'error' for an asked-for end, and none nobody listens to (it would throw here)
    if (code !== 0 && !this.terminating && this.listenerCount('error') > 0) {
      const why =
        this.failure ??
        new EngineCrash(
          signal === 'SIGKILL'
            ? 'the engine process was killed (SIGKILL: out of memory or stopped)'
            : signal
              ? `the engine process was stopped by ${signal}`
              : `the engine process exited with code ${code}`,
        );
      this.emit('error', why);
    }
    this.emit('exit', code ?? 1);
  }
}

/** The engine process ended without being asked: its message (killed, out of memory, an exit code) is for clients too. */
export class EngineCrash extends Error {}

/**
 * Why engine processes of this process ended without being asked: out of memory (its heap limit), killed (SIGKILL:
 * the kernel's OOM killer or an operator), another signal, an error thrown in it, or an exit code. Read by /metrics.
 */
export type EngineFailureReason = 'outOfMemory' | 'killed' | 'signal' | 'error' | 'exit';
const failures: Record<EngineFailureReason, number> = { outOfMemory: 0, killed: 0, signal: 0, error: 0, exit: 0 };

function countFailure(failure: Error | undefined, signal: NodeJS.Signals | null): void {
  const reason: EngineFailureReason =
    failure instanceof EngineCrash && !signal
      ? 'outOfMemory'
      : signal === 'SIGKILL'
        ? 'killed'
        : signal
          ? 'signal'
          : failure
            ? 'error'
            : 'exit';
  failures[reason]++;
}

/** Engine processes that ended without being asked since this process started, by reason. */
export function engineFailures(): Readonly<Record<EngineFailureReason, number>> {
  return { ...failures };
}

/** A failed send: the process is ending, and its 'exit' says why. */
function ignore(): void {}

/** Sets the niceness of one process or thread (Linux: a thread id); a refusal leaves it as it is. */
export function setNice(id: number, nice: number): void {
  try {
    os.setPriority(id, nice);
  } catch {
    // not allowed (e.g. lowering it again needs a privilege): running at the current priority is still correct
  }
}
