import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';

/**
 * The crafted images of the reviews (issue 41): small files whose structure makes a checker or a decoder work or
 * allocate far beyond their size. The unit tests, the bad-input corpus and the attacks bench send the same bytes.
 */

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG chunk: length, type, data and CRC. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A sound 8 x 8 gray PNG followed by `count` empty chunks of `type` before its IEND (12 bytes each: the review's
 * 4.4 million IDAT chunks in 50 MB, or as many tEXt chunks). The empty chunks are one 12-byte pattern repeated.
 */
export function pngWithEmptyChunks(count: number, type = 'IDAT'): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(8, 0);
  ihdr.writeUInt32BE(8, 4);
  ihdr[8] = 8;
  const head = Buffer.concat([PNG_MAGIC, pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(Buffer.alloc(8 * 9)))]);
  const empty = pngChunk(type, Buffer.alloc(0));
  const end = pngChunk('IEND', Buffer.alloc(0));
  const out = Buffer.allocUnsafe(head.length + count * empty.length + end.length);
  head.copy(out, 0);
  let at = head.length;
  for (let k = 0; k < count; k++) at += empty.copy(out, at);
  end.copy(out, at);
  return out;
}

/** The number of 12-byte empty chunks that fit in `bytes` beside the 8 x 8 PNG around them. */
export function emptyChunksIn(bytes: number): number {
  return Math.floor((bytes - pngWithEmptyChunks(0).length) / 12);
}

/** A baseline 8 x 8 gray JPEG's frame and scan, after `count` empty COM segments (4 bytes each: FF FE 00 02). */
export function jpegWithComments(count: number): Buffer {
  const frame = Buffer.from([0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0x08, 0x00, 0x08, 0x01, 0x01, 0x11, 0x00]);
  const out = Buffer.allocUnsafe(2 + count * 4 + frame.length + 2);
  out[0] = 0xff;
  out[1] = 0xd8;
  for (let k = 0, at = 2; k < count; k++, at += 4) out.writeUInt32BE(0xfffe0002, at);
  frame.copy(out, 2 + count * 4);
  out.writeUInt16BE(0xffd9, out.length - 2);
  return out;
}

/**
 * A valid progressive JPEG of 7000 x 7000 pixels with 757 scans (203 KB; tools/make-many-scans-jpeg.js): seconds to
 * decode, where the same image with 10 scans takes milliseconds.
 */
export function manyScansJpeg(): Buffer {
  // test/data, from bench/ (ts-jest) or dist/bench/ (a bench), as engine-datasets.ts finds it
  const dir = process.env.SIGNET_DATA_DIR ?? path.resolve(__dirname, __filename.endsWith('.ts') ? '..' : '../..', 'test', 'data');
  return fs.readFileSync(path.join(dir, 'many-scans.jpg'));
}

/** A BMP header (BITMAPINFOHEADER) of `width` x `height` at `bpp` bits with `compression`, a palette when `bpp` <= 8, then `data`. */
export function bmpFile(width: number, height: number, bpp: number, compression: number, data: Buffer): Buffer {
  const palette = bpp <= 8 ? 4 << bpp : 0;
  const offset = 14 + 40 + palette;
  const b = Buffer.alloc(offset + data.length);
  b.write('BM', 0, 'latin1');
  b.writeUInt32LE(b.length, 2);
  b.writeUInt32LE(offset, 10);
  b.writeUInt32LE(40, 14);
  b.writeInt32LE(width, 18);
  b.writeInt32LE(height, 22);
  b.writeUInt16LE(1, 26);
  b.writeUInt16LE(bpp, 28);
  b.writeUInt32LE(compression, 30);
  b.writeUInt32LE(data.length, 34);
  data.copy(b, offset);
  return b;
}

/** The review's 1,080-byte RLE8 BMP: 7000 x 7000 pixels claimed, one end-of-bitmap code drawn (~450 MB decoded). */
export function rleBombBmp(): Buffer {
  return bmpFile(7000, 7000, 8, 1, Buffer.from([0x00, 0x01]));
}

/** An uncompressed 24-bit BMP of `width` x `height` cut after `keep` bytes of its rows. */
export function truncatedBmp(width: number, height: number, keep: number): Buffer {
  const rowBytes = Math.ceil((width * 24) / 32) * 4;
  return bmpFile(width, height, 24, 0, Buffer.alloc(rowBytes * height, 0x80)).subarray(0, 54 + keep);
}

/** A little-endian TIFF whose first directory gives the width tag (256) twice, with different values. */
export function tiffWithDuplicateWidth(): Buffer {
  const tags = 8;
  const ifdSize = 2 + tags * 12 + 4;
  const entries: [number, number, number][] = [
    [256, 3, 4], // width 4
    [256, 3, 400], // width again
    [257, 3, 4], // height
    [258, 3, 8], // bits per sample
    [259, 3, 1], // no compression
    [262, 3, 1], // black is zero
    [273, 4, 8 + ifdSize], // strip offset: the pixels after the directory
    [277, 3, 1], // samples per pixel
  ];
  const b = Buffer.alloc(8 + ifdSize + 16);
  b.write('II', 0, 'latin1');
  b.writeUInt16LE(42, 2);
  b.writeUInt32LE(8, 4);
  b.writeUInt16LE(entries.length, 8);
  entries.forEach(([tag, type, value], k) => {
    const e = 10 + k * 12;
    b.writeUInt16LE(tag, e);
    b.writeUInt16LE(type, e + 2);
    b.writeUInt32LE(1, e + 4);
    if (type === 3) b.writeUInt16LE(value, e + 8);
    else b.writeUInt32LE(value, e + 8);
  });
  return b;
}
