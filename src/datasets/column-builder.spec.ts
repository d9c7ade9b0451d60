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
      const fast = fastNumber(s, 0, s.length);
      // NaN means "not taken": the caller falls back to the general rule, which must then read a number
      const value = Number.isNaN(fast) ? general(s) : fast;
      expect(Object.is(value, Number(s))).toBe(true);
    }
  });

  it('takes nothing that is not a plain number, so the general rule decides', () => {
    for (const s of ['', ' 1', '1 ', '-', '+', '.', 'e5', '1e', '1e+', '1.2.3', '12abc', '0x10', 'Infinity', 'NaN', 'NA', '--1', '1,5']) {
      expect(fastNumber(s, 0, s.length)).toBeNaN();
    }
  });

  it('reads a field inside a line without its neighbours', () => {
    const line = 'a,12.5,-3e2,x';
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

describe('ColumnBuilder.pushField', () => {
  it.each([
    ['numbers', ['1', ' 2 ', 'NA', '3.5', '', '-1e3', '0.1234567890123456789', '?']],
    ['numbers, then text', ['1', ' 2 ', 'NA', '3.5', '', 'abc', '4', '?']],
  ])('gives the same column as push() of each cell (%s)', (_, cells) => {
    const line = cells.join(',');
    const a = new ColumnBuilder('c');
    const b = new ColumnBuilder('c');
    let from = 0;
    for (const cell of cells) {
      a.push(cell);
      b.pushField(line, from, from + cell.length);
      from += cell.length + 1;
    }
    expect(b.finish()).toEqual(a.finish());
  });
});

describe('distinctNumbers', () => {
  it('counts distinct values, not NaN, with -0 equal to 0', () => {
    expect(distinctNumbers(Float64Array.from([1, 2, 2, NaN, 3, NaN, 1, 0, -0]))).toBe(4);
    expect(distinctNumbers(new Float64Array(0))).toBe(0);
    const many = Float64Array.from({ length: 100000 }, (_, i) => (i % 777) * 0.1);
    expect(distinctNumbers(many)).toBe(777);
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
