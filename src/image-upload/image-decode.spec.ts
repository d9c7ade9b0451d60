import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { Jimp } from 'jimp';
import { decodeImage, measureImage } from './image-decode';
import { IMAGE_FEATURES, WORK_SIZE } from './image-features';
import { pngChunk as chunk } from '../../bench/hostile-images';

const LIMIT = 50_000_000;

/** A 48 x 32 picture: dark left third, a red middle third, a light right third with a gray ramp downwards. */
function picture(x: number, y: number): [number, number, number] {
  if (x < 16) return [20, 20, 20];
  if (x < 32) return [200, 30, 40];
  return [230 - y * 2, 230 - y * 2, 230 - y * 2];
}

function rgbPixels(w = 48, h = 32): Buffer {
  const data = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set(picture(x, y), (y * w + x) * 3);
  return data;
}

/** The picture as a 16-bit RGB PNG (each 8-bit value v stored as v * 257), written by hand. */
function png16(w = 48, h = 32): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([16, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc(h * (1 + w * 6));
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      picture(x, y).forEach((v, c) => rows.writeUInt16BE(v * 257, y * (1 + w * 6) + 1 + x * 6 + c * 2));
    }
  }
  const magic = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([magic, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

const raw = () => sharp(rgbPixels(), { raw: { width: 48, height: 32, channels: 3 } });

async function bmp(): Promise<Buffer> {
  const img = new Jimp({ width: 48, height: 32, color: 0 });
  const px = rgbPixels();
  for (let p = 0; p < 48 * 32; p++) img.bitmap.data.set([px[p * 3], px[p * 3 + 1], px[p * 3 + 2], 255], p * 4);
  return img.getBuffer('image/bmp');
}

const feature = (f: number[], name: string) => f[IMAGE_FEATURES.indexOf(name)];

describe('decodeImage', () => {
  it('resizes every image to the working square and reports its own size', async () => {
    const { bitmap, width, height } = await decodeImage(await raw().png().toBuffer(), LIMIT);
    // an image without alpha comes as RGB, one with alpha as RGBA
    expect([bitmap.width, bitmap.height, bitmap.channels, bitmap.data.length]).toEqual([
      WORK_SIZE,
      WORK_SIZE,
      3,
      WORK_SIZE * WORK_SIZE * 3,
    ]);
    const clear = sharp({ create: { width: 8, height: 8, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0.5 } } });
    const withAlpha = (await decodeImage(await clear.png().toBuffer(), LIMIT)).bitmap;
    expect([withAlpha.channels, withAlpha.data.length]).toEqual([4, WORK_SIZE * WORK_SIZE * 4]);
    expect([width, height]).toEqual([48, 32]);
  });

  it('gives the same features for the picture as png, lossless tiff and bmp; nearly the same as 16-bit png and jpeg', async () => {
    const reference = await measureImage(await raw().png().toBuffer(), LIMIT);
    for (const bytes of [await raw().tiff({ compression: 'lzw' }).toBuffer(), await bmp()]) {
      const f = await measureImage(bytes, LIMIT);
      f.forEach((v, j) => expect([IMAGE_FEATURES[j], v]).toEqual([IMAGE_FEATURES[j], expect.closeTo(reference[j], 6)]));
    }
    // 16 bits: resized at full depth, then reduced to 8 bits (v / 257): within a fifth of a gray level, a percent of LBP
    // codes; a DCT term sums 64 cells (orthonormal: at most 8 times their difference)
    const deep = await measureImage(png16(), LIMIT);
    const gap = (dct: boolean) =>
      Math.max(...deep.map((v, j) => (IMAGE_FEATURES[j].startsWith('img_dct_') === dct ? Math.abs(v - reference[j]) : 0)));
    expect(gap(false)).toBeLessThan(0.2);
    expect(gap(true)).toBeLessThan(1.6);
    expect(Math.max(...deep.map((v, j) => (IMAGE_FEATURES[j].startsWith('img_lbp') ? Math.abs(v - reference[j]) : 0)))).toBeLessThan(0.02);
    expect(feature(deep, 'img_mean_red')).toBeCloseTo(feature(reference, 'img_mean_red'), 1);
    const jpeg = await measureImage(await raw().jpeg({ quality: 95 }).toBuffer(), LIMIT);
    for (const name of ['img_mean_red', 'img_mean_gray', 'img_grid_0_0', 'img_grid_4_7']) {
      expect(Math.abs(feature(jpeg, name) - feature(reference, name))).toBeLessThan(4);
    }
  });

  it('reads the picture where it is: dark on the left, red in the middle, a ramp on the right', async () => {
    const f = await measureImage(await raw().png().toBuffer(), LIMIT);
    expect(feature(f, 'img_grid_3_0')).toBeCloseTo(20, 0);
    expect(feature(f, 'img_grid_3_4')).toBeCloseTo(0.299 * 200 + 0.587 * 30 + 0.114 * 40, 0);
    expect(feature(f, 'img_grid_0_7')).toBeGreaterThan(feature(f, 'img_grid_7_7') + 40);
  });

  it('turns a JPEG upright by its EXIF orientation (6: rotated 90 degrees clockwise to show)', async () => {
    const upright = await measureImage(await raw().jpeg({ quality: 95 }).toBuffer(), LIMIT);
    // the pixels stored rotated 90 degrees anticlockwise, with orientation 6 saying how to turn them back
    const stored = await raw().rotate(-90).jpeg({ quality: 95 }).withMetadata({ orientation: 6 }).toBuffer();
    const f = await measureImage(stored, LIMIT);
    expect(Math.abs(feature(f, 'img_grid_3_0') - feature(upright, 'img_grid_3_0'))).toBeLessThan(4);
    expect(Math.abs(feature(f, 'img_grid_0_7') - feature(upright, 'img_grid_0_7'))).toBeLessThan(4);
  });

  it('composes alpha over white: a transparent PNG reads white with opacity 0; gray PNGs read as gray', async () => {
    const clear = await sharp({ create: { width: 8, height: 8, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .png()
      .toBuffer();
    const f = await measureImage(clear, LIMIT);
    expect(feature(f, 'img_opacity')).toBe(0);
    expect(feature(f, 'img_mean_gray')).toBeCloseTo(255, 6);
    const gray = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 90, g: 90, b: 90 } } })
      .toColourspace('b-w')
      .png()
      .toBuffer();
    const g = await measureImage(gray, LIMIT);
    expect([feature(g, 'img_opacity'), feature(g, 'img_mean_red'), feature(g, 'img_mean_blue')]).toEqual([1, 90, 90]);
  });

  it('refuses an image past the pixel limit, and bytes that are not an image, before decoding', async () => {
    await expect(decodeImage(await raw().png().toBuffer(), 1000)).rejects.toThrow('at most 1000 pixels');
    await expect(decodeImage(Buffer.from('not an image at all'), LIMIT)).rejects.toThrow('is not a jpeg, png, tif or bmp image');
  });
});
