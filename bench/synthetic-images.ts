/**
 * Photograph-like colour images whose classes differ in texture or shape, not in colour (benchmarks and the
 * image quality test). Each image has a random background colour and a random foreground colour, drawn from
 * the same distribution for every class, plus noise; the class is in the pattern only:
 *
 * - `stripes`: a sinusoidal grating of random orientation and a period of 10 to 18 pixels (texture);
 * - `dots`: a lattice of small disks with random spacing and a little jitter (texture);
 * - `disk`: one large disk at a random place (shape);
 * - `square`: one large square at a random place and turned by a random angle (shape).
 *
 * Deterministic for a given seed.
 */
import sharp from 'sharp';
import { Rng } from '../src/engine/rng';

export const IMAGE_CLASSES = ['stripes', 'dots', 'disk', 'square'] as const;
export type ImageClass = (typeof IMAGE_CLASSES)[number];

/** RGB pixels (3 bytes each) of one image of `cls`, `size` x `size`. */
export function syntheticImage(cls: ImageClass, size: number, rng: Rng): Buffer {
  const colour = () => [rng.next() * 255, rng.next() * 255, rng.next() * 255];
  const back = colour();
  let fore = colour();
  // keep some contrast between the two colours, whatever the class
  while (Math.abs(fore[0] + fore[1] + fore[2] - back[0] - back[1] - back[2]) < 150) fore = colour();
  const s = size / 256;
  let coverage: (x: number, y: number) => number;
  if (cls === 'stripes') {
    const angle = rng.next() * Math.PI;
    const period = (10 + rng.next() * 8) * s;
    const [c, d] = [Math.cos(angle), Math.sin(angle)];
    const phase = rng.next() * 2 * Math.PI;
    coverage = (x, y) => 0.5 + 0.5 * Math.sin(((x * c + y * d) / period) * 2 * Math.PI + phase);
  } else if (cls === 'dots') {
    const spacing = (14 + rng.next() * 8) * s;
    const radius = spacing * (0.22 + rng.next() * 0.08);
    const [ox, oy] = [rng.next() * spacing, rng.next() * spacing];
    coverage = (x, y) => {
      const dx = ((((x - ox) % spacing) + spacing) % spacing) - spacing / 2;
      const dy = ((((y - oy) % spacing) + spacing) % spacing) - spacing / 2;
      return edge(radius - Math.sqrt(dx * dx + dy * dy));
    };
  } else if (cls === 'disk') {
    const r = (50 + rng.next() * 40) * s;
    const [cx, cy] = [r + rng.next() * (size - 2 * r), r + rng.next() * (size - 2 * r)];
    coverage = (x, y) => edge(r - Math.hypot(x - cx, y - cy));
  } else {
    const half = (45 + rng.next() * 35) * s;
    const reach = half * Math.SQRT2;
    const [cx, cy] = [reach + rng.next() * (size - 2 * reach), reach + rng.next() * (size - 2 * reach)];
    const angle = rng.next() * (Math.PI / 2);
    const [c, d] = [Math.cos(angle), Math.sin(angle)];
    coverage = (x, y) => {
      const u = (x - cx) * c + (y - cy) * d;
      const v = -(x - cx) * d + (y - cy) * c;
      return edge(half - Math.max(Math.abs(u), Math.abs(v)));
    };
  }
  const noise = 12;
  const out = Buffer.alloc(size * size * 3);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const a = coverage(x + 0.5, y + 0.5);
      for (let ch = 0; ch < 3; ch++) {
        const v = fore[ch] * a + back[ch] * (1 - a) + (rng.next() - 0.5) * 2 * noise;
        out[(y * size + x) * 3 + ch] = Math.max(0, Math.min(255, Math.round(v)));
      }
    }
  }
  return out;
}

/** Anti-aliased inside (1) / outside (0) from a signed distance to a boundary, in pixels. */
function edge(distance: number): number {
  return Math.max(0, Math.min(1, distance + 0.5));
}

/** One image of `cls` encoded as PNG or JPEG (quality 90). */
export async function encodedImage(cls: ImageClass, size: number, rng: Rng, format: 'png' | 'jpeg'): Promise<Buffer> {
  const pixels = syntheticImage(cls, size, rng);
  const img = sharp(pixels, { raw: { width: size, height: size, channels: 3 } });
  return format === 'png' ? img.png().toBuffer() : img.jpeg({ quality: 90 }).toBuffer();
}
