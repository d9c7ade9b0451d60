import { isAscii } from 'node:buffer';
import { TextDecoder } from 'node:util';
import { parse, Parser } from 'csv-parse';
import { parse as parseSync, Options as CsvOptions } from 'csv-parse/sync';
import { ColumnBuilder, ParsedColumn } from './column-builder';
import { PlainLines } from './plain-lines';
import { drainedOrClosed } from '../common/drained';

export interface TableOptions {
  separator: string;
  hasFeatureHeaders: boolean;
  hasSampleHeaders: boolean;
  hasSamplesInRows: boolean;
  /** Columns to keep as text even when they look like numbers (categorical / identifier overrides). */
  textColumns?: Set<string>;
  /** Longest field accepted, in characters. */
  maxFieldLength?: number;
  /** The file's size, when known: columns are then sized for the rows it should hold, estimated from its first chunk. */
  sizeInBytes?: number;
  /** Samples in rows only: the number columns' values handed over every `rows` rows while the file is read. */
  pieces?: RowCuts;
  /**
   * Samples in rows only: counts the distinct values of the number columns at the end (distinctNumbers of each,
   * on several threads, say) in place of the parser; gives the counts and the arrays (moved and back, maybe).
   */
  distinct?: (values: Float64Array[]) => Promise<{ counts: number[]; values: Float64Array[] }>;
}

/**
 * Every `rows` rows, `take` gets piece `piece` (0, 1, ...): views of the values of rows [piece x rows, (piece + 1)
 * x rows) of each column (`idx`) that holds numbers only so far, valid while `take` runs (copy them to keep them);
 * at the end of a file cut at least once, the rows after the last cut as one more piece. A column still of numbers
 * at the end was in every piece, and its ParsedColumn says so (`pieces`; their stored size is the taker's to fill in).
 */
export interface RowCuts {
  rows: number;
  /** A promise: reading waits for it before it goes on (the taker's backlog is full). */
  take(piece: number, columns: { idx: number; values: Float64Array }[]): void | Promise<void>;
}

export interface ParsedTable {
  sampleCount: number;
  columns: ParsedColumn[];
  /** Index of the sample-name column (hasSampleHeaders), which becomes an identifier. */
  sampleColumn?: number;
}

/** A fault in the file, with where it is: the task fails with this message. */
export class TableError extends Error {}

const SAMPLE_COLUMN_DEFAULT = 'sampleId';

const CR_ONLY = 'the lines of the file end with a carriage return alone (old Mac line ends): save it with LF or CRLF line ends';

function checkNames(names: string[], what: string, allowEmptyFirst: boolean): void {
  const seen = new Map<string, number>();
  names.forEach((raw, i) => {
    const name = raw.trim();
    if (!name && !(allowEmptyFirst && i === 0)) throw new TableError(`${what} ${i + 1} has an empty name`);
    if (name.length > 200) throw new TableError(`${what} ${i + 1} has a name longer than 200 characters`);
    const before = seen.get(name);
    if (name && before !== undefined) {
      throw new TableError(`${what}s ${before + 1} and ${i + 1} have the same name "${name.slice(0, 60)}"`);
    }
    seen.set(name, i);
  });
}

/**
 * Reads a delimited text table from a stream of byte chunks into typed columns. UTF-8 only (with or
 * without BOM), quoted fields may hold separators and newlines, CRLF or LF. Faults (bad bytes, ragged
 * rows, bad quotes, duplicate or empty names, no data) throw TableError naming the line or column.
 * Nothing but the columns being built is held in memory.
 */
