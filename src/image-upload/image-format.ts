import { createInflate, inflateSync } from 'node:zlib';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';

/** The image formats an upload accepts (api-v1: jpeg, jpg, tif, png, bmp), told apart by content. */
export type ImageMime = 'image/jpeg' | 'image/png' | 'image/bmp' | 'image/tiff';

export interface ImageHeader {
  mime: ImageMime;
  width: number;
  height: number;
}

/** Largest width or height accepted (a header claiming more is not a real image of ours). */
const MAX_SIDE = 100_000;

/**
 * Reads the format and the dimensions from the bytes of an image: the magic bytes must match a format
 * AND its header must decode to plausible dimensions. Returns undefined for anything else (a text file
 * named .png, a truncated header, GIF, WebP...). The file name and the client's Content-Type are not used.
 */
export function readImageHeader(buf: Buffer): ImageHeader | undefined {
  try {
    const header = png(buf) ?? jpeg(buf) ?? bmp(buf) ?? tiff(buf);
    if (!header) return undefined;
    if (!(header.width >= 1 && header.height >= 1 && header.width <= MAX_SIDE && header.height <= MAX_SIDE)) return undefined;
    return header;
  } catch {
    return undefined; // reading past the end of a truncated header
  }
}

/**
 * Refuses an image whose header claims more than `maxPixels` pixels, before anything decodes it
 * (decoding allocates 4 bytes a pixel: a 100000 x 100000 header would ask for 40 GB).
 */
export function assertPixelLimit(header: ImageHeader, maxPixels: number): void {
  const pixels = header.width * header.height;
  if (pixels > maxPixels) {
    throw new ApiError(
      Codes.ImageTooLarge,
      `the image is ${header.width} x ${header.height} pixels; at most ${maxPixels} pixels are accepted`,
    );
  }
}

/**
 * The header of an image about to be stored, after every check that needs no decoding: a format of ours
 * (badRequest-130-2-2), at most `maxPixels` (badRequest-130-2-5), and for a PNG a sound structure whose data
 * inflates to what its header says (pngProblem; badRequest-130-2-2 naming the fault).
 */
export async function checkImage(bytes: Buffer, name: string, maxPixels: number): Promise<ImageHeader> {
  const header = readImageHeader(bytes);
  const shown = `"${name.slice(0, 60)}"`;
  if (!header) throw new ApiError(Codes.BadImage, `${shown} is not a jpeg, png, tif or bmp image (checked by its content)`);
  assertPixelLimit(header, maxPixels);
  const problem = header.mime === 'image/png' ? await pngProblem(bytes) : header.mime === 'image/jpeg' ? jpegProblem(bytes) : undefined;
  if (problem) {
    const kind = header.mime === 'image/png' ? 'PNG' : 'JPEG';
    throw new ApiError(Codes.BadImage, `${shown} is not a ${kind} image that can be decoded safely: ${problem}`);
  }
  return header;
}

/**
 * A JPEG with a second frame header (SOF) before its scan: a decoder may size its buffers by the later one, past
 * the pixel limit checked on the first (a second SOF of 9000 x 9000 took the decoder to 865 MB before it gave up).
 */
export function jpegProblem(b: Buffer): string | undefined {
  let frames = 0;
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return undefined;
    let marker = b[i + 1];
    while (marker === 0xff && i + 2 < b.length) {
      i++;
      marker = b[i + 1];
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return undefined; // the scan starts: the frame is settled
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame && ++frames > 1) return 'it has a second frame header (SOF) before its image data (a JPEG has one)';
    i += 2 + b.readUInt16BE(i + 2);
  }
  return undefined;
}

/** Channels of each PNG color type (grey, -, RGB, palette, grey + alpha, -, RGBA). */
const PNG_CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/** Bytes the IHDR of a PNG says its image data inflates to: each row of each pass, with its filter byte (Adam7 when interlaced). */
export function pngDataBytes(width: number, height: number, bitDepth: number, colorType: number, interlaced: boolean): number {
  const bits = bitDepth * (PNG_CHANNELS[colorType] ?? 4);
  const rows = (w: number, h: number) => (w > 0 && h > 0 ? h * (1 + Math.ceil((w * bits) / 8)) : 0);
  if (!interlaced) return rows(width, height);
  // Adam7: the seven passes' starting column and row, and their steps
  const passes = [
    [0, 0, 8, 8],
    [4, 0, 8, 8],
    [0, 4, 4, 8],
    [2, 0, 4, 4],
    [0, 2, 2, 4],
    [1, 0, 2, 2],
    [0, 1, 1, 2],
  ];
  return passes.reduce((sum, [x0, y0, dx, dy]) => sum + rows(Math.ceil((width - x0) / dx), Math.ceil((height - y0) / dy)), 0);
}

/**
 * A PNG's image data that inflates to at most this many bytes is inflated in one call on the calling thread (a
 * 256 x 256 RGB image: 197 KB, under a millisecond); larger data is inflated in pieces on libuv's threads. The
 * pieces' stream cost an add about as much CPU again as the inflating itself.
 */
export const INFLATE_AT_ONCE_BYTES = 1024 * 1024;

/**
 * What makes a PNG unsafe or impossible to decode, found before any decoder allocates for it: a chunk
 * running past the end, a second IHDR (a decoder may take its dimensions, past the pixel limit checked on
 * the first), no image data, or image data that inflates to more than its header needs (a zlib bomb:
 * 1 MB inflating to 1 GiB). The data is inflated and counted, never kept beyond INFLATE_AT_ONCE_BYTES, and the
 * count stops at the first byte too many. Undefined when none of these holds (or the bytes are not a PNG).
 */
