import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import {
  bmpFile,
  emptyChunksIn,
  jpegWithComments,
  manyScansJpeg,
  pngChunk as chunk,
  pngWithEmptyChunks,
  rleBombBmp,
  tiffWithDuplicateWidth,
  truncatedBmp,
} from '../../bench/hostile-images';
import {
  checkImageBytes,
  INFLATE_AT_ONCE_BYTES,
  MAX_JPEG_SCANS,
  MAX_JPEG_SEGMENTS,
  MAX_PNG_CHUNKS,
  pngDataBytes,
  pngProblem,
} from './image-format';

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

describe('checkImageBytes: the bounds on structure (issue 41)', () => {
  const LIMIT = 50_000_000;
  const refused = async (bytes: Buffer) => {
    const check = await checkImageBytes(bytes, LIMIT);
    return check.ok ? 'accepted' : `${check.code}: ${check.problem}`;
  };

  it('refuses a PNG of more than MAX_PNG_CHUNKS chunks (empty IDAT or tEXt), and takes one with many fewer', async () => {
    expect(await refused(pngWithEmptyChunks(MAX_PNG_CHUNKS))).toBe(
      `badRequest-130-2-2: it cannot be decoded safely: it has more than ${MAX_PNG_CHUNKS} chunks`,
    );
    expect(await refused(pngWithEmptyChunks(MAX_PNG_CHUNKS, 'tEXt'))).toMatch(/more than 100000 chunks$/);
    // the 50 MB of the review: 4.4 million chunks, refused at the bound (the walk stops there)
    expect(await refused(pngWithEmptyChunks(emptyChunksIn(50 * 1048576)))).toMatch(/more than 100000 chunks$/);
    expect(await refused(pngWithEmptyChunks(MAX_PNG_CHUNKS - 10))).toBe('accepted');
  });

  it('refuses a JPEG of more than MAX_JPEG_SEGMENTS segments, or of more than MAX_JPEG_SCANS scans, and takes a progressive one', async () => {
    expect(await refused(jpegWithComments(MAX_JPEG_SEGMENTS))).toBe(
      `badRequest-130-2-2: it cannot be decoded safely: it has more than ${MAX_JPEG_SEGMENTS} marker segments`,
    );
    expect(await refused(jpegWithComments(13_000_000))).toMatch(/more than 2000 marker segments$/);
    expect(await refused(jpegWithComments(100))).toBe('accepted');
    // a valid progressive JPEG with 757 scans (seconds to decode)
    expect(await refused(manyScansJpeg())).toBe(
      `badRequest-130-2-2: it cannot be decoded safely: it has more than ${MAX_JPEG_SCANS} scans (MAX_JPEG_SCANS: each is a pass over the whole image)`,
    );
    const progressive = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#369' } })
      .jpeg({ progressive: true })
      .toBuffer();
    expect(await refused(progressive)).toBe('accepted');
  });

  it('refuses a run-length BMP claiming more than 128 pixels a byte, a truncated BMP, and a TIFF with a tag twice', async () => {
    expect(await refused(rleBombBmp())).toBe(
      'badRequest-130-2-2: it cannot be decoded safely: its run-length-encoded data of 1080 bytes claims 7000 x 7000 pixels (at most 128 pixels a byte are accepted)',
    );
    // 64 x 64 in RLE8: 4096 pixels in 1078 + 34 bytes is 3.7 pixels a byte
    expect(await refused(bmpFile(64, 64, 8, 1, Buffer.alloc(34)))).toBe('accepted');
    expect(await refused(truncatedBmp(10, 10, 50))).toBe(
      'badRequest-130-2-2: it cannot be decoded safely: it is truncated: its rows need 374 bytes and the file has 104',
    );
    expect(await refused(truncatedBmp(10, 10, 400))).toBe('accepted');
    expect(await refused(tiffWithDuplicateWidth())).toBe(
      'badRequest-130-2-2: it cannot be decoded safely: its first directory gives tag 256 twice',
    );
  });

  it('names the pixel limit, and content that is no image', async () => {
    expect(await checkImageBytes(pngWithEmptyChunks(0), 63)).toEqual({
      ok: false,
      code: 'badRequest-130-2-5',
      problem: 'it is 8 x 8 pixels; at most 63 pixels are accepted',
    });
    expect(await refused(Buffer.from('just text'))).toBe(
      'badRequest-130-2-2: it is not a jpeg, png, tif or bmp image (checked by its content)',
    );
  });
});