export async function parseTable(chunks: AsyncIterable<Buffer>, options: TableOptions): Promise<ParsedTable> {
  const maxField = options.maxFieldLength ?? 10_000_000;
  const parser: Parser = parse({
    delimiter: options.separator,
    bom: true,
    info: true,
    skip_empty_lines: true,
    relax_column_count: false,
    max_record_size: maxField,
  });
  const consume = options.hasSamplesInRows ? rowsConsumer(options) : columnsConsumer(options);
  const sep = options.separator;
  const sepBytes = Buffer.from(sep, 'utf8');

  // Every record must have as many fields as the first, whichever path read it.
  let width: number | undefined;
  const record = (fields: string[], line: number) => {
    width ??= fields.length;
    if (fields.length !== width) {
      throw new TableError(
        `line ${line}: ${fields.length} fields where the first row has ${width} (every row must have as many; is the separator "${sep}" right?)`,
      );
    }
    consume.record(fields, line);
  };
  // Lines without quotes, split on their bytes (plain-lines.ts). Once the width is known, a well-formed line goes
  // straight into the columns: no string is made for it, nor an array of its fields.
  const lines = new PlainLines(
    maxField,
    (bytes, from, end, line) => {
      if (width !== undefined && consume.line?.(bytes, from, end, sepBytes, width)) return;
      record(bytes.toString('utf8', from, end).split(sep), line);
    },
    (line) => new TableError(`line ${line}: a field is too large`),
  );
  // a failure of `chunks` themselves (a lost connection, a lost chunk): not a fault of the file, thrown as it is
  let sourceFailure: Error | undefined;
  const reading = readChunks(chunks, options, lines, parser, consume).catch((e: Error) => {
    if (!(e instanceof TableError)) sourceFailure = e;
    parser.destroy(e);
  });

  try {
    // with `info`, each record carries the line it ends on (parser.info.lines may already be past it)
    for await (const { record: fields, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      record(fields, lines.count + info.lines);
      const waiting = consume.ready?.();
      if (waiting) await waiting;
    }
  } catch (e) {
    await reading;
    if (sourceFailure) throw sourceFailure;
    if (e instanceof TableError) throw e;
    const err = e as Error & { code?: string; lines?: number };
    if (err.lines !== undefined) err.lines += lines.count;
    throw new TableError(describeCsvError(err, options.separator));
  }
  await reading;
  const table = consume.finish();
  if (options.distinct && options.hasSamplesInRows) {
    const numbers = table.columns.filter((c) => c.encoding === 'f64');
    const { counts, values } = await options.distinct(numbers.map((c) => c.values as Float64Array));
    numbers.forEach((c, k) => {
      c.values = values[k];
      c.distinctCount = counts[k];
    });
  }
  return table;
}

/**
 * Feeds the file's chunks to `lines` while it has no quote character (the fast path: the bytes are only checked to be
 * UTF-8), and from the line of its first quote on to `parser` as text (the strict path), then ends the parser. A
 * fault found here rejects; parseTable then destroys the parser with it.
 */
async function readChunks(chunks: AsyncIterable<Buffer>, options: TableOptions, lines: PlainLines, parser: Parser, consume: Consumer) {
  let fast = options.separator !== '"' && options.separator !== '\n' && options.separator !== '\r';
  // While the fast path reads bytes, this decoder only checks them: an ASCII chunk needs no check, unless the
  // chunk before it ended inside a character (`unsure`: the last chunk checked was not ASCII).
  const checker = new TextDecoder('utf-8', { fatal: true });
  let unsure = false;
  // The strict path's decoder, from the start of the line holding the first quote (a BOM there is content).
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const where = () => (fast ? lines.count + 1 : lines.count + parser.info.lines);
  let offset = 0;
  for await (const chunk of chunks) {
    const badBytes = () =>
      new TableError(
        `the file is not valid UTF-8 text (bad bytes between byte ${offset} and ${offset + chunk.length}, near line ${where()}); save it as UTF-8`,
      );
    let text: string;
    if (fast) {
      const ascii = isAscii(chunk);
      if (!ascii || unsure) {
        try {
          checker.decode(chunk, { stream: true });
        } catch {
          throw badBytes();
        }
        unsure = !ascii;
      }
      if (chunk.indexOf(0) >= 0) throw new TableError(`the file holds a NUL byte (binary content) near line ${where()}`);
      if (offset === 0 && chunk.length && options.sizeInBytes) {
        consume.expect(expectedLines(chunk, options.sizeInBytes), options.sizeInBytes);
      }
      offset += chunk.length;
      if (chunk.indexOf(34) < 0) {
        lines.push(chunk, false);
        await consume.ready?.();
        continue;
      }
      // a quote: csv-parse reads from the start of its line on (bytes already checked: this cannot fail)
      fast = false;
      text = decoder.decode(lines.rest(chunk), { stream: true });
    } else {
      try {
        text = decoder.decode(chunk, { stream: true });
      } catch {
        throw badBytes();
      }
      if (text.indexOf('\u0000') >= 0) throw new TableError(`the file holds a NUL byte (binary content) near line ${where()}`);
      offset += chunk.length;
    }
    // a fault found in this text destroys the parser, which then never drains: stop at its close too
    if (!parser.write(text)) await drainedOrClosed(parser);
    if (parser.destroyed) return; // parseTable reports the parser's error
  }
  try {
    if (!fast) decoder.decode();
    else if (unsure) checker.decode();
  } catch {
    throw new TableError('the file ends in the middle of a UTF-8 character');
  }
  if (fast) lines.push(Buffer.alloc(0), true);
  parser.end();
}

/** csv-parse's typings leave out that with `info: true` each record comes with its info (as parseTable reads them). */
const parseText = parseSync as unknown as (text: string, options: CsvOptions) => { record: string[]; info: { lines: number } }[];

/**
 * parseTable on a text already in memory, synchronously (the engine's tests, benchmarks and tools read the
 * shared CSV files this way): the same records as parseTable's (csv-parse, as parseTable uses for quoted
 * text), the same names, checks and messages, and the same column building and missing-value rule.
 */
export function parseTableText(text: string, options: TableOptions): ParsedTable {
  if (text.indexOf('\u0000') >= 0) throw new TableError('the file holds a NUL byte (binary content)');
  const consume = options.hasSamplesInRows ? rowsConsumer(options) : columnsConsumer(options);
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parseText(text, {
      delimiter: options.separator,
      bom: true,
      info: true,
      skip_empty_lines: true,
      relax_column_count: false,
      max_record_size: options.maxFieldLength ?? 10_000_000,
    });
  } catch (e) {
    throw new TableError(describeCsvError(e as Error & { code?: string; lines?: number }, options.separator));
  }
  for (const { record, info } of records) consume.record(record, info.lines);
  return consume.finish();
}

