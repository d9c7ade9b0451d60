import { createInflate, inflateSync } from 'node:zlib';
import { ApiError } from '../common/api-error';
import { Codes, ErrorCode } from '../common/error-codes';

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

/** Chunks a PNG may have (IHDR, IDAT, IEND and the rest): more are refused before they are walked further. */
export const MAX_PNG_CHUNKS = 100_000;
/** Marker segments a JPEG may have (SOF, DHT, SOS, COM, APPn ...; not the restart markers inside its scans). */
export const MAX_JPEG_SEGMENTS = 2_000;
/**
 * Scans a JPEG may have. A baseline JPEG has one per component group; a progressive one ~10 (libjpeg's own script) and
 * rarely more than 30; libjpeg-turbo's jpegtran and cjpeg accept at most 100. Every scan of a progressive JPEG is a
 * pass over all its coefficients: a valid 203 KB JPEG of 7000 x 7000 pixels with 757 scans took 3.2 s to decode where
 * the same image with 10 took 24 ms.
 */
export const MAX_JPEG_SCANS = 100;
/**
 * Pixels a run-length-encoded BMP (RLE8, RLE4) may claim per byte of its file. A run of RLE8 is two bytes for at most
 * 255 pixels (RLE4 the same), so a bitmap drawn by runs alone stays under 128 pixels a byte; more means its end and
 * delta codes leave most of the image undrawn, which its decoder still allocates in full (a 1,080-byte RLE8 BMP of
 * 7000 x 7000 pixels took it to ~450 MB).
 */
export const MAX_BMP_RLE_PIXELS_PER_BYTE = 128;

/** What the structural check of an image found: its header, or why it is refused (an error code and its words). */
export type ImageCheck = { ok: true; header: ImageHeader } | { ok: false; code: ErrorCode; problem: string };

/**
 * Every check of an image that needs no decoding: a format of ours (badRequest-130-2-2), at most `maxPixels`
 * (badRequest-130-2-5), and a structure a decoder can read safely (badRequest-130-2-2 naming the fault): for a PNG
 * pngProblem, for a JPEG jpegProblem, for a BMP bmpProblem, for a TIFF tiffProblem. Its cost grows with the bytes
 * (a PNG's data is inflated and counted): it runs on a thread (image-check.worker.ts), never on the event loop.
 */
export async function checkImageBytes(bytes: Buffer, maxPixels: number): Promise<ImageCheck> {
  const header = readImageHeader(bytes);
  if (!header) {
    // a JPEG whose frame header is past MAX_JPEG_SEGMENTS segments says so
    const jpegFault = bytes[0] === 0xff && bytes[1] === 0xd8 ? jpegProblem(bytes) : undefined;
    const problem = jpegFault
      ? `it cannot be decoded safely: ${jpegFault}`
      : 'it is not a jpeg, png, tif or bmp image (checked by its content)';
    return { ok: false, code: Codes.BadImage, problem };
  }
  const pixels = header.width * header.height;
  if (pixels > maxPixels) {
    const problem = `it is ${header.width} x ${header.height} pixels; at most ${maxPixels} pixels are accepted`;
    return { ok: false, code: Codes.ImageTooLarge, problem };
  }
  const problem = await STRUCTURE[header.mime](bytes);
  if (problem) return { ok: false, code: Codes.BadImage, problem: `it cannot be decoded safely: ${problem}` };
  return { ok: true, header };
}

const STRUCTURE: Record<ImageMime, (b: Buffer) => string | undefined | Promise<string | undefined>> = {
  'image/png': (b) => pngProblem(b),
  'image/jpeg': (b) => jpegProblem(b),
  'image/bmp': (b) => bmpProblem(b),
  'image/tiff': (b) => tiffProblem(b),
};

/** The first byte after the entropy-coded data that starts at `at`: the next marker (0xFF then neither 0x00 nor RSTn). */
function afterEntropyData(b: Buffer, at: number): number {
  for (let i = b.indexOf(0xff, at); i >= 0 && i + 1 < b.length; i = b.indexOf(0xff, i + 1)) {
    const next = b[i + 1];
    if (next !== 0x00 && next !== 0xff && !(next >= 0xd0 && next <= 0xd7)) return i;
  }
  return b.length;
}

/**
 * What makes a JPEG unsafe to decode, walking its marker segments and skipping its scans' data (one pass over the
 * bytes, no allocation): a second frame header (SOF) before its first scan (a decoder may size its buffers by the
 * later one, past the pixel limit checked on the first: a second SOF of 9000 x 9000 took the decoder to 865 MB before
 * it gave up), more than MAX_JPEG_SEGMENTS segments (13 million COM segments of 4 bytes each, each walked) or more than
 * MAX_JPEG_SCANS scans (each a pass of the decoder over every coefficient).
 */
