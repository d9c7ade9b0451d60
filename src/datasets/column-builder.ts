/** Missing-value tokens (decisions.md): empty cell, NA, NaN, ?, null, case-insensitive. */
export function isMissing(raw: string): boolean {
  const s = raw.trim();
  if (s.length === 0) return true;
  if (s.length > 4) return false;
  const l = s.toLowerCase();
  return l === 'na' || l === 'nan' || l === '?' || l === 'null';
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** A decimal number (no hex, no Infinity), or NaN. */
export function parseNumber(raw: string): number {
  const s = raw.trim();
  return NUMBER.test(s) ? Number(s) : NaN;
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
  private nums = new Float64Array(1024);
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
  ) {
    this.numeric = !forceDict;
    if (forceDict) this.codes = new Int32Array(1024);
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
    // hand over exactly-sized arrays and drop the growth buffers, so a wide table is not held twice
    if (this.numeric) {
      const values = this.nums.length === this.n ? this.nums : this.nums.slice(0, this.n);
      this.nums = new Float64Array(0);
      return { name: this.name, encoding: 'f64', values, missingCount: this.missing, distinctCount: distinctNumbers(values) };
    }
    const all = this.codes as Int32Array;
    const codes = all.length === this.n ? all : all.slice(0, this.n);
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

export function distinctNumbers(values: Float64Array): number {
  const sorted = Float64Array.from(values).sort(); // NaN sorts last
  let count = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (Number.isNaN(sorted[i])) break;
    if (i === 0 || sorted[i] !== sorted[i - 1]) count++;
  }
  return count;
}