/** Lines a file of `size` bytes should hold, from the lines in its first chunk (a little over: rows vary). */
function expectedLines(chunk: Buffer, size: number): number {
  let lines = 0;
  for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, nl + 1)) lines++;
  if (lines < 2 || chunk.length >= size) return lines + 1;
  return Math.ceil(((size * lines) / chunk.length) * 1.05);
}

/**
 * Values to make room for in each of `width` columns for `lines` expected lines, the room for all columns
 * together bounded by the file's size (a file whose first lines are short must not reserve too much).
 */
function capacityFor(lines: number, width: number, size: number): number {
  return Math.max(16, Math.min(lines, Math.floor(size / 8 / Math.max(1, width))));
}

/** Room for each of `width` columns when the file size is not known: 1024 values, 8 MiB at most in all (wide omics tables). */
function defaultCapacity(width: number): number {
  return Math.max(16, Math.min(1024, Math.floor(1048576 / Math.max(1, width))));
}

export function describeCsvError(err: Error & { code?: string; lines?: number; record?: unknown[] }, separator: string): string {
  const at = `line ${err.lines ?? '?'}`;
  const quoting = `quote the whole field and double each quote inside it ("say ""hi""")`;
  switch (err.code) {
    case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH':
    case 'CSV_RECORD_INCONSISTENT_COLUMNS': {
      // only the counts are taken from csv-parse's message, never its words
      const expected = /expect (\d+)/.exec(err.message)?.[1];
      const got = err.record?.length ?? /got (\d+)/.exec(err.message)?.[1];
      const counts =
        got !== undefined && expected !== undefined ? `${got} fields where the first row has ${expected}` : 'a row of another length';
      return `${at}: ${counts} (every row must have as many; is the separator "${separator}" right?)`;
    }
    case 'CSV_MAX_RECORD_SIZE':
      return `${at}: a field is too large`;
    case 'CSV_QUOTE_NOT_CLOSED':
      return `a quoted field opened ${err.lines ? `before line ${err.lines}` : ''} is never closed`;
    case 'INVALID_OPENING_QUOTE': // (csv-parse names this one without its CSV_ prefix)
      return `${at}: a quote inside a field that does not start with one: ${quoting}`;
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return `${at}: text after the closing quote of a field: ${quoting}`;
    default:
      return `${at}: the text cannot be read as CSV with the separator "${separator}"`;
  }
}

