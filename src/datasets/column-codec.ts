import { promisify } from 'node:util';
import { deflateRaw, deflateRawSync, inflateRaw, inflateRawSync, constants } from 'node:zlib';
import type { EngineColumn, FeatureType } from '../engine/types';
import { parseNumber } from './column-builder';
import type { ParsedTable } from './table-parser';
import { inLanes } from './write-batches';

const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw);

/** A column as stored: its type (what it means) and its encoding (how its values are kept). */
export interface StoredColumn {
  name: string;
  type: FeatureType;
  encoding: 'f64' | 'dict';
  values?: Float64Array;
  codes?: Int32Array;
  levels?: string[];
}

/** Columns up to this size are deflated as they are; a larger one is first tried on a sample of this size. */
const SAMPLE_BYTES = 64 * 1024;

/**
 * Columns up to this size are (de)compressed right here: a trip to libuv's pool costs more than the work
 * (~170 us against ~30 us for 100 values), which made a 100 x 50,000 omics table take seconds.
 */
const INLINE_BYTES = 32 * 1024;

/**
 * A column's stored form: its typed array deflated (`raw` false), or its bytes as they are (`raw`), to be
 * written as deflate's stored blocks (storedFrames). Either way what is stored is a plain deflate stream,
 * read by unpackColumn.
 */
export interface PackedData {
  data: Uint8Array;
  raw: boolean;
}

/**
 * Deflates the column's typed array (zlib's fastest level: the data is written once, read often). When a
 * sample shows that deflate barely shrinks it (measurements with many significant digits: a tenth or less),
 * the column is kept raw instead: no deflate, no copy (its frames are written around its bytes as they go
 * to the database), where deflating it took most of a build's CPU time after the parse, for a result at most
 * a tenth larger (about 6% on measurements of 10 significant digits).
 */
export async function packColumn(c: { encoding: 'f64' | 'dict'; values?: Float64Array; codes?: Int32Array }): Promise<PackedData> {
  const array = c.encoding === 'f64' ? (c.values as Float64Array) : (c.codes as Int32Array);
  const bytes = Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  if (bytes.length <= INLINE_BYTES) return { data: deflateRawSync(bytes, { level: constants.Z_BEST_SPEED }), raw: false };
  if (bytes.length > 4 * SAMPLE_BYTES) {
    const sample = await deflate(bytes.subarray(0, SAMPLE_BYTES), { level: constants.Z_BEST_SPEED });
    if (sample.length > RAW_RATIO * SAMPLE_BYTES)
      return { data: new Uint8Array(array.buffer, array.byteOffset, array.byteLength), raw: true };
  }
  // one output buffer of the input's size (deflate never grows data by much) rather than a list of 16 KiB pieces
  const data = await deflate(bytes, { level: constants.Z_BEST_SPEED, chunkSize: outputChunk(bytes.length + 1024) });
  return { data, raw: false };
}

/** A column whose sample deflates to more than this fraction of its size is kept raw. */
const RAW_RATIO = 0.9;

/**
 * A piece of a column (column-pieces.ts) as stored: deflated when `deflated`, else its bytes as stored blocks;
 * either way no block is marked the last, and it ends on a byte (a deflated piece is flushed, not finished), so
 * that pieces and the column's own data after them read as one stream.
 */
export function packPiece(bytes: Uint8Array, deflated: boolean): Uint8Array[] {
  if (deflated) return [deflateRawSync(bytes, { level: constants.Z_BEST_SPEED, finishFlush: constants.Z_SYNC_FLUSH })];
  const frames: Uint8Array[] = [];
  for (let from = 0; from < bytes.length || from === 0; from += STORED_BLOCK) {
    const length = Math.min(STORED_BLOCK, bytes.length - from);
    frames.push(storedHeader(length, false), bytes.subarray(from, from + length));
    if (!length) break;
  }
  return frames;
}

/** Whether deflate shrinks the first SAMPLE_BYTES of `bytes` enough to store a column's pieces deflated. */
export function deflatesWell(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, SAMPLE_BYTES);
  return deflateRawSync(sample, { level: constants.Z_BEST_SPEED }).length <= RAW_RATIO * sample.length;
}

/** Deflate's largest stored (uncompressed) block. */
const STORED_BLOCK = 65535;

