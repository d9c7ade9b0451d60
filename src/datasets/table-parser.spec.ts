import { parseTable, TableError } from './table-parser';

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