export function jpegProblem(b: Buffer): string | undefined {
  let frames = 0;
  let scans = 0;
  let segments = 0;
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return undefined; // past what a decoder reads: trailing bytes
    let marker = b[i + 1];
    while (marker === 0xff && i + 2 < b.length) {
      i++;
      marker = b[i + 1];
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2;
      continue;
    }
    if (marker === 0xd9) return undefined; // end of image
    if (++segments > MAX_JPEG_SEGMENTS) return `it has more than ${MAX_JPEG_SEGMENTS} marker segments`;
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame && scans === 0 && ++frames > 1) return 'it has a second frame header (SOF) before its image data (a JPEG has one)';
    const end = i + 2 + b.readUInt16BE(i + 2);
    if (marker === 0xda) {
      if (++scans > MAX_JPEG_SCANS) return `it has more than ${MAX_JPEG_SCANS} scans (MAX_JPEG_SCANS: each is a pass over the whole image)`;
      i = afterEntropyData(b, end);
    } else {
      i = end;
    }
  }
  return undefined;
}

/** BMP compressions: RLE8 and RLE4 encode runs, the others (none, bit fields) hold every row in full. */
const BMP_RLE8 = 1;
const BMP_RLE4 = 2;
const BMP_BITFIELDS = [3, 6];

/**
 * What makes a BMP unsafe to decode: a run-length-encoded one claiming more than MAX_BMP_RLE_PIXELS_PER_BYTE pixels a
 * byte of its file (see there), or an uncompressed one whose file is shorter than its rows (the decoder read past the
 * end and failed with a message of its own).
 */
export function bmpProblem(b: Buffer): string | undefined {
  const header = bmp(b);
  if (!header) return undefined;
  const pixels = header.width * header.height;
  const dibSize = b.readUInt32LE(14);
  if (dibSize === 12) {
    const bpp = b.readUInt16LE(24);
    return rowsProblem(b, header, bpp);
  }
  const bpp = b.readUInt16LE(28);
  const compression = b.readUInt32LE(30);
  if (compression === BMP_RLE8 || compression === BMP_RLE4) {
    if (pixels > b.length * MAX_BMP_RLE_PIXELS_PER_BYTE) {
      return `its run-length-encoded data of ${b.length} bytes claims ${header.width} x ${header.height} pixels (at most ${MAX_BMP_RLE_PIXELS_PER_BYTE} pixels a byte are accepted)`;
    }
    return undefined;
  }
  if (compression === 0 || BMP_BITFIELDS.includes(compression)) return rowsProblem(b, header, bpp);
  return `its compression (${compression}) is not one a BMP decoder here reads (none, RLE8, RLE4, bit fields)`;
}

/** An uncompressed BMP whose file ends before its last row. */
function rowsProblem(b: Buffer, header: ImageHeader, bpp: number): string | undefined {
  const rowBytes = Math.ceil((header.width * bpp) / 32) * 4;
  const needed = b.readUInt32LE(10) + rowBytes * header.height;
  return needed > b.length ? `it is truncated: its rows need ${needed} bytes and the file has ${b.length}` : undefined;
}

/** What makes a TIFF unsafe to decode: a tag of its first directory given twice (which of the two a decoder takes is its own choice). */
export function tiffProblem(b: Buffer): string | undefined {
  const le = b.toString('latin1', 0, 2) === 'II';
  const u16 = (o: number) => (le ? b.readUInt16LE(o) : b.readUInt16BE(o));
  const ifd = le ? b.readUInt32LE(4) : b.readUInt32BE(4);
  const seen = new Set<number>();
  for (let k = 0, count = u16(ifd); k < count; k++) {
    const tag = u16(ifd + 2 + k * 12);
    if (seen.has(tag)) return `its first directory gives tag ${tag} twice`;
    seen.add(tag);
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
 * What makes a PNG unsafe or impossible to decode, found before any decoder allocates for it: more than
 * MAX_PNG_CHUNKS chunks (4.4 million empty IDAT chunks fit in 50 MB: each one walked, kept and inflated), a chunk
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
  for (let chunks = 1; at + 8 <= b.length; chunks++) {
    if (chunks > MAX_PNG_CHUNKS) return `it has more than ${MAX_PNG_CHUNKS} chunks`;
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
  // walk the marker segments up to a start-of-frame, which holds the dimensions (at most MAX_JPEG_SEGMENTS of them)
  let i = 2;
  for (let segments = 0; i + 4 <= b.length && segments <= MAX_JPEG_SEGMENTS; segments++) {
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
