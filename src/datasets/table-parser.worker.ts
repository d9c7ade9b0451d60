import * as os from 'node:os';
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { safePool } from '../database/pg-pool';
import { workerScript } from '../common/worker-script';
import { buffersOf } from '../common/worker-thread';
import { distinctNumbers } from './column-builder';
import { packTable } from './column-codec';
import type { DistinctAnswer } from './distinct-count.worker';
import { PieceTarget, PieceThread } from './column-pieces';
import { ParsedTable, parseTable, TableError, TableOptions } from './table-parser';
import { StoredFileSource, storedFileBytes, storedFileInThread } from './stored-file';

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

/** Files from this size on are read by a thread of their own: a smaller one costs less than the thread's start. */
const READ_APART_BYTES = 8 * PIECE_BYTES;

/** The stored file's pieces: read by a thread of its own (a large file), or here over a connection of its own. */
async function* fileBytes(source: StoredFileSource): AsyncGenerator<Buffer> {
  if (source.sizeInBytes >= READ_APART_BYTES) {
    yield* storedFileInThread(source, PIECE_BYTES);
    return;
  }
  // a connection lost, idle or held between statements: the read that needs it fails (pg-pool.ts)
  const pool = safePool({ connectionString: source.databaseUrl, max: 1 });
  try {
    yield* storedFileBytes(pool, source.filePk, source.sizeInBytes, PIECE_BYTES);
  } finally {
    await pool.end();
  }
}

/** The table of the stored file, read from the database. */
async function parse(options: ParserThreadOptions): Promise<ParsedTable> {
  const source = options.source;
  // a large file is read, and a long one's pieces written, by threads of their own, each over a connection of its own
  const writer = options.pieces ? new PieceThread(source.databaseUrl, options.pieces) : undefined;
  try {
    const table = await parseTable(fileBytes(source), {
      ...options,
      pieces: writer?.cuts(),
      distinct: countDistinctInTwo,
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

const DISTINCT_SCRIPT = workerScript(__dirname, __filename, 'distinct-count.worker');

/** Columns shorter than this are all counted here: a thread's start costs more than they do. */
const DISTINCT_APART = 100_000;

/** The answer of a thread started on `script` with `data` (its memory `transfer`red, and back with the answer). */
function runThread<T>(script: string, data: unknown, transfer: ArrayBuffer[]): Promise<T & { buffers: ArrayBufferLike[] }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(script, { workerData: data, transferList: transfer });
    worker.once('message', (m: T & { buffers: ArrayBufferLike[] }) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code: number) => reject(new Error(`the distinct-count thread exited with code ${code}`)));
  });
}

/**
 * distinctNumbers of each column, half of them on a thread of their own (distinct-count.worker.ts) while this
 * one counts the others: the last step of a parse, which left a core idle (0.8 s for 36 columns of a million).
 * The arrays sent there come back as new views of the same memory.
 */
async function countDistinctInTwo(values: Float64Array[]): Promise<{ counts: number[]; values: Float64Array[] }> {
  const counts = new Array<number>(values.length);
  const away = values.map((_, k) => k).filter((k) => k % 2 === 1 && values[k].length >= DISTINCT_APART);
  const sent = away.map((k) => ({ buffer: values[k].buffer, byteOffset: values[k].byteOffset, length: values[k].length }));
  // moved there and back; shared memory (a cut file's numbers) is shared, not moved
  const back = away.length
    ? runThread<DistinctAnswer>(DISTINCT_SCRIPT, { columns: sent }, buffersOf(away.map((k) => values[k])))
    : Promise.resolve({ counts: [], buffers: [] });
  values.forEach((v, k) => {
    if (!away.includes(k)) counts[k] = distinctNumbers(v);
  });
  const answer = await back;
  const out = [...values];
  away.forEach((k, j) => {
    counts[k] = answer.counts[j];
    out[k] = new Float64Array(answer.buffers[j], sent[j].byteOffset, sent[j].length);
  });
  return { counts, values: out };
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
