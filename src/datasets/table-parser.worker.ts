import * as os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { Pool } from 'pg';
import { buffersOf } from '../common/worker-thread';
import { packTable } from './column-codec';
import { ParsedTable, parseTable, TableError, TableOptions } from './table-parser';
import { StoredFileSource, storedFileBytes } from './stored-file';

/**
 * The thread's workerData: the parser's options, whether to pack the columns as stored (packTable), and
 * `source`: the stored file this thread reads from the database itself (else the main thread sends the chunks).
 */
export type ParserThreadOptions = TableOptions & { pack?: boolean; source?: StoredFileSource };
/** From the main thread: the file's chunks in order, then the end. (A failure to read them ends the thread.) */
export type ParseInput = { chunk: Uint8Array } | { end: true };
/** To the main thread: one `taken` per chunk consumed (flow control), then the table or the fault. */
export type ParseOutput = { taken: true } | { ok: true; table: ParsedTable } | { ok: false; tableError: boolean; message: string };

/** The stored file is read in pieces of this size: each is parsed while it is still in the core's cache. */
const PIECE_BYTES = 1 << 20;

const port = parentPort!;
const queue: ParseInput[] = [];
let wake: (() => void) | undefined;
port.on('message', (m: ParseInput) => {
  queue.push(m);
  wake?.();
  wake = undefined;
});

async function* sentChunks(): AsyncGenerator<Buffer> {
  for (;;) {
    while (!queue.length) await new Promise<void>((r) => (wake = r));
    const m = queue.shift()!;
    if ('end' in m) return;
    port.postMessage({ taken: true } satisfies ParseOutput);
    yield Buffer.from(m.chunk.buffer, m.chunk.byteOffset, m.chunk.byteLength);
  }
}

/** The table of the file, from the database (`source`) or from the main thread's chunks. */
async function parse(options: ParserThreadOptions): Promise<ParsedTable> {
  const source = options.source;
  if (!source) return parseTable(sentChunks(), options);
  const pool = new Pool({ connectionString: source.databaseUrl, max: 1 });
  pool.on('error', () => undefined); // a connection lost while idle: the read that needs it fails
  try {
    return await parseTable(storedFileBytes(pool, source.filePk, source.sizeInBytes, PIECE_BYTES), options);
  } finally {
    await pool.end();
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