/** The 5-byte header of a stored block of `length` bytes (BTYPE 00), marked the last when `final`. */
function storedHeader(length: number, final: boolean): Buffer {
  const h = Buffer.allocUnsafe(5);
  h[0] = final ? 1 : 0;
  h.writeUInt16LE(length, 1);
  h.writeUInt16LE(length ^ 0xffff, 3);
  return h;
}

/** The size of `byteLength` raw bytes as deflate's stored blocks: 5 bytes of header per block of up to 65,535. */
export function storedSize(byteLength: number): number {
  return byteLength + 5 * Math.max(1, Math.ceil(byteLength / STORED_BLOCK));
}

/**
 * The `byteLength` bytes that `pieces` give, as a raw deflate stream of stored blocks (RFC 1951 3.2.4): each
 * block's 5-byte header, then views of the pieces' bytes (never copied), whatever the pieces' boundaries.
 */
export async function* storedFrames(
  pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  byteLength: number,
): AsyncGenerator<Uint8Array> {
  let left = byteLength; // bytes not yet in a block
  let inBlock = 0; // bytes the current block still takes
  const header = (length: number) => {
    const h = storedHeader(length, length === left); // BFINAL on the last block
    left -= length;
    inBlock = length;
    return h;
  };
  if (byteLength === 0) yield header(0);
  for await (let piece of pieces) {
    while (piece.length) {
      if (inBlock === 0) yield header(Math.min(STORED_BLOCK, left));
      const take = Math.min(inBlock, piece.length);
      yield piece.subarray(0, take);
      piece = piece.subarray(take);
      inBlock -= take;
    }
  }
  if (left > 0 || inBlock > 0) throw new Error(`a raw column gave fewer bytes than its ${byteLength}`);
}

/** A packed column as it is stored: one buffer (a raw one framed as stored blocks). */
export async function storedForm(p: PackedData): Promise<Buffer> {
  if (!p.raw) return Buffer.from(p.data.buffer, p.data.byteOffset, p.data.byteLength);
  const parts: Uint8Array[] = [];
  for await (const part of storedFrames([p.data], p.data.byteLength)) parts.push(part);
  return Buffer.concat(parts);
}

/**
 * Packs every column of a parsed table (packColumn, `lanes` at a time on libuv's pool) and lets its typed
 * array go (a raw one stays, as `packed`): what a build sends back from the engine process is then the
 * stored form, and the service only writes it. A number column keeps whether it holds a negative value (for impossibleType).
 */
export async function packTable(table: ParsedTable, lanes: number): Promise<void> {
  await inLanes(table.columns, lanes, async (c) => {
    if (c.encoding === 'f64') c.negative = hasNegative(c.values as Float64Array);
    // a column stored in pieces already (column-pieces.ts): only the rows after them are packed here
    const { data, raw } = await packColumn(c.pieces ? { encoding: 'f64', values: (c.values as Float64Array).subarray(c.pieces.rows) } : c);
    // transferable as it is when large (zlib's own output buffer, or the column's own array); a small one may sit in Node's shared pool: copied
    c.packed = data.buffer.byteLength >= 65536 ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);
    if (raw) c.raw = true;
    c.values = undefined;
    c.codes = undefined;
  });
}

function hasNegative(values: Float64Array): boolean {
  for (let i = 0; i < values.length; i++) if (values[i] < 0) return true;
  return false;
}

/** zlib's output buffer size for a result of about `bytes` (at least its minimum, at most 64 MiB). */
function outputChunk(bytes: number): number {
  return Math.min(64 * 1048576, Math.max(constants.Z_MIN_CHUNK, bytes));
}

/** Inflates a stored column of `length` values into a fresh, aligned typed array. */
export async function unpackColumn(encoding: 'f64' | 'dict', data: Buffer, length: number): Promise<Float64Array | Int32Array> {
  const width = encoding === 'f64' ? 8 : 4;
  const options = { chunkSize: outputChunk(length * width) };
  const raw = length * width <= INLINE_BYTES ? inflateRawSync(data, options) : await inflate(data, options);
  if (raw.length !== length * width) throw new Error(`a stored column holds ${raw.length / width} values where ${length} were expected`);
  // The array must own its memory: columns are transferred to worker threads, and a small zlib output is a
  // slice of Node's shared Buffer pool. A large output owns its ArrayBuffer exactly; anything else is copied.
  let memory = raw.buffer;
  if (raw.byteOffset !== 0 || memory.byteLength !== raw.length) {
    memory = new ArrayBuffer(raw.length);
    new Uint8Array(memory).set(raw);
  }
  return encoding === 'f64' ? new Float64Array(memory) : new Int32Array(memory);
}

