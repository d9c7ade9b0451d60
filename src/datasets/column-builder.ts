/** Missing-value tokens (decisions.md): empty cell, NA, NaN, ?, null, case-insensitive. */
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

/**
 * The number written in `text[start, end)` when it is a plain decimal (sign, digits, point, exponent: the
 * shapes parseNumber accepts) that converts exactly without Number(): a mantissa below 2^53 and a power of
 * ten up to 22, one correctly rounded multiplication or division (Clinger's fast path). NaN otherwise
 * (other text, spaces, longer mantissas): the caller then falls back to the general rule on the substring.
 * No string is allocated, which is most of the time of a wide numerical file.
 */
export function fastNumber(text: string, start: number, end: number): number {
  let i = start;
  if (i >= end) return NaN;
  let c = text.charCodeAt(i);
  const negative = c === 45;
  if (negative || c === 43) {
    if (++i >= end) return NaN;
    c = text.charCodeAt(i);
  }
  let mantissa = 0;
  let digits = 0;
  let exponent = 0;
  while (c >= 48 && c <= 57) {
    mantissa = mantissa * 10 + (c - 48);
    digits++;
    if (++i >= end) break;
    c = text.charCodeAt(i);
  }
  if (i < end && c === 46) {
    i++;
    c = i < end ? text.charCodeAt(i) : 0;
    while (i < end && c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      digits++;
      exponent--;
      if (++i < end) c = text.charCodeAt(i);
    }
  }
  if (digits === 0 || mantissa > Number.MAX_SAFE_INTEGER) return NaN;
  if (i < end && (c === 101 || c === 69)) {
    if (++i >= end) return NaN;
    c = text.charCodeAt(i);
    const negExp = c === 45;
    if (negExp || c === 43) {
      if (++i >= end) return NaN;
      c = text.charCodeAt(i);
    }
    let e = 0;
    let expDigits = 0;
    while (c >= 48 && c <= 57) {
      if (e < 10000) e = e * 10 + (c - 48);
      expDigits++;
      if (++i >= end) break;
      c = text.charCodeAt(i);
    }
    if (expDigits === 0) return NaN;
    exponent += negExp ? -e : e;
  }
  if (i !== end) return NaN;
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
  ) {
    this.numeric = !forceDict;
    const size = Math.max(16, Math.ceil(capacity));
    this.nums = forceDict ? new Float64Array(0) : new Float64Array(size);
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

  /** Pushes the cell `text[start, end)`: a plain number without making its substring, anything else by push(). */
  pushField(text: string, start: number, end: number): void {
    if (this.numeric) {
      const v = fastNumber(text, start, end);
      if (v === v) {
        this.pushNumber(v);
        return;
      }
    }
    this.push(text.slice(start, end));
  }

  private pushNumber(v: number): void {
    if (this.n === this.nums.length) {
      const next = new Float64Array(this.nums.length * 2);
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

  finish(): ParsedColumn {
    // hand over the arrays as they are when they are nearly full, or else exactly-sized copies, and drop the
    // growth buffers, so a wide table is not held twice
    if (this.numeric) {
      const values = fitted(this.nums, this.n);
      this.nums = new Float64Array(0);
      return { name: this.name, encoding: 'f64', values, missingCount: this.missing, distinctCount: distinctNumbers(values) };
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
 * How many distinct numbers `values` holds (NaN not counted, -0 equal to 0): an open-addressing hash set over
 * the numbers' bits, linear in the column (a sort of every column was most of the parse time of wide files).
 */
export function distinctNumbers(values: Float64Array): number {
  let size = 16;
  while (size < values.length * 2) size *= 2;
  const mask = size - 1;
  const slots = new Float64Array(size);
  const used = new Uint8Array(size);
  const bits = new Float64Array(1);
  const words = new Uint32Array(bits.buffer);
  let count = 0;
  for (let i = 0; i < values.length; i++) {
    let v = values[i];
    if (v !== v) continue;
    if (v === 0) v = 0; // one zero
    bits[0] = v;
    let h = Math.imul(words[0] ^ Math.imul(words[1], 0x9e3779b1), 0x85ebca6b);
    h = (h ^ (h >>> 15)) & mask;
    while (used[h] && slots[h] !== v) h = (h + 1) & mask;
    if (!used[h]) {
      used[h] = 1;
      slots[h] = v;
      count++;
    }
  }
  return count;
}
