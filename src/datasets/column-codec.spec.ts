import { randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { ParsedColumn } from './column-builder';
import { deflatesWell, impossibleType, packColumn, packPiece, packTable, storedForm, storedFrames, unpackColumn } from './column-codec';

/** 200,000 measurements with 10 significant digits (what repeated-string search cannot shrink). */
function measurements(n: number): Float64Array {
  let seed = 7;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff;
  return Float64Array.from({ length: n }, () => Number((rnd() * 1000).toPrecision(10)));
}

describe('packColumn / unpackColumn', () => {
  it.each([
    ['measurements (stored as they are)', measurements(200_000)],
    ['a few levels repeated (packed with it)', Float64Array.from({ length: 200_000 }, (_, i) => [0.5, 1.25, NaN, 3][i % 4])],
    ['a short column', Float64Array.from([1, -0, NaN, 2.5])],
  ])('gives back the same values, bit for bit: %s', async (_, values) => {
    const packed = await storedForm(await packColumn({ encoding: 'f64', values }));
    const back = await unpackColumn('f64', packed, values.length);
    expect(Buffer.from(back.buffer).equals(Buffer.from(values.buffer))).toBe(true);
  });

  it('stores measurements that deflate barely shrinks as they are (stored blocks): deflate would save under a tenth', async () => {
    const values = measurements(200_000);
    const kept = await packColumn({ encoding: 'f64', values });
    // kept raw, not copied: its frames are written around its bytes
    expect(kept.raw).toBe(true);
    expect(kept.data.buffer).toBe(values.buffer);
    const packed = await storedForm(kept);
    // 5 bytes of header per stored block of up to 65,535 bytes, nothing else
    expect(packed.length).toBe(values.byteLength + 5 * Math.ceil(values.byteLength / 65535));
    const searched = deflateRawSync(Buffer.from(values.buffer), { level: 1 }).length;
    expect(packed.length).toBeLessThan(searched / 0.9);
  });

  it('still finds repeats in a long column that has them', async () => {
    const values = Float64Array.from({ length: 200_000 }, (_, i) => [0.1, 0.2, 0.3][i % 3]);
    const packed = await packColumn({ encoding: 'f64', values });
    expect(packed.raw).toBe(false);
    expect(packed.data.length).toBeLessThan(values.byteLength / 100);
  });

  it('packs only the view of a column whose array has spare room', async () => {
    const room = new Float64Array(1100);
    room.set([1, 2, 3]);
    const view = room.subarray(0, 1000);
    const back = await unpackColumn('f64', await storedForm(await packColumn({ encoding: 'f64', values: view })), 1000);
    expect(back.length).toBe(1000);
    expect(Array.from(back.slice(0, 4))).toEqual([1, 2, 3, 0]);
  });
});

describe('storedFrames', () => {
  it.each([3, 65_535, 65_536, 100_000, 1 << 20])('frames the bytes as stored blocks whatever the pieces (%i bytes each)', async (size) => {
    const bytes = Buffer.from(Float64Array.from({ length: 20_000 }, (_, i) => i * 1.5).buffer);
    const pieces = [];
    for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.subarray(i, i + size));
    const parts = [];
    for await (const p of storedFrames(pieces, bytes.length)) parts.push(p);
    const stream = Buffer.concat(parts);
    expect(stream.length).toBe(bytes.length + 5 * Math.ceil(bytes.length / 65_535));
    expect(inflateRawSync(stream).equals(bytes)).toBe(true);
  });

  it('packs pieces, raw or deflated, after which the rest of a column packed on its own reads as one stream', async () => {
    const values = Float64Array.from({ length: 300_000 }, (_, i) => (i % 1000) * 0.25);
    const bytes = Buffer.from(values.buffer);
    expect(deflatesWell(bytes)).toBe(true);
    expect(deflatesWell(randomBytes(100_000))).toBe(false);
    // piece 0 raw (stored blocks, 800,000 bytes: 13 of them), piece 1 deflated
    const open = Buffer.concat([...packPiece(bytes.subarray(0, 800_000), false), ...packPiece(bytes.subarray(800_000, 1_600_000), true)]);
    expect(open.length).toBeLessThan(800_000 + 13 * 5 + 400_000);
    expect(() => inflateRawSync(open)).toThrow(); // no final block: the stream is not over
    for (const rest of [values.subarray(200_000), values.subarray(300_000)]) {
      // deflated (the rest compresses) or empty: either way the pieces and the rest read as the whole column
      const packed = await packColumn({ encoding: 'f64', values: rest });
      const whole = Buffer.concat([open, await storedForm(packed)]);
      expect(
        Buffer.from((await unpackColumn('f64', whole, 200_000 + rest.length)).buffer).equals(
          bytes.subarray(0, (200_000 + rest.length) * 8),
        ),
      ).toBe(true);
    }
  });

  it('frames an empty column as one empty final block, and fails when the pieces fall short', async () => {
    const parts = [];
    for await (const p of storedFrames([], 0)) parts.push(p);
    expect(inflateRawSync(Buffer.concat(parts)).length).toBe(0);
    const short = async () => {
      for await (const p of storedFrames([Buffer.alloc(10)], 20)) void p;
    };
    await expect(short()).rejects.toThrow('fewer bytes');
  });
});

describe('packTable (a build packs its columns where it parsed them)', () => {
  it('gives each column the bytes packColumn gives, lets its array go, and keeps what typing needs', async () => {
    const big = measurements(100_000);
    const columns: ParsedColumn[] = [
      { name: 'big', encoding: 'f64' as const, values: big, missingCount: 0, distinctCount: 100_000 },
      { name: 'time', encoding: 'f64' as const, values: Float64Array.from([3, NaN, 0, 7]), missingCount: 1, distinctCount: 3 },
      { name: 'delta', encoding: 'f64' as const, values: Float64Array.from([3, -0.5, 2]), missingCount: 0, distinctCount: 3 },
      {
        name: 'site',
        encoding: 'dict' as const,
        codes: Int32Array.from([0, 1, -1, 0]),
        levels: ['a', 'b'],
        missingCount: 1,
        distinctCount: 2,
      },
    ];
    const expected = await Promise.all(columns.map(async (c) => storedForm(await packColumn(c))));
    await packTable({ sampleCount: 4, columns }, 2);
    expect(columns.map((c) => !!c.raw)).toEqual([true, false, false, false]);
    for (const [i, c] of columns.entries()) {
      expect(c.values).toBeUndefined();
      expect((await storedForm({ data: c.packed as Uint8Array, raw: !!c.raw })).equals(expected[i])).toBe(true);
      // a plain Uint8Array that owns its memory or a large zlib buffer: it can move to another thread and down the data pipe
      expect(c.packed!.constructor).toBe(Uint8Array);
    }
    expect(
      Buffer.from(
        (await unpackColumn('f64', await storedForm({ data: columns[0].packed as Uint8Array, raw: true }), big.length))
          .buffer as ArrayBuffer,
      ).equals(Buffer.from(big.buffer)),
    ).toBe(true);
    expect(impossibleType(columns[1], 'timeToEvent')).toBeUndefined();
    expect(impossibleType(columns[2], 'timeToEvent')).toBe('"delta" has negative values, so it cannot be a time to event');
  });
});
