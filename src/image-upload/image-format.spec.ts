import { deflateSync } from 'node:zlib';
import { pngChunk as chunk } from '../../test/utils';
import { INFLATE_AT_ONCE_BYTES, pngDataBytes, pngProblem } from './image-format';

/** A width x height gray 8-bit PNG whose IDAT chunks hold `idat` (split in two when asked). */
function png(width: number, height: number, idat: Buffer, split = false): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  const half = idat.length >> 1;
  const data = split ? [chunk('IDAT', idat.subarray(0, half)), chunk('IDAT', idat.subarray(half))] : [chunk('IDAT', idat)];
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    ...data,
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('pngProblem', () => {
  // 100 x 100 inflates at once; 1200 x 1200 (1.4 MB) in pieces on libuv's threads: both ways give the same answers
  for (const [width, height] of [
    [100, 100],
    [1200, 1200],
  ]) {
    const expected = pngDataBytes(width, height, 8, 0, false);
    const way = expected <= INFLATE_AT_ONCE_BYTES ? 'at once' : 'in pieces';

    it(`${width} x ${height} (inflated ${way}): sound data passes, in one IDAT or two`, async () => {
      expect(await pngProblem(png(width, height, deflateSync(Buffer.alloc(expected, 3))))).toBeUndefined();
      expect(await pngProblem(png(width, height, deflateSync(Buffer.alloc(expected, 3)), true))).toBeUndefined();
    });

    it(`${width} x ${height} (inflated ${way}): more data than the header needs, less, or not zlib, each named`, async () => {
      expect(await pngProblem(png(width, height, deflateSync(Buffer.alloc(expected + 1))))).toBe(
        `its image data inflates to more than the ${expected} bytes its ${width} x ${height} header needs`,
      );
      expect(await pngProblem(png(width, height, deflateSync(Buffer.alloc(20 * 1048576))))).toMatch(
        /^its image data inflates to more than/,
      );
      expect(await pngProblem(png(width, height, deflateSync(Buffer.alloc(expected - 1))))).toBe(
        'its image data is shorter than its header needs (a truncated image)',
      );
      const cut = deflateSync(Buffer.alloc(expected, 3));
      expect(await pngProblem(png(width, height, cut.subarray(0, cut.length - 6)))).toBe('its image data is not a valid zlib stream');
      expect(await pngProblem(png(width, height, Buffer.from('not zlib at all')))).toBe('its image data is not a valid zlib stream');
    });
  }
});
