import * as os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { buffersOf } from '../common/worker-thread';
import { packTable } from './column-codec';
import { PieceTarget, PieceThread } from './column-pieces';
import { ParsedTable, parseTable, TableError, TableOptions } from './table-parser';
import { StoredFileSource, storedFileInThread } from './stored-file';

/**
 * The thread's workerData: the parser's options, whether to pack the columns as stored (packTable), `source`:
 * the stored file this thread reads from the database itself, and with `pieces` where it writes the long number
 * columns' pieces as it parses (column-pieces.ts).
 */
export type ParserThreadOptions = Omit<TableOptions, 'pieces'> & { pack?: boolean; source: StoredFileSource; pieces?: PieceTarget };
/** To the main thread: the table or the fault. */
export type ParseOutput = { ok: true; table: ParsedTable } | { ok: false; tableError: boolean; message: string };

/** The stored file is read in pieces of this size: each is parsed while it is still in the core's cache. */
const PIECE_BYTES = 1 << 20;

const port = parentPort!;

/** The table of the stored file, read from the database. */
async function parse(options: ParserThreadOptions): Promise<ParsedTable> {
  const source = options.source;
  // the file is read, and the pieces written, by threads of their own, each over a connection of its own
  const writer = options.pieces ? new PieceThread(source.databaseUrl, options.pieces) : undefined;
  try {
    const table = await parseTable(storedFileInThread(source, PIECE_BYTES), {
      ...options,
      pieces: writer?.cuts(),
    });
    const stored = await writer?.done();
    // each cut column's pieces, as written
    for (const [idx, bytes] of stored ?? []) {
      const c = table.columns[idx];
      if (c.pieces) c.pieces = { ...c.pieces, bytes };
    }
    return table;
  } catch (e) {
    // its last cuts (IN_FLIGHT at most) are written before the failure is told: the job's clean-up then sees them
    await writer?.done().catch(() => undefined);
    throw e;
  }
}

async function main(): Promise<void> {
  let out: ParseOutput;
  let transfer: ArrayBuffer[] = [];
  try {
    const options = workerData as ParserThreadOptions;
    const table = await parse(options);
    // packed here, off the service's event loop and at the engine's priority (libuv's pool, one lane per core)
    if (options.pack) await packTable(table, Math.max(1, Math.min(4, os.availableParallelism())));
    out = { ok: true, table };
    transfer = buffersOf(
      table.columns.flatMap((c) =>
        [c.values, c.codes, c.packed instanceof Uint8Array ? c.packed : undefined].filter((a) => a !== undefined),
      ),
    );
  } catch (e) {
    out = { ok: false, tableError: e instanceof TableError, message: (e as Error).message || String(e) };
  }
  port.postMessage(out, transfer);
  port.close();
}

void main();
