import { parseTable, parseTableText, TableError } from './table-parser';
import { PlainLines } from './plain-lines';

const OPTIONS = { separator: ',', hasFeatureHeaders: true, hasSampleHeaders: false, hasSamplesInRows: true };

/** The text as a stream of chunks of `size` bytes, so lines and characters are split across chunks. */
async function* chunked(text: string, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe('parseTable', () => {
  it('reads a one-column file of 200,000 rows split in 1 MiB chunks', async () => {
    const rows = Array.from({ length: 200000 }, (_, i) => String(i * 0.5));
    const table = await parseTable(chunked(`x\n${rows.join('\n')}\n`, 1 << 20), OPTIONS);
    expect(table.sampleCount).toBe(200000);
    expect(table.columns[0].values?.[199999]).toBe(99999.5);
    expect(table.columns[0].distinctCount).toBe(200000);
  });

  it('hands over the number columns every `rows` rows while it reads, then the rest, and marks those still numbers at the end', async () => {
    // b turns to text on row 6 (in the second piece), c is text, d is kept as text
    const lines = Array.from({ length: 10 }, (_, i) => `${i},${i === 6 ? 'x' : i * 2},t${i},${i}`);
    const taken: { piece: number; columns: { idx: number; values: number[] }[] }[] = [];
    const pieces = {
      rows: 4,
      take: (piece: number, columns: { idx: number; values: Float64Array }[]) => {
        taken.push({ piece, columns: columns.map((c) => ({ idx: c.idx, values: Array.from(c.values) })) });
      },
    };
    const table = await parseTable(chunked(`a,b,c,d\n${lines.join('\n')}\n`, 7), { ...OPTIONS, textColumns: new Set(['d']), pieces });
    expect(taken).toEqual([
      {
        piece: 0,
        columns: [
          { idx: 0, values: [0, 1, 2, 3] },
          { idx: 1, values: [0, 2, 4, 6] },
        ],
      },
      { piece: 1, columns: [{ idx: 0, values: [4, 5, 6, 7] }] },
      { piece: 2, columns: [{ idx: 0, values: [8, 9] }] }, // the rest, at the end
    ]);
    expect(table.columns.map((c) => [c.encoding, c.pieces])).toEqual([
      ['f64', { count: 3, rows: 10, bytes: 0 }],
      ['dict', undefined],
      ['dict', undefined],
      ['dict', undefined],
    ]);
    expect(Array.from(table.columns[0].values as Float64Array)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('gives the same table whatever the chunk size, CRLF, a final line without newline, and text columns', async () => {
    const text = 'a,b,c\r\n1,x,2.5\r\n-3,y,\r\nNA,é,1e3\r\n4,x,7';
    const whole = await parseTable(chunked(text, 1 << 20), OPTIONS);
    for (const size of [1, 2, 3, 5, 7]) expect(await parseTable(chunked(text, size), OPTIONS)).toEqual(whole);
    expect(whole.sampleCount).toBe(4);
    expect(Array.from(whole.columns[0].values ?? [])).toEqual([1, -3, NaN, 4]);
    expect(whole.columns[1].levels).toEqual(['x', 'y', 'é']);
    expect(Array.from(whole.columns[2].values ?? [])).toEqual([2.5, NaN, 1000, 7]);
  });

  it('names the line of a ragged row, one field short or one too many', async () => {
    await expect(parseTable(chunked('a,b\n1,2\n3\n', 4), OPTIONS)).rejects.toThrow(
      new TableError('line 3: 1 fields where the first row has 2 (every row must have as many; is the separator "," right?)'),
    );
    await expect(parseTable(chunked('a\n1\n2,3\n', 3), OPTIONS)).rejects.toThrow(/^line 3: 2 fields where the first row has 1/);
  });

  it.each([
    ['on the fast path', 'a,b\n1,2\n'],
    ['in the strict reader', 'a,"b"\n1,2\n'],
  ])('throws a failure of the chunks themselves as it is, not as a fault of the file (%s)', async (_, head) => {
    async function* lost(): AsyncGenerator<Buffer> {
      yield Buffer.from(head);
      throw new Error('file 7 lost chunks after 1');
    }
    const failure = parseTable(lost(), OPTIONS);
    await expect(failure).rejects.toThrow('file 7 lost chunks after 1');
    await expect(failure).rejects.not.toBeInstanceOf(TableError);
  });
});

describe('parseTable with the file size known', () => {
  const rows = (n: number, cells: (i: number) => string) => Array.from({ length: n }, (_, i) => cells(i)).join('\n');
  it.each([
    ['every line alike', `a,b\n${rows(20000, (i) => `${i},${i * 2}`)}\n`],
    [
      'long lines first, then short ones (too few rows expected)',
      `a,b\n${rows(3000, (i) => `${i}.123456789012,${i}.987654321098`)}\n${rows(30000, (i) => `${i % 10},1`)}\n`,
    ],
    [
      'short lines first, then long ones (too many rows expected)',
      `a,b\n${rows(3000, (i) => `${i % 10},1`)}\n${rows(3000, (i) => `${'9'.repeat(300)},${i}`)}\n`,
    ],
  ])('gives the same table as without it: %s', async (_, text) => {
    const size = Buffer.byteLength(text);
    const without = await parseTable(chunked(text, 8192), OPTIONS);
    const withSize = await parseTable(chunked(text, 8192), { ...OPTIONS, sizeInBytes: size });
    expect(withSize).toEqual(without);
  });

  it('makes room for the rows at once when the estimate is right, and hands the arrays over without copies', async () => {
    const text = `a,b\n${rows(20000, (i) => `${String(i).padStart(5, '0')}.123456,${i % 10}.654321`)}\n`;
    const table = await parseTable(chunked(text, 8192), { ...OPTIONS, sizeInBytes: Buffer.byteLength(text) });
    for (const c of table.columns) {
      expect(c.values?.length).toBe(20000);
      // the room reserved from the estimate (a little over), not a doubling of 1024s (32768) nor a copy (20000)
      expect(c.values?.buffer.byteLength).toBeGreaterThan(8 * 20000);
      expect(c.values?.buffer.byteLength).toBeLessThanOrEqual(8 * 20000 * 1.125);
    }
  });
});

describe('the fast path (plain text read on bytes) and the strict reader (csv-parse) give the same table', () => {
  // A deterministic generator (32-bit LCG), so a failure names a file that can be made again.
  const generator = (seed: number) => () => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff;
  const MISSING = ['', 'NA', 'na', 'NaN', '?', 'null', 'NULL', ' NA '];
  /** A cell of a numerical column, written as files write numbers, now and then missing. */
  const numberCell = (rnd: () => number, i: number): string => {
    const v = (rnd() - 0.5) * 10 ** Math.floor(rnd() * 14 - 6);
    if (rnd() < 0.05) return MISSING[i % MISSING.length];
    switch (i % 9) {
      case 0:
        return v.toPrecision(1 + (i % 17));
      case 1:
        return v.toExponential(i % 8);
      case 2:
        return v.toFixed(i % 6);
      case 3:
        return String(Math.round(v * 1000));
      case 4:
        return ` ${v.toPrecision(6)} `; // spaces around: the general rule trims them
      case 5:
        return `+${Math.abs(v).toPrecision(4)}`;
      case 6:
        return (v * 1e20).toPrecision(19).toUpperCase(); // a mantissa past 2^53, E for the exponent
      case 7:
        return `.${String(i).padStart(3, '0')}`;
      default:
        return String(v);
    }
  };
  const CATEGORIES = ['north', 'south', 'é', 'x y', ' padded ', '中文', '1', '2.5'];
  /** Columns: numbers, categories, numbers that turn to text late (1e400, a hex, Infinity), an integer id. */
  const table = (rows: number, seed: number): string[][] => {
    const rnd = generator(seed);
    const lines = [['id', 'a', 'b', 'site', 'late', 'c']];
    for (let i = 0; i < rows; i++) {
      const late = i === rows - 3 ? ['1e400', '0x10', 'Infinity'][seed % 3] : numberCell(rnd, i + 3);
      lines.push([
        String(i + 1),
        numberCell(rnd, i),
        numberCell(rnd, i + 1),
        CATEGORIES[Math.floor(rnd() * 8)],
        late,
        numberCell(rnd, i + 2),
      ]);
    }
    return lines;
  };
  const write = (lines: string[][], sep: string, eol: string) => lines.map((l) => l.join(sep)).join(eol) + eol;

  it.each([
    [',', '\n', 1],
    [',', '\r\n', 2],
    [';', '\n', 3],
    ['\t', '\r\n', 4],
    ['|', '\n', 5],
    ['§', '\n', 6], // two bytes in UTF-8
  ])('separator %j, line ends %j (file %i)', async (sep, eol, seed) => {
    const text = write(table(3000, seed), sep, eol);
    const options = { ...OPTIONS, separator: sep };
    const strict = parseTableText(text, options);
    expect(strict.columns.map((c) => c.encoding)).toEqual(['f64', 'f64', 'f64', 'dict', 'dict', 'f64']);
    for (const size of [1 << 20, 4096, 997]) {
      expect(await parseTable(chunked(text, size), options)).toEqual(strict);
      expect(await parseTable(chunked(text, size), { ...options, sizeInBytes: Buffer.byteLength(text) })).toEqual(strict);
    }
  });

  it('with a separator that numbers are written with (a point), a BOM, sample names and text columns', async () => {
    const lines = [['name', 'p', 'q', 'r']];
    for (let i = 0; i < 500; i++) lines.push([`s${i}`, String(i * 7), i % 11 ? String(-i) : 'NA', String(i % 3)]);
    const text = '\uFEFF' + write(lines, '.', '\n');
    const options = { ...OPTIONS, separator: '.', hasSampleHeaders: true, textColumns: new Set(['r']) };
    const strict = parseTableText(text, options);
    expect(strict.columns.map((c) => c.name)).toEqual(['name', 'p', 'q', 'r']);
    expect(strict.columns[3].encoding).toBe('dict');
    for (const size of [1 << 20, 5, 1]) expect(await parseTable(chunked(text, size), options)).toEqual(strict);
  });

  it('without a header, with empty lines and no newline at the end', async () => {
    const text = '1,2,x\r\n\r\n3,4.5e-3,y\r\n\r\n-0,NA,x\r\n5,6,z';
    const options = { ...OPTIONS, hasFeatureHeaders: false };
    const strict = parseTableText(text, options);
    expect(strict.sampleCount).toBe(4);
    for (const size of [1 << 20, 3, 1]) expect(await parseTable(chunked(text, size), options)).toEqual(strict);
  });

  it('reads a file that is plain for its first megabytes and quoted later as the strict reader does', async () => {
    const lines = table(22000, 7);
    lines[19000][3] = '"a, quoted ""name"""'; // a separator and quotes inside a field
    lines[19001][3] = '"two\nlines"';
    const text = write(lines, ',', '\r\n');
    expect(text.indexOf('"')).toBeGreaterThan(1 << 20);
    const strict = parseTableText(text, OPTIONS);
    expect(strict.columns[3].levels).toEqual(expect.arrayContaining(['a, quoted "name"', 'two\nlines']));
    for (const size of [1 << 20, 65536, 1000]) expect(await parseTable(chunked(text, size), OPTIONS)).toEqual(strict);
  });

  it('names the line of a ragged row deep in a long file, one field short or one too many, as the strict reader does', async () => {
    for (const [cut, fields] of [
      [(l: string[]) => l.slice(0, 5), 5],
      [(l: string[]) => [...l, '1'], 7],
    ] as const) {
      const lines = table(5000, 8);
      lines[4321] = cut(lines[4321]);
      const message = `line 4322: ${fields} fields where the first row has 6 (every row must have as many; is the separator "," right?)`;
      await expect(parseTable(chunked(write(lines, ',', '\n'), 4096), OPTIONS)).rejects.toThrow(new TableError(message));
      lines[0][0] = '"id"'; // the whole file through csv-parse
      await expect(parseTable(chunked(write(lines, ',', '\n'), 4096), OPTIONS)).rejects.toThrow(new TableError(message));
    }
  });

  it('reports bad UTF-8, a NUL byte and a character cut at the end where it did', async () => {
    const good = Buffer.from(write(table(2000, 9), ',', '\n'));
    const bad = Buffer.concat([good.subarray(0, 50000), Buffer.from([0xc3, 0x28]), good.subarray(50000)]);
    const chunks = async function* (b: Buffer, size: number) {
      for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
    };
    await expect(parseTable(chunks(bad, 1), OPTIONS)).rejects.toThrow(
      /^the file is not valid UTF-8 text \(bad bytes between byte 50001 and 50002,/,
    );
    await expect(parseTable(chunks(bad, 16384), OPTIONS)).rejects.toThrow(
      /^the file is not valid UTF-8 text \(bad bytes between byte 49152 and 65536, near line \d+\); save it as UTF-8$/,
    );
    const nul = Buffer.concat([good.subarray(0, 70000), Buffer.from([0]), good.subarray(70000)]);
    await expect(parseTable(chunks(nul, 16384), OPTIONS)).rejects.toThrow(/^the file holds a NUL byte \(binary content\) near line \d+$/);
    const cut = Buffer.concat([good, Buffer.from('é').subarray(0, 1)]);
    await expect(parseTable(chunks(cut, 16384), OPTIONS)).rejects.toThrow(
      new TableError('the file ends in the middle of a UTF-8 character'),
    );
  });
});

describe('PlainLines', () => {
  it('keeps nothing of a chunk once the next is pushed: a chunk filled again cannot change a line it started', () => {
    const lines: string[] = [];
    const split = new PlainLines(
      100,
      (bytes, from, end) => lines.push(bytes.toString('utf8', from, end)),
      () => new Error('too large'),
    );
    const chunks = ['a,1\nb,', '2', '2\nc,3\n'].map((c) => Buffer.from(c));
    for (const [k, chunk] of chunks.entries()) {
      split.push(chunk, k === chunks.length - 1);
      if (k > 0) chunks[k - 1].fill(0x7a); // the chunk before is filled again (storedFileInThread)
    }
    expect(lines).toEqual(['a,1', 'b,22', 'c,3']);
  });
});
