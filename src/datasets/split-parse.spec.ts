import { parseTable, parseTablePart, TableError, TableOptions } from './table-parser';
import type { TableLayout } from './table-split';

const OPTIONS: TableOptions = { separator: ',', hasFeatureHeaders: true, hasSampleHeaders: false, hasSamplesInRows: true };

/** The bytes as a stream of chunks of `size` bytes, so lines are split across chunks. */
async function* chunked(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

/**
 * parseTable of `text` in two parts, as split-parse.ts reads a large stored file: the first up to the line
 * feed after its middle (or before the line `at`, 1-based), the rest by parseTablePart (here, once the first
 * part is read), offered to the first.
 */
async function readInHalves(text: string, options = OPTIONS, at?: number) {
  const bytes = Buffer.from(text, 'utf8');
  let mid = bytes.indexOf(10, bytes.length >> 1) + 1;
  if (at) for (let line = 1, k = (mid = 0); line < at; line++) mid = k = bytes.indexOf(10, k) + 1;
  let layout: TableLayout | undefined;
  let adopted = false;
  const table = await parseTable(chunked(bytes.subarray(0, mid), 7), options, {
    started: (l) => (layout = l),
    async rest(adopt) {
      const part = layout ? await parseTablePart(chunked(bytes.subarray(mid), 5), options, layout).catch(() => undefined) : undefined;
      adopted = !!(adopt && part && adopt(part));
      return adopted ? undefined : chunked(bytes.subarray(mid), 3);
    },
  });
  return { table, adopted };
}

const lines = (n: number, cells: (i: number) => string) => Array.from({ length: n }, (_, i) => cells(i)).join('\n');

describe('a file read in two parts at once gives the table one reading gives', () => {
  it.each([
    [
      'numbers, missing cells and text in both halves',
      `id,x,site\n${lines(400, (i) => `${i},${i % 7 ? (i * 0.25).toFixed(2) : 'NA'},s${i % 3}`)}\n`,
    ],
    [
      'a column of numbers in the first half that turns to text in the second (numbers before: shortest text)',
      `a,b\n${lines(200, (i) => `${i},1.50`)}\n${lines(100, (i) => `${i},${i === 60 ? 'text' : '2.50'}`)}\n`,
    ],
    ['text columns by name, and sample names', `name,b,c\n${lines(300, (i) => `s${i},${i % 4},${i}`)}\n`],
    ['no newline at the end, CRLF line ends, empty lines', `a,b\r\n${lines(300, (i) => (i % 50 === 7 ? '\r' : `${i},${i % 9}\r`))}\n9,9`],
  ])('joined: %s', async (_, text) => {
    const options = { ...OPTIONS, hasSampleHeaders: text.startsWith('name'), textColumns: new Set(['c']) };
    const { table, adopted } = await readInHalves(text, options);
    expect(adopted).toBe(true);
    expect(table).toEqual(await parseTable(chunked(Buffer.from(text), 1 << 20), options));
  });

  it.each([
    // one reading keeps the text of numbers read after a column turned to text ("1.50", "007"); the part read them as numbers
    [
      'text in the first half, numbers then text in the second',
      `a,b\n${lines(200, (i) => `${i},x`)}\n${lines(100, (i) => `${i},${i < 50 ? '1.50' : 'y'}`)}\n`,
    ],
    ['text in the first half, only numbers in the second', `a,b\n${lines(200, (i) => `${i},x`)}\n${lines(100, (i) => `${i},007`)}\n`],
    ['a quote in the second half', `a,b\n${lines(200, (i) => `${i},x`)}\n${lines(100, (i) => `${i},${i === 80 ? '"y,z"' : 'y'}`)}\n`],
    ['a quote in the first half', `a,b\n1,"x"\n${lines(300, (i) => `${i},x`)}\n`],
  ])('read on by the first part: %s', async (_, text) => {
    // the second part starts with line 202 (after the header and 200 lines)
    const { table, adopted } = await readInHalves(text, OPTIONS, 202);
    expect(adopted).toBe(false);
    expect(table).toEqual(await parseTable(chunked(Buffer.from(text), 1 << 20), OPTIONS));
  });

  it('keeps a line of only a byte order mark at the start of the second part (a missing value there, not an empty line)', async () => {
    const text = `a\n${lines(150, (i) => String(i))}\n\ufeff\n${lines(150, (i) => String(i))}\n`;
    const { table, adopted } = await readInHalves(text, OPTIONS, 152);
    expect(adopted).toBe(true);
    expect(table.sampleCount).toBe(301);
    expect(table.columns[0].missingCount).toBe(1);
    expect(table).toEqual(await parseTable(chunked(Buffer.from(text), 1 << 20), OPTIONS));
  });

  it('reports a fault in the second half at its line, as one reading does', async () => {
    const text = `a,b\n${lines(200, (i) => `${i},x`)}\n${lines(100, (i) => (i === 70 ? '5' : `${i},y`))}\n`;
    await expect(readInHalves(text)).rejects.toThrow(
      new TableError('line 272: 1 fields where the first row has 2 (every row must have as many; is the separator "," right?)'),
    );
    await expect(parseTable(chunked(Buffer.from(text), 64), OPTIONS)).rejects.toThrow(/^line 272: 1 fields/);
  });
});
