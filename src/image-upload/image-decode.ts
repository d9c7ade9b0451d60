import * as bmpTs from 'bmp-ts';
import sharp from 'sharp';
import { Bitmap, computeFeatures, WORK_SIZE } from './image-features';
import { assertPixelLimit, ImageHeader, ImageMime, readImageHeader } from './image-format';

// each image is decoded once: libvips's operation cache would only hold memory
sharp.cache(false);

/**
 * Decodes an image into RGB, or RGBA when it has alpha, resized to WORK_SIZE x WORK_SIZE, with its own width and height.
 *
 * jpeg, png and tiff are decoded by sharp (libvips, native, shipped inside the npm package); bmp, which
 * libvips does not read, by bmp-ts (pure JavaScript, alpha ignored) and then handed to sharp as raw pixels, so that every format goes through
 * the same resize. The header is read again and its pixel limit checked (MAX_IMAGE_PIXELS may have been lowered
 * since the add), and sharp itself refuses more than `maxPixels` pixels (limitInputPixels: a header that lied). The
 * other checks of add (checkImage: a PNG's structure and inflated size, a JPEG's single frame header) are not run
 * again: the bytes decoded are those that add checked and stored (the job reads them back whole), and inflating a
 * PNG a second time cost 0.7 ms of a 256 x 256 one's 4 ms. The image is turned upright by its EXIF orientation, converted to
 * sRGB (gray, CMYK, palette), 16-bit channels reduced to 8 bits, and resized as a whole to the square (the
 * aspect ratio is not kept) with a Lanczos-3 filter (an area average when shrinking by an integer factor
 * first); alpha is resized premultiplied and kept. A decoding error fails; a warning (e.g. a truncated
 * JPEG) does not.
 */
export async function decodeImage(bytes: Uint8Array, maxPixels: number): Promise<{ bitmap: Bitmap; width: number; height: number }> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const header = readImageHeader(buffer);
  if (!header) throw new Error('the image is not a jpeg, png, tif or bmp image (checked by its content)');
  assertPixelLimit(header, maxPixels);
  try {
    return await decodeChecked(buffer, header, maxPixels);
  } catch (e) {
    // the decoders' own words (libvips' "tiff2vips: Read error at scanline 4294967295", Node's RangeError of a read
    // past a BMP's end) name their internals, not the image: the task's error says it in ours
    const format = FORMAT_NAMES[header.mime];
    throw new Error(`its ${format} data is damaged, truncated or of a kind of ${format} the decoder does not read`, {
      cause: e,
    });
  }
}

const FORMAT_NAMES: Record<ImageMime, string> = { 'image/jpeg': 'JPEG', 'image/png': 'PNG', 'image/bmp': 'BMP', 'image/tiff': 'TIFF' };

async function decodeChecked(
  buffer: Buffer,
  header: ImageHeader,
  maxPixels: number,
): Promise<{ bitmap: Bitmap; width: number; height: number }> {
  let input: sharp.Sharp;
  if (header.mime === 'image/bmp') {
    const bitmap = bmpTs.decode(buffer, { toRGBA: true });
    // a BMP's fourth byte is padding as often as it is alpha: read every pixel as opaque
    for (let o = 3; o < bitmap.data.length; o += 4) bitmap.data[o] = 255;
    input = sharp(bitmap.data, { raw: { width: bitmap.width, height: bitmap.height, channels: 4 }, limitInputPixels: maxPixels });
  } else {
    input = sharp(buffer, { limitInputPixels: maxPixels, failOn: 'error', sequentialRead: true });
  }
  // no ensureAlpha: sharp adds its opaque band after the resize, so an image without alpha comes out as the same RGB
  // levels without it (0.4 ms less of libvips for 256 x 256), and computeFeatures reads 3 bytes a pixel as opaque
  const { data, info } = await input
    .rotate()
    .toColourspace('srgb')
    .resize(WORK_SIZE, WORK_SIZE, { fit: 'fill', kernel: 'lanczos3' })
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  const channels = info.channels;
  if (channels !== 3 && channels !== 4) throw new Error(`the decoder gave ${channels} channels where RGB or RGBA was expected`);
  return { bitmap: { width: info.width, height: info.height, channels, data }, width: header.width, height: header.height };
}

/** Decodes an image (decodeImage) and computes its features (IMAGE_FEATURES order). */
export async function measureImage(bytes: Uint8Array, maxPixels: number): Promise<number[]> {
  const { bitmap, width, height } = await decodeImage(bytes, maxPixels);
  return computeFeatures(bitmap, { width, height });
}
