/**
 * parseTable's fast path: while a file has no quote character, CSV is plain lines of separated fields (RFC 4180),
 * split here directly on the bytes (UTF-8 keeps every separator and line break whole: no byte of a longer character
 * can be taken for one). Lines are read in place in each chunk; only a line split across chunks is joined (its
 * start copied: nothing of a chunk is kept once the next one is pushed).
 */
export class PlainLines {
  /** Lines read so far (empty ones too). */
  count = 0;
  /** The start of a line whose end is in a later chunk, and its bytes. */
  private carry: Buffer[] = [];
  private carried = 0;

  /**
   * `take` gets each line that is not empty as bytes[from, end): without its line end (a CR before it dropped) and,
   * on the first line, without byte order marks. A line with more than `maxField` characters throws `tooLarge(line)`.
   */
  constructor(
    private readonly maxField: number,
    private readonly take: (bytes: Buffer, from: number, end: number, line: number) => void,
    private readonly tooLarge: (line: number) => Error,
  ) {}

  /** The lines of the next chunk of the file (`final`: the file ends with it). */
  push(bytes: Buffer, final: boolean): void {
    let start = 0;
    if (this.carried) {
      const nl = bytes.indexOf(10);
      if (nl < 0 && !final) return this.keep(bytes);
      this.carry.push(nl < 0 ? bytes : bytes.subarray(0, nl));
      this.carried += nl < 0 ? bytes.length : nl;
      const joined = this.joinCarry();
      this.line(joined, 0, joined.length);
      if (nl < 0) return;
      start = nl + 1;
    }
    for (let nl = bytes.indexOf(10, start); nl >= 0; nl = bytes.indexOf(10, start)) {
      this.line(bytes, start, nl);
      start = nl + 1;
    }
    if (start < bytes.length) {
      if (final) this.line(bytes, start, bytes.length);
      else this.keep(bytes.subarray(start));
    }
  }

  /**
   * The rest of the file from the start of the line that holds `chunk`'s first quote: the carried start of that line
   * and `chunk` (byte order marks dropped when it is the first line). The strict path reads on from there.
   */
  rest(chunk: Buffer): Buffer {
    this.carry.push(chunk);
    this.carried += chunk.length;
    const rest = this.joinCarry();
    return this.count === 0 ? rest.subarray(afterBoms(rest, 0, rest.length)) : rest;
  }

  /** One line, bytes[from, stop) with a trailing CR dropped. */
  private line(bytes: Buffer, from: number, stop: number): void {
    this.count++;
    if (this.count === 1) from = afterBoms(bytes, from, stop);
    const end = stop > from && bytes[stop - 1] === 13 ? stop - 1 : stop;
    if (end === from) return;
    if (this.over(bytes, from, end)) throw this.tooLarge(this.count);
    this.take(bytes, from, end, this.count);
  }

  /**
   * Carries the start of a line to the next chunk: joined once it outgrows a field, to fail as soon as it is too large.
   * A copy: the caller may fill a chunk again once it has pushed the next one (storedFileInThread).
   */
  private keep(bytes: Buffer): void {
    this.carry.push(Buffer.from(bytes));
    this.carried += bytes.length;
    if (this.carried <= this.maxField) return;
    const joined = this.joinCarry();
    if (this.over(joined, 0, joined.length)) throw this.tooLarge(this.count + 1);
    this.carry.push(joined);
    this.carried = joined.length;
  }

  private joinCarry(): Buffer {
    const joined = this.carry.length === 1 ? this.carry[0] : Buffer.concat(this.carry, this.carried);
    this.carry = [];
    this.carried = 0;
    return joined;
  }

  private over(bytes: Buffer, from: number, end: number): boolean {
    return end - from > this.maxField && charsIn(bytes, from, end) > this.maxField;
  }
}

const BOM = [0xef, 0xbb, 0xbf];

/**
 * Where the first line starts once the byte order marks before it are dropped: up to two, as the text path
 * always dropped them (TextDecoder drops one, the first line's check another; csv-parse, a third).
 */
function afterBoms(bytes: Buffer, from: number, end: number): number {
  for (let k = 0; k < 2 && end - from >= 3 && BOM.every((b, i) => bytes[from + i] === b); k++) from += 3;
  return from;
}

/** Characters (UTF-16 code units, as csv-parse counts a record's size) in the UTF-8 bytes[from, end). */
function charsIn(bytes: Buffer, from: number, end: number): number {
  let n = 0;
  for (let k = from; k < end; k++) {
    const b = bytes[k];
    if ((b & 0xc0) !== 0x80) n += b >= 0xf0 ? 2 : 1;
  }
  return n;
}