export async function pngProblem(b: Buffer): Promise<string | undefined> {
  const header = png(b);
  if (!header) return undefined;
  const interlaced = b[28] === 1;
  const expected = pngDataBytes(header.width, header.height, b[24], b[25], interlaced);
  const idat: Buffer[] = [];
  let at = 8;
  let ihdrs = 0;
  while (at + 8 <= b.length) {
    const length = b.readUInt32BE(at);
    const type = b.toString('latin1', at + 4, at + 8);
    if (at + 12 + length > b.length) return `its ${type.replace(/[^A-Za-z]/g, '?')} chunk runs past the end of the file`;
    if (type === 'IHDR' && ++ihdrs > 1) return 'it has a second IHDR header (a PNG has one)';
    if (type === 'IDAT') idat.push(b.subarray(at + 8, at + 8 + length));
    at += 12 + length;
    if (type === 'IEND') break;
  }
  if (!idat.length) return 'it has no image data (IDAT)';
  const tooMuch = `its image data inflates to more than the ${expected} bytes its ${header.width} x ${header.height} header needs`;
  const invalid = 'its image data is not a valid zlib stream';
  const short = 'its image data is shorter than its header needs (a truncated image)';
  if (expected <= INFLATE_AT_ONCE_BYTES) {
    let total: number;
    try {
      // in one piece one byte longer than expected (zlib's 16 KiB pieces, then joined, cost a fifth more)
      const data = idat.length === 1 ? idat[0] : Buffer.concat(idat);
      total = inflateSync(data, { maxOutputLength: Math.max(expected, 1), chunkSize: Math.max(expected + 1, 64) }).length;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? tooMuch : invalid;
    }
    return total < expected ? short : undefined;
  }
  return new Promise<string | undefined>((resolve) => {
    const inflate = createInflate({ chunkSize: 64 * 1024 }); // a few large pieces: fewer callbacks than the default 16 KiB
    let total = 0;
    let settled = false;
    const settle = (v: string | undefined) => {
      if (settled) return;
      settled = true;
      resolve(v);
      inflate.destroy();
    };
    inflate.on('data', (d: Buffer) => {
      total += d.length;
      if (total > expected) settle(tooMuch);
    });
    inflate.on('error', () => settle(invalid));
    inflate.on('end', () => settle(total < expected ? short : undefined));
    for (const piece of idat) inflate.write(piece);
    inflate.end();
  });
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function png(b: Buffer): ImageHeader | undefined {
  if (b.length < 33 || !b.subarray(0, 8).equals(PNG_MAGIC)) return undefined;
  // the first chunk must be IHDR, 13 bytes long
  if (b.readUInt32BE(8) !== 13 || b.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  const bitDepth = b[24];
  const colorType = b[25];
  if (![1, 2, 4, 8, 16].includes(bitDepth) || ![0, 2, 3, 4, 6].includes(colorType)) return undefined;
  return { mime: 'image/png', width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

function jpeg(b: Buffer): ImageHeader | undefined {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8 || b[2] !== 0xff) return undefined;
  // walk the marker segments up to a start-of-frame, which holds the dimensions
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return undefined;
    let marker = b[i + 1];
    while (marker === 0xff && i + 2 < b.length) {
      i++; // fill bytes
      marker = b[i + 1];
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return undefined; // end of image or scan before any frame header
    const length = b.readUInt16BE(i + 2);
    if (length < 2) return undefined;
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) {
      if (length < 8 || i + 9 > b.length) return undefined;
      return { mime: 'image/jpeg', height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    }
    i += 2 + length;
  }
  return undefined;
}

function bmp(b: Buffer): ImageHeader | undefined {
  if (b.length < 26 || b[0] !== 0x42 || b[1] !== 0x4d) return undefined;
  const pixelOffset = b.readUInt32LE(10);
  const dibSize = b.readUInt32LE(14);
  if (pixelOffset < 14 + dibSize || pixelOffset > b.length) return undefined;
  if (dibSize === 12) {
    return { mime: 'image/bmp', width: b.readUInt16LE(18), height: b.readUInt16LE(20) };
  }
  if (![40, 52, 56, 64, 108, 124].includes(dibSize) || b.length < 30) return undefined;
  const bpp = b.readUInt16LE(28);
  if (![1, 4, 8, 16, 24, 32].includes(bpp)) return undefined;
  return { mime: 'image/bmp', width: b.readInt32LE(18), height: Math.abs(b.readInt32LE(22)) };
}

function tiff(b: Buffer): ImageHeader | undefined {
  if (b.length < 8) return undefined;
  const order = b.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return undefined;
  const le = order === 'II';
  const u16 = (o: number) => (le ? b.readUInt16LE(o) : b.readUInt16BE(o));
  const u32 = (o: number) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
  if (u16(2) !== 42) return undefined;
  const ifd = u32(4);
  if (ifd < 8 || ifd + 2 > b.length) return undefined;
  const count = u16(ifd);
  let width: number | undefined;
  let height: number | undefined;
  for (let k = 0; k < count; k++) {
    const e = ifd + 2 + k * 12;
    if (e + 12 > b.length) return undefined;
    const tag = u16(e);
    const type = u16(e + 2);
    const value = type === 3 ? u16(e + 8) : type === 4 ? u32(e + 8) : undefined;
    if (tag === 256) width = value;
    if (tag === 257) height = value;
  }
  if (width === undefined || height === undefined) return undefined;
  return { mime: 'image/tiff', width, height };
}
