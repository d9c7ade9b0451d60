import { EngineWorker } from '../common/engine-process';
import { workerScript } from '../common/worker-thread';
import { ParsedTable, TableError, TableOptions } from './table-parser';
import type { ParseInput, ParseOutput, ParserThreadOptions } from './table-parser.worker';
import type { StoredFileSource } from './stored-file';

const SCRIPT = workerScript(__dirname, __filename, 'table-parser.worker');

/** Chunks sent to the parser thread and not yet taken by it: bounds the memory between the two threads. */
const IN_FLIGHT = 4;

let live = 0;

/** Parser threads alive in this process (for tests and diagnostics). */
export function liveParserThreads(): number {
  return live;
}

/** The parser thread in an engine process (engine-process.ts, at a lower priority), and its answer. */
function startParser(options: ParserThreadOptions, streamBlobs: boolean): { worker: EngineWorker; result: Promise<ParsedTable> } {
  const worker = new EngineWorker(SCRIPT, { workerData: options, streamBlobs });
  live++;
  worker.once('exit', () => live--);
  const result = new Promise<ParsedTable>((resolve, reject) => {
    worker.on('message', (m: ParseOutput) => {
      if ('taken' in m) return;
      if (m.ok) resolve(m.table);
      else reject(m.tableError ? new TableError(m.message) : new Error(m.message));
    });
    worker.once('error', reject);
    worker.once('exit', (code: number) => reject(new Error(`the parser thread exited with code ${code}`)));
  });
  return { worker, result };
}

/** What aborted `signal`, as an Error. */
function reasonOf(signal: AbortSignal | undefined): Error {
  return signal?.reason instanceof Error ? signal.reason : new Error('aborted');
}

/** A table parsed and packed by an engine process that read the stored file itself. */
export interface PipedTable {
  /** Its columns' `packed` data waits in the process's data pipe (PipedBytes), to be read in column order. */
  table: ParsedTable;
  /** Ends the process: once the data is read, or to drop it. Aborting the signal does the same. */
  release: () => void;
}

/**
 * parseTable, then packTable, in an engine process that reads the stored file from the database over a
 * connection of its own: this process never touches the file's bytes, nor holds the columns' data, which
 * waits in the engine process until read from its pipe. A fault in the file rejects with TableError;
 * aborting `signal` (until release) ends the process.
 */
export async function parseStoredTable(source: StoredFileSource, options: TableOptions, signal?: AbortSignal): Promise<PipedTable> {
  signal?.throwIfAborted();
  const { worker, result } = startParser({ ...options, source, pack: true }, true);
  let aborted: (e: Error) => void = () => undefined;
  const abort = new Promise<never>((_, reject) => (aborted = reject));
  const onAbort = () => {
    void worker.terminate();
    aborted(reasonOf(signal));
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  const release = () => {
    signal?.removeEventListener('abort', onAbort);
    void worker.terminate();
  };
  try {
    return { table: await Promise.race([result, abort]), release };
  } catch (e) {
    release();
    throw e;
  }
}

/**
 * parseTable on a worker thread of an engine process, from chunks this thread reads and sends: at most
 * IN_FLIGHT chunks wait in between, and the event loop stays free. The columns come back on the engine
 * process's data pipe. A fault in the file rejects with TableError; aborting `signal`, or a failure of
 * `chunks`, stops the thread. `release` gets each chunk back once the thread has taken it (its bytes are past
 * the pipe): it may be reused.
 */
export async function parseTableInWorker(
  chunks: AsyncIterable<Buffer>,
  options: ParserThreadOptions,
  signal?: AbortSignal,
  release?: (chunk: Buffer) => void,
): Promise<ParsedTable> {
  signal?.throwIfAborted();
  const { worker, result } = startParser(options, false);
  let inFlight = 0;
  /** The chunks sent and not yet taken, in order: each is handed to `release` once taken (past the pipe). */
  const sent: Buffer[] = [];
  let space: (() => void) | undefined;
  /** Why this side stopped the thread (an abort, a failure of `chunks`), or that the thread ended first. */
  let failed: Error | undefined;
  let ended = false;
  worker.on('message', (m: ParseOutput) => {
    if (!('taken' in m)) return;
    inFlight--;
    const chunk = sent.shift();
    if (chunk) release?.(chunk);
    space?.();
    space = undefined;
  });
  const stop = (e: Error) => {
    failed ??= e;
    space?.();
    void worker.terminate();
  };
  const onAbort = () => stop(reasonOf(signal));
  signal?.addEventListener('abort', onAbort, { once: true });
  // a fault found early: stop reading
  result.catch(() => {
    ended = true;
    space?.();
  });

  try {
    for await (const chunk of chunks) {
      while (inFlight >= IN_FLIGHT && !failed && !ended) await new Promise<void>((r) => (space = r));
      if (failed || ended) break;
      inFlight++;
      if (release) sent.push(chunk);
      // only the chunk's own bytes go to the engine process, whatever buffer it is a view of
      worker.postMessage({ chunk } satisfies ParseInput);
    }
    if (!failed && !ended) worker.postMessage({ end: true } satisfies ParseInput);
  } catch (e) {
    stop(e as Error);
  }
  try {
    return await result.catch((e: Error) => Promise.reject(failed ?? e));
  } finally {
    // only now: an abort while the thread parses the last chunks must stop it too
    signal?.removeEventListener('abort', onAbort);
    void worker.terminate();
  }
}
