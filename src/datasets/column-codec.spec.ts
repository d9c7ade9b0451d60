import { deflateRawSync } from 'node:zlib';
import { packColumn, unpackColumn } from './column-codec';

/** 200,000 measurements with 10 significant digits (what repeated-string search cannot shrink). */
function measurements(n: number): Float64Array {
  let seed = 7;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff;
  return Float64Array.from({ length: n }, () => Number((rnd() * 1000).toPrecision(10)));
}

describe('packColumn / unpackColumn', () => {
  it.each([
    ['measurements (packed without the search for repeats)', measurements(200_000)],
    ['a few levels repeated (packed with it)', Float64Array.from({ length: 200_000 }, (_, i) => [0.5, 1.25, NaN, 3][i % 4])],
    ['a short column', Float64Array.from([1, -0, NaN, 2.5])],
  ])('gives back the same values, bit for bit: %s', async (_, values) => {
    const packed = await packColumn({ encoding: 'f64', values });
    const back = await unpackColumn('f64', packed, values.length);
    expect(Buffer.from(back.buffer).equals(Buffer.from(values.buffer))).toBe(true);
  });

  it('packs measurements within 2% of the size deflate reaches with its search for repeats', async () => {
    const values = measurements(200_000);
    const packed = await packColumn({ encoding: 'f64', values });
    const searched = deflateRawSync(Buffer.from(values.buffer), { level: 1 }).length;
    expect(packed.length).toBeLessThan(searched * 1.02);
  });

  it('still finds repeats in a long column that has them', async () => {
    const values = Float64Array.from({ length: 200_000 }, (_, i) => [0.1, 0.2, 0.3][i % 3]);
    const packed = await packColumn({ encoding: 'f64', values });
    expect(packed.length).toBeLessThan(values.byteLength / 100);
  });

  it('packs only the view of a column whose array has spare room', async () => {
    const room = new Float64Array(1100);
    room.set([1, 2, 3]);
    const view = room.subarray(0, 1000);
    const back = await unpackColumn('f64', await packColumn({ encoding: 'f64', values: view }), 1000);
    expect(back.length).toBe(1000);
    expect(Array.from(back.slice(0, 4))).toEqual([1, 2, 3, 0]);
  });
});