/** Levels of a numbers column, for using it as categories: its distinct values, ascending. */
function numbersAsCodes(values: Float64Array): { codes: Int32Array; levels: string[] } {
  const distinct = [...new Set(Array.from(values).filter((v) => !Number.isNaN(v)))].sort((a, b) => a - b);
  const index = new Map(distinct.map((v, i) => [v, i]));
  const codes = Int32Array.from(values, (v) => (Number.isNaN(v) ? -1 : (index.get(v) as number)));
  return { codes, levels: distinct.map(String) };
}

/** Values of a text column whose levels are all numbers (checked when its type was set). */
function codesAsNumbers(codes: Int32Array, levels: string[]): Float64Array {
  const numbers = levels.map(parseNumber);
  return Float64Array.from(codes, (c) => (c < 0 ? NaN : numbers[c]));
}

/** The engine's view of a stored column, converted to what its type needs. */
export function toEngineColumn(c: StoredColumn): EngineColumn {
  const numeric = c.type === 'numerical' || c.type === 'timeToEvent';
  if (numeric) {
    const values = c.encoding === 'f64' ? (c.values as Float64Array) : codesAsNumbers(c.codes as Int32Array, c.levels ?? []);
    return { name: c.name, type: c.type as 'numerical' | 'timeToEvent', values };
  }
  if (c.type === 'event' && c.encoding === 'f64') return { name: c.name, type: 'event', values: c.values as Float64Array };
  const { codes, levels } =
    c.encoding === 'dict' ? { codes: c.codes as Int32Array, levels: c.levels ?? [] } : numbersAsCodes(c.values as Float64Array);
  return { name: c.name, type: c.type as 'categorical' | 'identifier' | 'event', codes, levels };
}

/** Columns that must be read as text whatever they hold: those the user typed categorical or identifier. */
export function textColumnsOf(overrides: Record<string, FeatureType>): Set<string> {
  return new Set(
    Object.entries(overrides)
      .filter(([, t]) => t === 'categorical' || t === 'identifier')
      .map(([n]) => n),
  );
}

/**
 * The type of the parsed column `i`: the user's override, else identifier for the sample-name column,
 * numerical when every present value is a number, categorical otherwise (docs/decisions.md).
 */
export function columnType(table: ParsedTable, i: number, overrides: Record<string, FeatureType>): FeatureType {
  const c = table.columns[i];
  // own keys only: a column may be named "constructor" or "toString"
  if (Object.hasOwn(overrides, c.name)) return overrides[c.name];
  return i === table.sampleColumn ? 'identifier' : c.encoding === 'f64' ? 'numerical' : 'categorical';
}

export const FEATURE_TYPES: readonly FeatureType[] = ['numerical', 'categorical', 'identifier', 'event', 'timeToEvent'];

/** Why `type` is not possible for the column, or undefined when it is. */
export function impossibleType(
  c: { name: string; encoding: 'f64' | 'dict'; values?: Float64Array; negative?: boolean; levels?: string[]; distinctCount: number },
  type: FeatureType,
): string | undefined {
  const numeric = c.encoding === 'f64' || (c.levels ?? []).every((l) => !Number.isNaN(parseNumber(l)));
  if ((type === 'numerical' || type === 'timeToEvent') && !numeric) {
    const bad = (c.levels ?? []).find((l) => Number.isNaN(parseNumber(l)));
    return `"${c.name}" holds text ("${String(bad).slice(0, 40)}"), so it cannot be ${type}`;
  }
  if (type === 'timeToEvent') {
    // a column packed where it was parsed has only its `negative` flag left
    const negative =
      c.encoding === 'f64' && !c.values
        ? c.negative === true
        : (c.encoding === 'f64' ? Array.from(c.values ?? []) : (c.levels ?? []).map(parseNumber)).some((v) => v < 0);
    if (negative) return `"${c.name}" has negative values, so it cannot be a time to event`;
  }
  if (type === 'event' && c.distinctCount !== 2) {
    return `"${c.name}" has ${c.distinctCount} distinct values; an event column needs exactly two (event / censored)`;
  }
  return undefined;
}
