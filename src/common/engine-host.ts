/**
 * The engine process (started by EngineWorker in engine-process.ts): lowers its priority, runs one
 * worker-thread script with the workerData it is sent first, and relays messages between that thread and
 * the service. It ends with the thread. No Nest, no database: only the script's own imports.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import { Worker } from 'node:worker_threads';
import { BlobReader, extractBlobs, restoreBlobs, writeBlobs } from './blob-channel';
import { setNice, SPARE_ARG } from './engine-process';
import type { HostMessage, ToHost } from './engine-process';

const nice = Number(process.env.ENGINE_NICE ?? 19);
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

function send(m: HostMessage, done: () => void = () => undefined): void {
  if (process.connected) process.send?.(m, done);
  else done();
}

// the large typed arrays of messages, beside the IPC channel (blob-channel.ts)
const fromService = new BlobReader(new net.Socket({ fd: 4, readable: true, writable: false }));
const toService = new net.Socket({ fd: 5, readable: false, writable: true });
toService.on('error', () => undefined); // the service is gone: 'disconnect' ends this process

let worker: Worker | undefined;
let finished = false;
/** Messages from the service are restored one after another, in the order of their data on the pipe. */
let incoming: Promise<void> = Promise.resolve();
/** The last data written to the service: the process exits after it. */
let written: Promise<void> = Promise.resolve();

function start(script: string, workerData: unknown, transferList: ArrayBuffer[]): void {
  // a spare (started ahead of its job, engine-process.ts) is one no longer: its title (ps, /proc) says so
  if (process.argv.includes(SPARE_ARG)) process.title = process.argv.filter((a) => a !== SPARE_ARG).join(' ');
  const w = new Worker(script, {
    workerData,
    transferList,
    // the process's heap limit is V8's flag; give the thread the same bound
    resourceLimits: maxMemoryMb > 0 ? { maxOldGenerationSizeMb: maxMemoryMb } : undefined,
  });
  worker = w;
  w.on('message', (message: unknown) => {
    const { skeleton, blobs } = extractBlobs(message);
    send({ type: 'message', message: skeleton, blobs: blobs.length });
    written = writeBlobs(toService, blobs);
  });
  w.once('error', (e: Error & { code?: string }) => {
    const outOfMemory = e.code === 'ERR_WORKER_OUT_OF_MEMORY';
    const message = outOfMemory ? 'the engine ran out of memory (ENGINE_MAX_MEMORY_MB)' : `the engine failed: ${e.message}`;
    send({ type: 'error', message, outOfMemory });
  });
  w.once('exit', (code) => {
    finished = true;
    // exit once everything before is written: the service gets every message and its data
    void written.then(() => send({ type: 'end' }, () => process.exit(code)));
  });
}

process.on('message', (m: ToHost) => {
  incoming = incoming
    .then(async () => {
      const { message, buffers } = await restoreBlobs(m.message, m.blobs, fromService);
      // the restored arrays own their buffers: moved to the thread, not copied
      if (!worker) start(m.script!, message, buffers);
      else worker.postMessage(message, buffers);
    })
    .catch((e: Error) => {
      send({ type: 'error', message: `the engine process could not read its data: ${e.message}` }, () => process.exit(1));
    });
});

// The service went away (its own crash or kill -9): nothing left to compute for.
process.on('disconnect', () => {
  if (finished) return;
  if (worker) void worker.terminate().then(() => process.exit(1));
  else process.exit(1);
});
