import { EngineWorker } from '../common/engine-process';
import { workerScript } from '../common/worker-thread';
import { ParsedTable, TableError } from './table-parser';
import type { ParseInput, ParseOutput, ParserThreadOptions } from './table-parser.worker';

const SCRIPT = workerScript(__dirname, __filename, 'table-parser.worker');

/** Chunks sent to the parser thread and not yet taken by it: bounds the memory between the two threads. */
const IN_FLIGHT = 4;

let live = 0;

/** Parser threads alive in this process (for tests and diagnostics). */
export function liveParserThreads(): number {
  return live;
}

/**
 * parseTable on a worker thread of an engine process (engine-process.ts, at a lower priority): this thread
 * reads the chunks (from PostgreSQL) while that one parses, and the event loop stays free. At most
 * IN_FLIGHT chunks wait in between. The columns come back on the engine process's data pipe. A fault in
 * the file rejects with TableError; aborting `signal`, or a failure of `chunks`, stops the thread. With
 * `pack`, the columns come back packed as stored (packTable: deflated there, not on this event loop).
 * `release` gets each chunk back once the thread has taken it (its bytes are past the pipe): it may be reused.
 */
export async function parseTableInWorker(
  chunks: AsyncIterable<Buffer>,
  options: ParserThreadOptions,
  signal?: AbortSignal,
  release?: (chunk: Buffer) => void,
): Promise<ParsedTable> {
  signal?.throwIfAborted();
  const worker = new EngineWorker(SCRIPT, { workerData: options });
  live++;
  worker.once('exit', () => live--);
  let inFlight = 0;
  /** The chunks sent and not yet taken, in order: each is handed to `release` once taken (past the pipe). */
  const sent: Buffer[] = [];
  let space: (() => void) | undefined;
  let failed: Error | undefined;
  const result = new Promise<ParsedTable>((resolve, reject) => {
    worker.on('message', (m: ParseOutput) => {
      if ('taken' in m) {
        inFlight--;
        const chunk = sent.shift();
        if (chunk) release?.(chunk);
        space?.();
        space = undefined;
        return;
      }
      if (m.ok) resolve(m.table);
      else reject(m.tableError ? new TableError(m.message) : new Error(m.message));
    });
    worker.once('error', reject);
    worker.once('exit', (code: number) => reject(failed ?? new Error(`the parser thread exited with code ${code}`)));
  });
  const stop = (e: Error) => {
    failed ??= e;
    space?.();
    void worker.terminate();
  };
  const onAbort = () => stop(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
  signal?.addEventListener('abort', onAbort, { once: true });
  result.catch(() => stop(new Error('the parser thread stopped'))); // a fault found early: stop reading

  try {
    for await (const chunk of chunks) {
      while (inFlight >= IN_FLIGHT && !failed) await new Promise<void>((r) => (space = r));
      if (failed) break;
      inFlight++;
      if (release) sent.push(chunk);
      // only the chunk's own bytes go to the engine process, whatever buffer it is a view of
      worker.postMessage({ chunk } satisfies ParseInput);
    }
    if (!failed) worker.postMessage({ end: true } satisfies ParseInput);
  } catch (e) {
    stop(e as Error);
  }
  try {
    return await result;
  } finally {
    // only now: an abort while the thread parses the last chunks must stop it too
    signal?.removeEventListener('abort', onAbort);
    void worker.terminate();
  }
}