interface Consumer {
  /** The file should have about `lines` lines in its `size` bytes (before the first record). */
  expect(lines: number, size: number): void;
  record(fields: string[], line: number): void;
  /**
   * Takes the unquoted line in the UTF-8 bytes[start, end) when it has exactly `width` fields split by the
   * bytes of `separator`; false otherwise, when the caller must fail (some of its fields may have been taken).
   */
  line?(bytes: Buffer, start: number, end: number, separator: Buffer, width: number): boolean;
  /** What reading must wait for before it goes on (RowCuts.take's backlog), if anything. */
  ready?(): Promise<void> | undefined;
  finish(): ParsedTable;
}

/** Bytes a number can be written with (digits, signs, point, exponent): a separator among them is not read in the same pass as the numbers. */
const NUMBER_BYTES = new Set(Array.from('0123456789+-.eE', (c) => c.charCodeAt(0)));

/** Whether the bytes of `separator` stand at bytes[k] (before `end`). */
function startsAt(bytes: Buffer, k: number, end: number, separator: Buffer): boolean {
  if (k + separator.length > end) return false;
  for (let i = 1; i < separator.length; i++) if (bytes[k + i] !== separator[i]) return false;
  return true;
}

/** Samples in rows: the usual table, one column per feature. */
function rowsConsumer(o: TableOptions): Consumer {
  let builders: ColumnBuilder[] | undefined;
  let names: string[] | undefined;
  let rows = 0;
  let ends = new Int32Array(0); // where each field of a line ends (line())
  let expected: { lines: number; size: number } | undefined;
  const cuts = o.pieces;
  let pieces = 0; // handed to cuts
  let cutRows = 0; // rows in them
  let nextCut = cuts ? cuts.rows : Infinity;
  let waiting: Promise<void> | undefined; // the last take's, until ready() hands it over
  /** Rows [cutRows, rows) of the columns of numbers, to cuts. */
  const cut = () => {
    const columns: { idx: number; values: Float64Array }[] = [];
    (builders as ColumnBuilder[]).forEach((b, idx) => {
      const values = b.numbers(cutRows, rows);
      if (values) columns.push({ idx, values });
    });
    if (columns.length) waiting = (cuts as RowCuts).take(pieces, columns) ?? undefined;
    pieces++;
    cutRows = rows;
    nextCut += (cuts as RowCuts).rows;
  };
  const setUp = (width: number, header?: string[]) => {
    if (header) {
      try {
        checkNames(header, 'column', o.hasSampleHeaders);
      } catch (e) {
        // a file with CR-only line ends is one line: its header runs on into the data, and may repeat a value
        if (header.some((h) => h.trim().includes('\r'))) throw new TableError(CR_ONLY);
        throw e;
      }
      names = header.map((h) => h.trim());
      if (o.hasSampleHeaders && !names[0]) names[0] = SAMPLE_COLUMN_DEFAULT;
    } else {
      names = Array.from({ length: width }, (_, i) => (o.hasSampleHeaders && i === 0 ? SAMPLE_COLUMN_DEFAULT : `feature_${i + 1}`));
    }
    const capacity = expected ? capacityFor(expected.lines, width, expected.size) : defaultCapacity(width);
    // with cuts, the numbers go to shared memory: the writing thread reads a cut's rows in place (column-pieces.ts)
    builders = names.map((n, i) => new ColumnBuilder(n, (o.hasSampleHeaders && i === 0) || !!o.textColumns?.has(n), capacity, !!cuts));
  };
  return {
    expect(lines, size) {
      expected = { lines, size };
    },
    ready() {
      const w = waiting;
      waiting = undefined;
      return w;
    },
    record(fields) {
      if (!builders) {
        if (o.hasFeatureHeaders) return setUp(fields.length, fields);
        setUp(fields.length);
      }
      const b = builders as ColumnBuilder[];
      for (let j = 0; j < b.length; j++) b[j].push(fields[j]);
      if (++rows === nextCut) cut();
    },
    line(bytes, start, end, separator, width) {
      if (!builders || builders.length !== width) return false;
      if (separator.length === 1 && !NUMBER_BYTES.has(separator[0])) {
        // each cell read up to the separator in one pass (its number parsed on the way)
        const code = separator[0];
        for (let j = 0, k = start; ; j++) {
          k = builders[j].pushCellAt(bytes, k, end, code);
          if (k === end) {
            if (j !== width - 1) return false;
            break;
          }
          if (j === width - 1) return false;
          k++;
        }
        if (++rows === nextCut) cut();
        return true;
      }
      // a separator of several bytes, or one that numbers are written with: find where each field ends first
      if (ends.length < width) ends = new Int32Array(width);
      const first = separator[0];
      const size = separator.length;
      let n = 0;
      for (let k = start; k < end; k++) {
        if (bytes[k] !== first || (size > 1 && !startsAt(bytes, k, end, separator))) continue;
        if (n === width - 1) return false;
        ends[n++] = k;
        k += size - 1;
      }
      if (n !== width - 1) return false;
      ends[n] = end;
      let from = start;
      for (let j = 0; j < width; j++) {
        builders[j].pushBytes(bytes, from, ends[j]);
        from = ends[j] + size;
      }
      if (++rows === nextCut) cut();
      return true;
    },
    finish() {
      if (!builders) throw new TableError('the file is empty');
      if (rows === 0 && names?.some((n) => n.includes('\r'))) throw new TableError(CR_ONLY);
      if (rows === 0) throw new TableError('the file has a header but no data rows');
      if (builders.length < 1 || (o.hasSampleHeaders && builders.length < 2)) {
        throw new TableError('the table has no feature columns');
      }
      // the last rows of a file cut already are a piece too: written while the columns are finished here
      if (pieces && rows > cutRows) cut();
      const columns = builders.map((b) => b.finish(!o.distinct));
      if (pieces) for (const c of columns) if (c.encoding === 'f64') c.pieces = { count: pieces, rows: cutRows, bytes: 0 };
      return { sampleCount: rows, columns, sampleColumn: o.hasSampleHeaders ? 0 : undefined };
    },
  };
}

