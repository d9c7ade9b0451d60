import { EngineWorker } from '../common/engine-process';
import type { PieceTarget } from './column-pieces';
import { workerScript } from '../common/worker-thread';
import { ParsedTable, TableError, TableOptions } from './table-parser';
import type { ParseOutput, ParserThreadOptions } from './table-parser.worker';
import type { StoredFileSource } from './stored-file';

const SCRIPT = workerScript(__dirname, __filename, 'table-parser.worker');

let live = 0;

/** Parser threads alive in this process (for tests and diagnostics). */
export function liveParserThreads(): number {
  return live;
}

/** The parser thread in an engine process (engine-process.ts, at a lower priority), and its answer. */
function startParser(options: ParserThreadOptions): { worker: EngineWorker; result: Promise<ParsedTable> } {
  const worker = new EngineWorker(SCRIPT, { workerData: options, streamBlobs: true });
  live++;
  worker.once('exit', () => live--);
  const result = new Promise<ParsedTable>((resolve, reject) => {
    worker.on('message', (m: ParseOutput) => {
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
 * connection of its own (and with `pieces` writes the long number columns' pieces over another as it parses): this process never touches the file's bytes, nor holds the columns' data, which
 * waits in the engine process until read from its pipe. A fault in the file rejects with TableError;
 * aborting `signal` (until release) ends the process.
 */
export async function parseStoredTable(
  source: StoredFileSource,
  options: Omit<TableOptions, 'pieces'>,
  signal?: AbortSignal,
  pieces?: PieceTarget,
): Promise<PipedTable> {
  signal?.throwIfAborted();
  const { worker, result } = startParser({ ...options, source, pack: true, pieces });
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
