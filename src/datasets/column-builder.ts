import type { PipedBytes } from '../common/blob-channel';

/** Missing-value tokens (docs/decisions.md): empty cell, NA, NaN, ?, null, case-insensitive. */
export function isMissing(raw: string): boolean {
  const s = raw.trim();
  if (s.length === 0) return true;
  if (s.length > 4) return false;
  const l = s.toLowerCase();
  return l === 'na' || l === 'nan' || l === '?' || l === 'null';
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A decimal number (no hex, no Infinity), or NaN. A decimal beyond the range of a double (`1e400`) is text, as
 * `Infinity` is: it would be stored as an infinity and break every computation it enters.
 */
export function parseNumber(raw: string): number {
  const s = raw.trim();
  if (!NUMBER.test(s)) return NaN;
  const v = Number(s);
  return Number.isFinite(v) ? v : NaN;
}

const POW10 = Array.from({ length: 23 }, (_, e) => Number(`1e${e}`));

/** Where the last scanNumber stopped. */
let scanned = 0;

/**
 * The number written in the bytes `bytes[start, end)` (ASCII) when it is a plain decimal (sign, digits, point,
 * exponent: the shapes parseNumber accepts) that converts exactly without Number(): a mantissa below 2^53 and
 * a power of ten up to 22, one correctly rounded multiplication or division (Clinger's fast path). NaN
 * otherwise (other text, spaces, longer mantissas): the caller then falls back to the general rule on the
 * cell's text. No string is made, which is most of the time of a wide numerical file.
 */
export function fastNumber(bytes: Uint8Array, start: number, end: number): number {
  return scanNumber(bytes, start, end, -1);
}

/**
 * fastNumber of the cell that starts at bytes[start] and ends at the first byte `stop` or at `end`, found as
 * it is read (`stop` must not be a byte a number is written with). Sets `scanned` to where it stopped reading:
 * the cell's end when it returns a number.
 */
function scanNumber(bytes: Uint8Array, start: number, end: number, stop: number): number {
  let i = start;
  scanned = i;
  if (i >= end) return NaN;
  let c = bytes[i];
  const negative = c === 45;
  if (negative || c === 43) {
    scanned = ++i;
    if (i >= end) return NaN;
    c = bytes[i];
  }
  let mantissa = 0;
  let digits = 0;
  let exponent = 0;
  while (c >= 48 && c <= 57) {
    mantissa = mantissa * 10 + (c - 48);
    digits++;
    if (++i >= end) break;
    c = bytes[i];
  }
  if (i < end && c === 46) {
    i++;
    c = i < end ? bytes[i] : 0;
    while (i < end && c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      digits++;
      exponent--;
      if (++i < end) c = bytes[i];
    }
  }
  scanned = i;
  if (digits === 0 || mantissa > Number.MAX_SAFE_INTEGER) return NaN;
  if (i < end && (c === 101 || c === 69)) {
    scanned = ++i;
    if (i >= end) return NaN;
    c = bytes[i];
    const negExp = c === 45;
    if (negExp || c === 43) {
      scanned = ++i;
      if (i >= end) return NaN;
      c = bytes[i];
    }
    let e = 0;
    let expDigits = 0;
    while (c >= 48 && c <= 57) {
      if (e < 10000) e = e * 10 + (c - 48);
      expDigits++;
      if (++i >= end) break;
      c = bytes[i];
    }
    scanned = i;
    if (expDigits === 0) return NaN;
    exponent += negExp ? -e : e;
  }
  if (i < end && c !== stop) return NaN;
  if (mantissa === 0) return negative ? -0 : 0;
  if (exponent < -22 || exponent > 22) return NaN;
  const value = exponent < 0 ? mantissa / POW10[-exponent] : mantissa * POW10[exponent];
  return negative ? -value : value;
}

/** A column as parsed: numbers (when every present value is one) or dictionary codes of strings. */
export interface ParsedColumn {
  name: string;
  encoding: 'f64' | 'dict';
  values?: Float64Array;
  codes?: Int32Array;
  levels?: string[];
  missingCount: number;
  distinctCount: number;
  /**
   * The column as stored (packColumn's deflate of `values` or `codes`, or with `raw` their bytes as they are,
   * stored as deflate's stored blocks), when it was packed where it was parsed; `values` and `codes` are then
   * gone, and `negative` says whether a number column holds a value < 0. A build's table has it still in the
   * engine process's pipe (PipedBytes), to be read once, in column order.
   */
  packed?: Uint8Array | PipedBytes;
  raw?: boolean;
  negative?: boolean;
  /**
   * A long number column whose first `rows` values (all of them, in a build) were written as `count` pieces while
   * the file was parsed (column-pieces.ts), `bytes` stored in all (filled in once they are written): `packed`
   * holds only the rest.
   */
  pieces?: { count: number; rows: number; bytes: number };
}

/**
 * Accumulates one column's cells. Starts numeric and switches to a string dictionary at the first
 * value that is not a number (earlier numbers keep their text, as the builder records it from then on).
 */
export class ColumnBuilder {
  private nums: Float64Array;
  private codes: Int32Array | undefined;
  private dict = new Map<string, number>();
  private levels: string[] = [];
  private n = 0;
  private missing = 0;
  private numeric: boolean;

  constructor(
    readonly name: string,
    /** Keep text as is (identifier / categorical columns, even when they look like numbers). */
    forceDict = false,
    /** Values to make room for at once (the expected row count): no growth copies when it is right. */
    capacity = 1024,
    /** Numbers in shared memory, which another thread may read while this one adds rows (numbers(): a build's cuts). */
    private readonly shared = false,
  ) {
    this.numeric = !forceDict;
    const size = Math.max(16, Math.ceil(capacity));
    this.nums = forceDict ? new Float64Array(0) : this.numberArray(size);
    if (forceDict) this.codes = new Int32Array(size);
  }

  get length(): number {
    return this.n;
  }

  push(raw: string): void {
    if (isMissing(raw)) {
      this.missing++;
      if (this.numeric) this.pushNumber(NaN);
      else this.pushCode(-1);
      return;
    }
    if (this.numeric) {
      const v = parseNumber(raw);
      if (!Number.isNaN(v)) {
        this.pushNumber(v);
        return;
      }
      this.toDict();
    }
    const text = raw.trim();
    let code = this.dict.get(text);
    if (code === undefined) {
      code = this.levels.length;
      this.dict.set(text, code);
      this.levels.push(text);
    }
    this.pushCode(code);
  }

  /**
   * Pushes the cell held in the UTF-8 bytes `bytes[start, end)`: a plain number or an empty cell without
   * making a string, anything else by push() of its text.
   */
  pushBytes(bytes: Buffer, start: number, end: number): void {
    if (this.numeric) {
      const v = scanNumber(bytes, start, end, -1);
      if (v === v) return this.pushNumber(v);
      if (start === end) return this.pushMissingNumber();
    }
    this.push(bytes.toString('utf8', start, end));
  }

  /**
   * pushBytes of the cell that starts at bytes[start] and ends at the first byte `separator` (an ASCII byte no
   * number is written with) or at `end`, found while the cell is read; returns where the cell ends. One pass
   * over the bytes of a plain number.
   */
  pushCellAt(bytes: Buffer, start: number, end: number, separator: number): number {
    let stop = start;
    if (this.numeric) {
      const v = scanNumber(bytes, start, end, separator);
      stop = scanned;
      if (v === v) {
        this.pushNumber(v);
        return stop;
      }
    }
    while (stop < end && bytes[stop] !== separator) stop++;
    if (this.numeric && stop === start) this.pushMissingNumber();
    else this.push(bytes.toString('utf8', start, stop));
    return stop;
  }

  /**
   * A view of the values of rows [from, to) while the column holds numbers only; undefined once it holds text. Those
   * rows are never written again: with `shared`, another thread may read them while this one adds rows.
   */
  numbers(from: number, to: number): Float64Array | undefined {
    return this.numeric ? this.nums.subarray(from, to) : undefined;
  }

  private pushMissingNumber(): void {
    this.missing++;
    this.pushNumber(NaN);
  }

  private numberArray(length: number): Float64Array {
    return this.shared ? new Float64Array(new SharedArrayBuffer(length * 8)) : new Float64Array(length);
  }

  private pushNumber(v: number): void {
    if (this.n === this.nums.length) {
      // a larger array; a view of the old one that another thread holds stays as it was
      const next = this.numberArray(this.nums.length * 2);
      next.set(this.nums);
      this.nums = next;
    }
    this.nums[this.n++] = v;
  }

  private pushCode(c: number): void {
    const codes = this.codes as Int32Array;
    if (this.n === codes.length) {
      const next = new Int32Array(codes.length * 2);
      next.set(codes);
      this.codes = next;
    }
    (this.codes as Int32Array)[this.n++] = c;
  }

  /** From numbers to a dictionary: numbers seen so far become their shortest text. */
  private toDict(): void {
    this.numeric = false;
    const codes = new Int32Array(Math.max(1024, this.nums.length));
    for (let i = 0; i < this.n; i++) {
      const v = this.nums[i];
      if (Number.isNaN(v)) {
        codes[i] = -1;
        continue;
      }
      const text = String(v);
      let code = this.dict.get(text);
      if (code === undefined) {
        code = this.levels.length;
        this.dict.set(text, code);
        this.levels.push(text);
      }
      codes[i] = code;
    }
    this.codes = codes;
    this.nums = new Float64Array(0);
  }

  /** The column; a number column's distinctCount is -1 unless `countDistinct` (for the caller to count). */
  finish(countDistinct = true): ParsedColumn {
    // hand over the arrays as they are when they are nearly full, or else exactly-sized copies, and drop the
    // growth buffers, so a wide table is not held twice
    if (this.numeric) {
      const values = fitted(this.nums, this.n);
      this.nums = new Float64Array(0);
      const distinctCount = countDistinct ? distinctNumbers(values) : -1;
      return { name: this.name, encoding: 'f64', values, missingCount: this.missing, distinctCount };
    }
    const codes = fitted(this.codes as Int32Array, this.n);
    this.codes = new Int32Array(0);
    return {
      name: this.name,
      encoding: 'dict',
      codes,
      levels: this.levels,
      missingCount: this.missing,
      distinctCount: this.levels.length,
    };
  }
}

/** The first n values of `array`: a view when at most an eighth of it is unused, else a copy. */
function fitted<A extends Float64Array | Int32Array>(array: A, n: number): A {
  if (array.length === n) return array;
  return (array.length - n <= n / 8 ? array.subarray(0, n) : array.slice(0, n)) as A;
}

/**
 * distinctNumbers' working arrays (16 bytes a value), kept for the thread's next call up to SCRATCH_VALUES values: a
 * build counts dozens of long columns one after another, and fresh arrays for each cost page faults (a third of
 * the time of counting 18 columns of a million on this machine).
 */
let scratch: { hashes: Uint32Array; sorted: Float64Array; sortedHashes: Uint32Array } | undefined;
const SCRATCH_VALUES = 1 << 21;

function scratchFor(n: number): { hashes: Uint32Array; sorted: Float64Array; sortedHashes: Uint32Array } {
  if (n > SCRATCH_VALUES) return { hashes: new Uint32Array(n), sorted: new Float64Array(n), sortedHashes: new Uint32Array(n) };
  if (!scratch || scratch.hashes.length < n) {
    const size = Math.min(SCRATCH_VALUES, Math.max(n, 2 * (scratch?.hashes.length ?? 0)));
    scratch = { hashes: new Uint32Array(size), sorted: new Float64Array(size), sortedHashes: new Uint32Array(size) };
  }
  return scratch;
}

/** Values per bucket that distinctNumbers aims at: a bucket's hash table (16 bytes a value) stays in the core's cache. */
const BUCKET_VALUES = 4096;

/** A 32-bit hash of a double given as its two 32-bit words (murmur3's finalizer over a first mix). */
function hashWords(lo: number, hi: number): number {
  let h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * How many distinct numbers `values` holds (NaN not counted, -0 equal to 0), in time linear in the column (a
 * sort of every column was most of the parse time of wide files). A long column is first split by the top bits
 * of each value's hash into buckets of about 4,096 values, each then counted in a hash table small enough to
 * stay in the cache: one table over a million values missed the cache on nearly every value, and was half of
 * the time of parsing a long numerical file.
 */
export function distinctNumbers(values: Float64Array): number {
  const n = values.length;
  let shift = 32;
  while (shift > 16 && n >>> (32 - shift) > BUCKET_VALUES) shift--;
  const buckets = 2 ** (32 - shift);
  // the values' bits (a copy when the array does not start on a 4-byte boundary)
  const own = values.byteOffset % 4 === 0 ? values : values.slice();
  const words = new Uint32Array(own.buffer, own.byteOffset, n * 2);
  const { hashes, sorted, sortedHashes } = scratchFor(n);
  const counts = new Int32Array(buckets + 1);
  let present = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v !== v) continue;
    const h = v === 0 ? hashWords(0, 0) : hashWords(words[2 * i], words[2 * i + 1]);
    hashes[present++] = h;
    counts[shift === 32 ? 0 : h >>> shift]++;
  }
  // bucket b's values go to [starts[b], starts[b + 1]) of `sorted`, with their hashes beside them
  const starts = new Int32Array(buckets + 1);
  for (let b = 0; b < buckets; b++) starts[b + 1] = starts[b] + counts[b];
  const next = starts.slice(0, buckets);
  for (let i = 0, k = 0; i < n; i++) {
    let v = values[i];
    if (v !== v) continue;
    if (v === 0) v = 0; // one zero
    const h = hashes[k++];
    const at = next[shift === 32 ? 0 : h >>> shift]++;
    sorted[at] = v;
    sortedHashes[at] = h;
  }
  let largest = 0;
  for (let b = 0; b < buckets; b++) largest = Math.max(largest, counts[b]);
  let size = 16;
  while (size < largest * 2) size *= 2;
  const slots = new Float64Array(size); // NaN: empty (no NaN is counted)
  let count = 0;
  for (let b = 0; b < buckets; b++) {
    const from = starts[b];
    const to = starts[b + 1];
    if (from === to) continue;
    let tableSize = 16;
    while (tableSize < (to - from) * 2) tableSize *= 2;
    const mask = tableSize - 1;
    slots.fill(NaN, 0, tableSize);
    for (let i = from; i < to; i++) {
      const v = sorted[i];
      let h = sortedHashes[i] & mask;
      let s = slots[h];
      while (s === s && s !== v) {
        h = (h + 1) & mask;
        s = slots[h];
      }
      if (s !== s) {
        slots[h] = v;
        count++;
      }
    }
  }
  return count;
}
