import { Jimp } from 'jimp';
import { checkImage } from './image-format';

/** The numerical features computed from each image, in column order. */
export const IMAGE_FEATURES = [
  'img_width',
  'img_height',
  'img_mean_red',
  'img_mean_green',
  'img_mean_blue',
  'img_mean_gray',
  'img_std_gray',
  ...Array.from({ length: 8 }, (_, i) => `img_hist_${i}`),
  'img_mean_gradient',
  'img_edge_density',
] as const;

/** Prefix of the computed features; init-file columns may not use it. */
export const IMAGE_FEATURE_PREFIX = 'img_';

/** A gradient magnitude (0..255 gray scale) above this marks an edge pixel. */
const EDGE_THRESHOLD = 32;

export interface Bitmap {
  width: number;
  height: number;
  /** RGBA, 4 bytes per pixel, rows top to bottom. */
  data: Uint8Array;
}

/**
 * Features of one decoded image, in IMAGE_FEATURES order. Means and the gray standard deviation are on
 * the 0..255 scale; the 8-bin gray histogram holds fractions of the pixels (summing to 1); the mean
 * gradient is the mean of |dx| + |dy| of the gray image (forward differences, 0..510); the edge density is
 * the fraction of pixels whose gradient magnitude sqrt(dx^2 + dy^2) is above 32. Alpha is ignored.
 */
export function computeFeatures(img: Bitmap): number[] {
  const { width, height, data } = img;
  const n = width * height;
  const gray = new Float32Array(n);
  let r = 0;
  let g = 0;
  let b = 0;
  let sum = 0;
  let sumSq = 0;
  const hist = new Float64Array(8);
  for (let p = 0, o = 0; p < n; p++, o += 4) {
    const R = data[o];
    const G = data[o + 1];
    const B = data[o + 2];
    r += R;
    g += G;
    b += B;
    const y = 0.299 * R + 0.587 * G + 0.114 * B;
    gray[p] = y;
    sum += y;
    sumSq += y * y;
    hist[Math.min(7, Math.floor(y / 32))]++;
  }
  const mean = sum / n;
  const variance = Math.max(0, sumSq / n - mean * mean);
  let gradient = 0;
  let edges = 0;
  for (let yy = 0; yy < height; yy++) {
    for (let xx = 0; xx < width; xx++) {
      const p = yy * width + xx;
      const dx = xx + 1 < width ? gray[p + 1] - gray[p] : 0;
      const dy = yy + 1 < height ? gray[p + width] - gray[p] : 0;
      gradient += Math.abs(dx) + Math.abs(dy);
      if (dx * dx + dy * dy > EDGE_THRESHOLD * EDGE_THRESHOLD) edges++;
    }
  }
  return [width, height, r / n, g / n, b / n, mean, Math.sqrt(variance), ...Array.from(hist, (c) => c / n), gradient / n, edges / n];
}

/**
 * Decodes a jpeg, png, bmp or tiff image (told apart by content) and computes its features. The checks of
 * add run again first (the header's pixel limit, a PNG's structure and inflated size: checkImage), so
 * nothing is allocated for an image past the limits, whenever it was stored.
 */
export async function measureImage(bytes: Uint8Array, maxPixels: number): Promise<number[]> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  await checkImage(buffer, 'the image', maxPixels);
  const image = await Jimp.fromBuffer(buffer);
  const { width, height, data } = image.bitmap;
  return computeFeatures({ width, height, data });
}