/** Samples in columns (transposed, common for omics): each row is a feature. */
function columnsConsumer(o: TableOptions): Consumer {
  const columns: ParsedColumn[] = [];
  const seen = new Map<string, number>();
  let sampleNames: ColumnBuilder | undefined;
  let width: number | undefined;
  let first = true;
  return {
    expect() {
      // each row is a whole column, sized by its fields
    },
    record(fields, line) {
      if (first && o.hasSampleHeaders) {
        first = false;
        width = fields.length;
        sampleNames = new ColumnBuilder(
          o.hasFeatureHeaders ? fields[0].trim() || SAMPLE_COLUMN_DEFAULT : SAMPLE_COLUMN_DEFAULT,
          true,
          fields.length,
        );
        const names = o.hasFeatureHeaders ? fields.slice(1) : fields;
        names.forEach((s, i) => {
          if (!s.trim()) throw new TableError(`sample ${i + 1} (line ${line}) has an empty name`);
          sampleNames?.push(s);
        });
        return;
      }
      first = false;
      width ??= fields.length;
      const name = o.hasFeatureHeaders ? fields[0].trim() : `feature_${columns.length + 1}`;
      if (!name) throw new TableError(`line ${line}: the feature has an empty name`);
      const before = seen.get(name);
      if (before !== undefined)
        throw new TableError(`line ${line}: feature "${name.slice(0, 60)}" appears twice (first at line ${before})`);
      seen.set(name, line);
      const b = new ColumnBuilder(name, !!o.textColumns?.has(name), fields.length);
      for (let j = o.hasFeatureHeaders ? 1 : 0; j < fields.length; j++) b.push(fields[j]);
      columns.push(b.finish());
    },
    finish() {
      if (first) throw new TableError('the file is empty');
      if (!columns.length) throw new TableError('the file has sample names but no feature rows');
      const sampleCount = (width ?? 0) - (o.hasFeatureHeaders ? 1 : 0);
      if (sampleCount < 1) throw new TableError('the table has no samples');
      if (sampleNames) {
        const ids = sampleNames.finish();
        if (seen.has(ids.name)) throw new TableError(`the sample-name row and a feature are both named "${ids.name}"`);
        return { sampleCount, columns: [ids, ...columns], sampleColumn: 0 };
      }
      return { sampleCount, columns };
    },
  };
}
