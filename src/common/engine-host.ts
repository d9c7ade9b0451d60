/**
 * The engine process (started by EngineWorker in engine-process.ts): lowers its priority, runs one
 * worker-thread script with the workerData it is sent first, and relays messages between that thread and
 * the service. It ends with the thread. No Nest, no database: only the script's own imports.
 */
import * as fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { setNice } from './engine-process';
import type { HostMessage } from './engine-process';

const nice = Number(process.env.ENGINE_NICE ?? 10);
const maxMemoryMb = Number(process.env.ENGINE_MAX_MEMORY_MB ?? 0);

// Linux keeps a niceness per thread, and a new thread takes its creator's: lower every thread that exists
// now (V8's and libuv's helpers started with the process), and the threads started later inherit it.
function lowerEveryThread(): void {
  let tids: string[] = [];
  try {
    tids = fs.readdirSync('/proc/self/task');
  } catch {
    // not Linux: the process-wide call below is all there is
  }
  setNice(process.pid, nice);
  for (const tid of tids) setNice(Number(tid), nice);
}
lowerEveryThread();

function send(m: HostMessage): void {
  if (process.connected) process.send?.(m);
}

let worker: Worker | undefined;
let finished = false;

process.on('message', (m: unknown) => {
  if (worker) {
    // copied, not moved: a deserialized typed array is a view into the channel's read buffer
    worker.postMessage(m);
    return;
  }
  const { script, workerData } = m as { script: string; workerData: unknown };
  worker = new Worker(script, {
    workerData,
    // the process's heap limit is V8's flag; give the thread the same bound
    resourceLimits: maxMemoryMb > 0 ? { maxOldGenerationSizeMb: maxMemoryMb } : undefined,
  });
  worker.on('message', (message: unknown) => send({ type: 'message', message }));
  worker.once('error', (e: Error & { code?: string }) => {
    const message =
      e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'the engine ran out of memory (ENGINE_MAX_MEMORY_MB)' : `the engine failed: ${e.message}`;
    send({ type: 'error', message });
  });
  worker.once('exit', (code) => {
    finished = true;
    // exit once the messages before this one are written: the service gets every one of them
    if (process.connected) process.send?.({ type: 'end' } satisfies HostMessage, () => process.exit(code));
    else process.exit(code);
  });
});

// The service went away (its own crash or kill -9): nothing left to compute for.
process.on('disconnect', () => {
  if (finished) return;
  if (worker) void worker.terminate().then(() => process.exit(1));
  else process.exit(1);
});
