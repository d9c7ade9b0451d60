import { ColumnBuilder, distinctNumbers, fastNumber, parseNumber } from './column-builder';

/** What a cell means by the general rule: the number parseNumber reads, or NaN for text. */
const general = (s: string): number => parseNumber(s);

describe('fastNumber', () => {
  it('reads plain decimals exactly as Number() does, bit for bit', () => {
    const cells = [
      '0',
      '-0',
      '+0',
      '1',
      '-1',
      '+7',
      '12.5',
      '-0.001',
      '.5',
      '-.25',
      '5.',
      '1e5',
      '1E-5',
      '2.5e+3',
      '123.4567891',
      '0.30000000000000004',
      '9007199254740991',
      '1e22',
      '1e-22',
      '4.9406564584124654e-324',
      '1.7976931348623157e308',
    ];
    // and many random values written the ways files write them
    for (let i = 0; i < 20000; i++) {
      const v = (Math.random() - 0.5) * 10 ** Math.floor(Math.random() * 12 - 4);
      cells.push(v.toPrecision(1 + (i % 17)), String(v), v.toFixed(i % 9), v.toExponential(i % 12));
    }
    for (const s of cells) {
      const fast = fastNumber(Buffer.from(s), 0, s.length);
      // NaN means "not taken": the caller falls back to the general rule, which must then read a number
      const value = Number.isNaN(fast) ? general(s) : fast;
      expect(Object.is(value, Number(s))).toBe(true);
    }
  });

  it('takes nothing that is not a plain number, so the general rule decides', () => {
    for (const s of ['', ' 1', '1 ', '-', '+', '.', 'e5', '1e', '1e+', '1.2.3', '12abc', '0x10', 'Infinity', 'NaN', 'NA', '--1', '1,5']) {
      expect(fastNumber(Buffer.from(s), 0, Buffer.byteLength(s))).toBeNaN();
    }
  });

  it('reads a field inside a line without its neighbours', () => {
    const line = Buffer.from('a,12.5,-3e2,x');
    expect(fastNumber(line, 2, 6)).toBe(12.5);
    expect(fastNumber(line, 7, 11)).toBe(-300);
    expect(fastNumber(line, 12, 13)).toBeNaN();
  });
});

describe('parseNumber', () => {
  it('reads a decimal beyond the range of a double as text, as Infinity is (it would be stored as an infinity)', () => {
    for (const s of ['1e400', '-1e309', 'Infinity', '-Infinity']) expect(parseNumber(s)).toBeNaN();
    expect(parseNumber('1.7976931348623157e308')).toBe(Number.MAX_VALUE);
    expect(parseNumber('1e-400')).toBe(0); // underflow is a number: zero
    const c = new ColumnBuilder('c');
    for (const cell of ['1', '2', '1e400']) c.push(cell);
    expect(c.finish().levels).toEqual(['1', '2', '1e400']);
  });
});

describe('ColumnBuilder.pushBytes', () => {
  it.each([
    ['numbers', ['1', ' 2 ', 'NA', '3.5', '', '-1e3', '0.1234567890123456789', '?', '1e400', '-0', '-', '1e', '2e+', '7']],
    ['numbers, then text', ['1', ' 2 ', 'NA', '3.5', '', 'abc', '4', '?', 'é', '']],
  ])('gives the same column as push() of each cell, and so does pushCellAt (%s)', (_, cells) => {
    const line = Buffer.from(cells.join(','));
    const a = new ColumnBuilder('c');
    const b = new ColumnBuilder('c');
    const c = new ColumnBuilder('c');
    let from = 0;
    let at = 0;
    for (const cell of cells) {
      a.push(cell);
      b.pushBytes(line, from, from + Buffer.byteLength(cell));
      from += Buffer.byteLength(cell) + 1;
      const end = c.pushCellAt(line, at, line.length, 44);
      expect(end).toBe(from - 1); // the cell's end: the comma after it, or the line's end
      at = end + 1;
    }
    const expected = a.finish();
    expect(b.finish()).toEqual(expected);
    expect(c.finish()).toEqual(expected);
  });
});

describe('distinctNumbers', () => {
  it('counts distinct values, not NaN, with -0 equal to 0', () => {
    expect(distinctNumbers(Float64Array.from([1, 2, 2, NaN, 3, NaN, 1, 0, -0]))).toBe(4);
    expect(distinctNumbers(new Float64Array(0))).toBe(0);
    const many = Float64Array.from({ length: 100000 }, (_, i) => (i % 777) * 0.1);
    expect(distinctNumbers(many)).toBe(777);
  });

  it.each([
    ['mostly distinct measurements', (i: number) => (i % 5 === 0 ? NaN : Math.round(Math.sin(i) * 1e6) / 1e3)],
    ['integers with repeats, zeros of both signs', (i: number) => (i % 3 === 0 ? (i % 2 ? -0 : 0) : (i * 7919) % 250000)],
    ['a few levels', (i: number) => [1.5, -2, 1e300, 5e-324][i % 4]],
  ])('counts as a Set does over a column long enough to be split in buckets: %s', (_, cell) => {
    for (const n of [1, 4095, 4097, 300001]) {
      const values = Float64Array.from({ length: n }, (_, i) => cell(i));
      const expected = new Set(Array.from(values).filter((v) => !Number.isNaN(v))).size; // a Set takes -0 as 0
      expect(distinctNumbers(values)).toBe(expected);
    }
  });

  it('counts each column afresh when its working arrays are reused: long, short, longer, and longer than it keeps', () => {
    const column = (n: number, levels: number) => Float64Array.from({ length: n }, (_, i) => ((i * 7919) % levels) / 8);
    for (const [n, levels] of [
      [300_000, 250_000],
      [5_000, 3],
      [600_000, 1_000],
      [2_200_000, 5_000],
      [10, 10],
    ]) {
      const values = column(n, levels);
      expect(distinctNumbers(values)).toBe(new Set(values).size);
    }
  });
});

describe('ColumnBuilder capacity', () => {
  it('hands over its array when nearly full, an exact copy when mostly empty, and grows past it', () => {
    const full = new ColumnBuilder('x', false, 1000);
    for (let i = 0; i < 950; i++) full.push(String(i));
    const a = full.finish();
    expect(a.values?.length).toBe(950);
    expect(a.values?.buffer.byteLength).toBe(8000); // the same memory, not copied

    const sparse = new ColumnBuilder('x', false, 1000);
    for (let i = 0; i < 100; i++) sparse.push(String(i));
    expect(sparse.finish().values?.buffer.byteLength).toBe(800);

    const small = new ColumnBuilder('x', false, 16);
    for (let i = 0; i < 5000; i++) small.push(String(i));
    const grown = small.finish();
    expect(grown.values?.length).toBe(5000);
    expect(grown.values?.[4999]).toBe(4999);
    expect(grown.distinctCount).toBe(5000);
  });

  it('keeps its room when it turns to text, and its codes are sized as its values were', () => {
    const b = new ColumnBuilder('x', false, 100);
    for (let i = 0; i < 95; i++) b.push(i < 90 ? String(i % 3) : 'other');
    const c = b.finish();
    expect(c.encoding).toBe('dict');
    expect(c.codes?.length).toBe(95);
    expect(c.levels).toEqual(['0', '1', '2', 'other']);
    expect(c.codes?.[94]).toBe(3);
  });
});
