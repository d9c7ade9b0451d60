import type { PipedBytes } from '../common/blob-channel';
import type { FeatureType } from '../engine/types';
import { storedFrames, storedSize } from './column-codec';

/**
 * A column to write: its stored data (deflated, or with `raw` its bytes as they are, framed as deflate's
 * stored blocks as they are written), already here or still in an engine process's pipe.
 */
export interface ColumnRow {
  name: string;
  type: FeatureType;
  encoding: 'f64' | 'dict';
  data: Uint8Array | PipedBytes;
  raw?: boolean;
  levels?: string[];
  missingCount: number;
  distinctCount: number;
  /** Pieces written before it (column-pieces.ts): their count and size; `data` is what follows them. */
  pieces?: { count: number; bytes: number };
}

/** PostgreSQL's binary COPY header: signature, flags, header extension length. */
export const COPY_HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
/** The end of a binary COPY: a tuple of -1 fields. */
export const COPY_TRAILER = Buffer.from([0xff, 0xff]);
/** The first byte of jsonb's binary form (its version), before the JSON text. */
const JSONB_VERSION = 1;

/**
 * The bytes of a binary COPY (datasets.queries.ts's copyColumns) of the columns of dataset `datasetId`, in order, the `idx` of each
 * its position: a tuple's fields go around its data, which is passed on as it comes (a piped column's pieces
 * are read from its pipe as the COPY takes them). `columns` may produce each column only when it is wanted (a
 * column packed here: while the one before is written). `written` is told the size of each column's data and
 * levels (the dataset's size in bytes).
 */
export async function* columnRows(
  datasetId: string,
  columns: AsyncIterable<ColumnRow>,
  written: (bytes: number) => void,
): AsyncGenerator<Uint8Array> {
  yield COPY_HEADER;
  let idx = 0;
  for await (const c of columns) {
    const levels = c.levels ? Buffer.from(JSON.stringify(c.levels), 'utf8') : undefined;
    const stored = c.raw ? storedSize(c.data.byteLength) : c.data.byteLength;
    yield head(datasetId, idx++, c, stored);
    const pieces = c.data instanceof Uint8Array ? [c.data] : c.data.pieces();
    if (c.raw) yield* storedFrames(pieces, c.data.byteLength);
    else yield* pieces;
    yield tail(levels, c.missingCount, c.distinctCount, c.pieces?.count ?? 0);
    written(stored + (levels?.length ?? 0) + (c.pieces?.bytes ?? 0));
  }
  yield COPY_TRAILER;
}

/** A tuple's fields up to its data's length (`dataBytes`): its 10 fields, dataset_id, idx, name, type, encoding. */
function head(datasetId: string, idx: number, c: ColumnRow, dataBytes: number): Buffer {
  const texts = [c.name, c.type, c.encoding].map((t) => Buffer.from(t, 'utf8'));
  const out = Buffer.allocUnsafe(2 + 12 + 8 + texts.reduce((n, t) => n + 4 + t.length, 0) + 4);
  let at = out.writeInt16BE(10, 0);
  at = out.writeInt32BE(8, at);
  at = out.writeBigInt64BE(BigInt(datasetId), at);
  at = out.writeInt32BE(4, at);
  at = out.writeInt32BE(idx, at);
  for (const t of texts) {
    at = out.writeInt32BE(t.length, at);
    at += t.copy(out, at);
  }
  out.writeInt32BE(dataBytes, at);
  return out;
}

/** A tuple's fields after its data: levels (jsonb, or NULL), missing_count, distinct_count, pieces. */
function tail(levels: Buffer | undefined, missingCount: number, distinctCount: number, pieces: number): Buffer {
  const out = Buffer.allocUnsafe(4 + (levels ? 1 + levels.length : 0) + 24);
  let at = 0;
  if (levels) {
    at = out.writeInt32BE(levels.length + 1, at);
    out[at++] = JSONB_VERSION;
    at += levels.copy(out, at);
  } else at = out.writeInt32BE(-1, at);
  at = out.writeInt32BE(4, at);
  at = out.writeInt32BE(missingCount, at);
  at = out.writeInt32BE(4, at);
  at = out.writeInt32BE(distinctCount, at);
  at = out.writeInt32BE(4, at);
  out.writeInt32BE(pieces, at);
  return out;
}
