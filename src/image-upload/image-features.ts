/**
 * The img_ features of an image: a fixed-length vector whatever its size, computed from its pixels
 * resized to WORK_SIZE x WORK_SIZE (image-decode.ts). Pure functions over an RGBA bitmap: no decoder,
 * no Nest, no I/O, so each descriptor is tested on synthetic bitmaps with a known answer.
 *
 * - colour: the opacity, the mean and standard deviation of red, green, blue and gray, and an 8-bin
 *   histogram of each;
 * - shape: the gray level averaged over an 8 x 8 grid (an area resize) and the low frequencies of its DCT,
 *   the mean gradient and the edge density, the edges' orientations from the dominant one (rotation-invariant),
 *   and a histogram of oriented gradients over a 4 x 4 cell grid (Dalal and Triggs, 2005);
 * - texture: the rotation-invariant uniform local binary patterns LBP(8,1) riu2 at two scales (Ojala,
 *   Pietikainen and Maenpaa, 2002).
 */

/** Prefix of the computed features; init-file columns may not use it. */
export const IMAGE_FEATURE_PREFIX = 'img_';

/** Side of the square the image is resized to before its features are computed. */
export const WORK_SIZE = 128;
/** Bins of each channel's histogram (32 levels each). */
const HIST_BINS = 8;
/** Side of the gray intensity grid. */
const GRID = 8;
/** Side of the HOG cell grid, and orientation bins (unsigned, 0..180 degrees, 20 degrees apart). */
const HOG_CELLS = 4;
const HOG_BINS = 9;
/** L2-Hys: each normalised HOG value is clipped at this, then the vector normalised again (Dalal and Triggs). */
const HOG_CLIP = 0.2;
/** Codes of LBP(8,1) riu2: 0..8 ones in a uniform pattern, 9 for every non-uniform one. */
const LBP_CODES = 10;
/** A gradient magnitude (centred differences on the 0..255 gray scale) above this marks an edge pixel. */
const EDGE_THRESHOLD = 64;

const CHANNELS = ['red', 'green', 'blue', 'gray'] as const;
/** The low-frequency terms of the gray grid's 2-D DCT kept: vertical u and horizontal v frequencies with u + v < 5. */
const DCT_TERMS: [number, number][] = [];
for (let d = 0; d < 5; d++) for (let u = 0; u <= d; u++) DCT_TERMS.push([u, d - u]);
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** The numerical features computed from each image, in column order (297). */
export const IMAGE_FEATURES: readonly string[] = [
  'img_width',
  'img_height',
  'img_opacity',
  ...CHANNELS.flatMap((c) => [`img_mean_${c}`, `img_std_${c}`]),
  ...CHANNELS.flatMap((c) => range(HIST_BINS).map((b) => `img_hist_${c}_${b}`)),
  ...range(GRID).flatMap((r) => range(GRID).map((c) => `img_grid_${r}_${c}`)),
  ...DCT_TERMS.map(([u, v]) => `img_dct_${u}_${v}`),
  'img_mean_gradient',
  'img_edge_density',
  ...range(HOG_BINS).map((k) => `img_orient_${k}`),
  ...range(HOG_CELLS).flatMap((r) => range(HOG_CELLS).flatMap((c) => range(HOG_BINS).map((b) => `img_hog_${r}_${c}_${b}`))),
  ...range(LBP_CODES).map((k) => `img_lbp1_${k}`),
  ...range(LBP_CODES).map((k) => `img_lbp2_${k}`),
];

export interface Bitmap {
  width: number;
  height: number;
  /** 4 (RGBA, not premultiplied; the default) or 3 (RGB: every pixel opaque) bytes per pixel, rows top to bottom. */
  channels?: 3 | 4;
  data: Uint8Array;
}

/**
 * Features of one bitmap, in IMAGE_FEATURES order. `size` is the image's own width and height (the
 * bitmap is usually the image resized to WORK_SIZE); by default the bitmap's. Transparent pixels are
 * composed over white first (a pixel of opacity a shows a * colour + (1 - a) * 255); gray is
 * 0.299 R + 0.587 G + 0.114 B.
 */
export function computeFeatures(img: Bitmap, size: { width: number; height: number } = img): number[] {
  const { width: w, height: h, data } = img;
  const n = w * h;
  const work = workArrays(n);
  const gray = work.gray;
  const counts = new Float64Array(4 * HIST_BINS);
  const [sr, sg, sb, sy, qr, qg, qb, qy, alpha] = colourPass(data, img.channels ?? 4, n, gray, counts);
  const sums = [sr, sg, sb, sy];
  const squares = [qr, qg, qb, qy];
  const out: number[] = [size.width, size.height, alpha / n];
  for (let c = 0; c < 4; c++) {
    const mean = sums[c] / n;
    out.push(mean, Math.sqrt(Math.max(0, squares[c] / n - mean * mean)));
  }
  for (const c of counts) out.push(c / n);
  const grid = areaResize(gray, w, h, GRID, GRID);
  for (const v of grid) out.push(v);
  for (const [u, v] of DCT_TERMS) out.push(dct(grid, u, v));
  const { magnitude, orientation } = gradients(gray, w, h, work);
  const [sum, edges] = gradientTotals(magnitude);
  out.push(sum / n, edges / n);
  for (const v of dominantOrientations(magnitude, orientation)) out.push(v);
  for (const v of hog(magnitude, orientation, w, h)) out.push(v);
  for (const v of lbpHistogram(rounded(gray, work.levels), w, h)) out.push(v);
  const hw = Math.max(1, w >> 1);
  const hh = Math.max(1, h >> 1);
  for (const v of lbpHistogram(rounded(areaResize(gray, w, h, hw, hh)), hw, hh)) out.push(v);
  return out;
}

// Each pass over the pixels is a function of its own (here and below): V8 optimises a function whose loop has run
// while the code after it has not yet, and that code then sends it back to the interpreter; in one long function
// this happened some 60 times over the first images of a process (10 ms an image over the first 50, 1.8 ms after).

/**
 * One pass over the pixels: each one's gray level into `gray`, the histogram counts of red, green, blue and gray into
 * `counts`; returns the sums and sums of squares of red, green, blue and gray, then the sum of the opacities.
 */
function colourPass(data: Uint8Array, step: number, n: number, gray: Float64Array, counts: Float64Array): number[] {
  let [sr, sg, sb, sy, qr, qg, qb, qy, alpha] = [0, 0, 0, 0, 0, 0, 0, 0, 0];
  // a level 0..255 times this, truncated, is its bin (255 * 8 / 256 < 8)
  const toBin = HIST_BINS / 256;
  // an RGB bitmap is opaque: a = 1 and back = 0 give its levels exactly, as an alpha byte of 255 does
  for (let p = 0, o = 0; p < n; p++, o += step) {
    const a = step === 4 ? data[o + 3] / 255 : 1;
    alpha += a;
    const back = 255 * (1 - a);
    const r = data[o] * a + back;
    const g = data[o + 1] * a + back;
    const b = data[o + 2] * a + back;
    const y = 0.299 * r + 0.587 * g + 0.114 * b;
    gray[p] = y;
    sr += r;
    sg += g;
    sb += b;
    sy += y;
    qr += r * r;
    qg += g * g;
    qb += b * b;
    qy += y * y;
    counts[(r * toBin) | 0]++;
    counts[HIST_BINS + ((g * toBin) | 0)]++;
    counts[2 * HIST_BINS + ((b * toBin) | 0)]++;
    counts[3 * HIST_BINS + ((y * toBin) | 0)]++;
  }
  return [sr, sg, sb, sy, qr, qg, qb, qy, alpha];
}

/** The sum of the gradient magnitudes, and the number of edge pixels (above EDGE_THRESHOLD). */
function gradientTotals(magnitude: Float64Array): [number, number] {
  let sum = 0;
  let edges = 0;
  for (let p = 0; p < magnitude.length; p++) {
    sum += magnitude[p];
    if (magnitude[p] > EDGE_THRESHOLD) edges++;
  }
  return [sum, edges];
}

/** Work arrays of computeFeatures for images of n pixels, kept from one call to the next (each call fills them). */
interface WorkArrays {
  n: number;
  gray: Float64Array;
  magnitude: Float64Array;
  orientation: Float64Array;
  levels: Uint8Array;
}
let work: WorkArrays | undefined;

/**
 * The work arrays for n pixels: those of the last call when it had as many (allocating and zeroing them cost
 * 0.2-0.3 ms of a 128 x 128 image's 1.8 ms; typed arrays that large live outside V8's heap).
 */
function workArrays(n: number): WorkArrays {
  if (work?.n !== n) {
    const f64 = () => new Float64Array(n);
    work = { n, gray: f64(), magnitude: f64(), orientation: f64(), levels: new Uint8Array(n) };
  }
  return work;
}

function rounded(values: Float64Array, out: Uint8Array = new Uint8Array(values.length)): Uint8Array {
  for (let i = 0; i < values.length; i++) out[i] = Math.round(values[i]);
  return out;
}

/** Term (u, v) of the orthonormal 2-D DCT-II of the GRID x GRID gray grid (u: down the rows, v: across the columns). */
function dct(grid: Float64Array, u: number, v: number): number {
  const cu = u ? Math.sqrt(2 / GRID) : Math.sqrt(1 / GRID);
  const cv = v ? Math.sqrt(2 / GRID) : Math.sqrt(1 / GRID);
  let sum = 0;
  for (let r = 0; r < GRID; r++) {
    for (let c = 0; c < GRID; c++) {
      sum += grid[r * GRID + c] * Math.cos(((2 * r + 1) * u * Math.PI) / (2 * GRID)) * Math.cos(((2 * c + 1) * v * Math.PI) / (2 * GRID));
    }
  }
  return cu * cv * sum;
}

/**
 * For each of `to` equal intervals of [0, from): the source indices it overlaps and the overlap (weights
 * summing to 1), so an area resize is exact for any ratio. Interval i's taps are k = first[i] .. first[i + 1] - 1;
 * worked out once for each pair of sizes (an image's resizes are those of the last one).
 */
interface BoxTaps {
  first: Int32Array;
  index: Int32Array;
  weight: Float64Array;
}
const boxTaps = new Map<string, BoxTaps>();

function boxWeights(from: number, to: number): BoxTaps {
  const key = `${from} ${to}`;
  let taps = boxTaps.get(key);
  if (taps) return taps;
  const scale = from / to;
  const index: number[] = [];
  const weight: number[] = [];
  const first = new Int32Array(to + 1);
  for (let i = 0; i < to; i++) {
    const start = i * scale;
    const end = (i + 1) * scale;
    first[i] = index.length;
    for (let s = Math.floor(start); s < Math.min(from, Math.ceil(end)); s++) {
      const overlap = Math.min(end, s + 1) - Math.max(start, s);
      if (overlap > 0) {
        index.push(s);
        weight.push(overlap / scale);
      }
    }
  }
  first[to] = index.length;
  taps = { first, index: Int32Array.from(index), weight: Float64Array.from(weight) };
  if (boxTaps.size >= 16) boxTaps.clear(); // a few pairs of sizes in use at once
  boxTaps.set(key, taps);
  return taps;
}

/** The mean of `values` (w x h, rows first) over each cell of an W x H grid of equal cells (area resize). */
export function areaResize(values: Float64Array, w: number, h: number, W: number, H: number): Float64Array {
  const xs = boxWeights(w, W);
  const ys = boxWeights(h, H);
  const rows = new Float64Array(h * W);
  for (let y = 0; y < h; y++) resizeRow(values, y * w, 1, xs, rows, y * W, 1);
  const out = new Float64Array(W * H);
  for (let X = 0; X < W; X++) resizeRow(rows, X, W, ys, out, X, W);
  return out;
}

/** One row (or, with strides of a row, one column) of an area resize: out[at + i * outStride] for each i of `taps`. */
function resizeRow(
  values: Float64Array,
  from: number,
  stride: number,
  { first, index, weight }: BoxTaps,
  out: Float64Array,
  at: number,
  outStride: number,
): void {
  for (let i = 0; i + 1 < first.length; i++) {
    let v = 0;
    for (let k = first[i]; k < first[i + 1]; k++) v += values[from + index[k] * stride] * weight[k];
    out[at + i * outStride] = v;
  }
}

/**
 * Centred differences [-1, 0, 1] (the border pixel repeated past the edge): the magnitude sqrt(dx^2 + dy^2)
 * and the unsigned orientation atan2(dy, dx) folded into [0, pi) (0: a horizontal gradient, as across a
 * vertical edge). y grows downwards. Into `into` when given (every pixel of it is written).
 */
export function gradients(
  gray: Float64Array,
  w: number,
  h: number,
  into?: { magnitude: Float64Array; orientation: Float64Array },
): { magnitude: Float64Array; orientation: Float64Array } {
  const magnitude = into?.magnitude ?? new Float64Array(w * h);
  const orientation = into?.orientation ?? new Float64Array(w * h);
  for (let y = 0; y < h; y++) gradientRow(gray, w, y, Math.max(0, y - 1) * w, Math.min(h - 1, y + 1) * w, magnitude, orientation);
  return { magnitude, orientation };
}

/** gradients of row y, whose rows above and below start at `up` and `down`. */
function gradientRow(
  gray: Float64Array,
  w: number,
  y: number,
  up: number,
  down: number,
  magnitude: Float64Array,
  orientation: Float64Array,
): void {
  for (let x = 0; x < w; x++) {
    const dx = gray[y * w + Math.min(w - 1, x + 1)] - gray[y * w + Math.max(0, x - 1)];
    const dy = gray[down + x] - gray[up + x];
    const p = y * w + x;
    magnitude[p] = Math.sqrt(dx * dx + dy * dy);
    // atan2(dy, dx) folded into [0, pi) is atan(dy / dx) folded the same way (pi / 2 for a vertical gradient)
    let theta = dx === 0 ? (dy === 0 ? 0 : Math.PI / 2) : arctan(dy / dx);
    if (theta < 0) theta += Math.PI;
    orientation[p] = theta >= Math.PI ? 0 : theta;
  }
}

/** Cephes' atan (S. L. Moshier): a rational approximation P(x^2) / Q(x^2) after reducing |x| to at most 0.66. */
const [P0, P1, P2, P3, P4] = [-0.8750608600031904, -16.157537187333652, -75.00855792314705, -122.88666844901361, -64.85021904942025];
const [Q0, Q1, Q2, Q3, Q4] = [24.858464901423062, 165.02700983169885, 432.88106049129027, 485.3903996359137, 194.5506571482614];
/** The low bits of pi / 2 that a double leaves out. */
const PI_2_LOW = 6.123233995736766e-17;
/** tan(3 pi / 8) */
const TAN_3PI_8 = 2.414213562373095;

/**
 * atan(x), to within one unit in the last place of Math.atan: on this machine V8's Math.atan2 (a call into fdlibm)
 * took 35-45 ns, about a tenth of an image's features (16,384 pixels at WORK_SIZE); the gradient loop with this one
 * took about half the time (0.33-0.37 ms a 128 x 128 image against 0.60-0.75).
 */
export function arctan(x: number): number {
  const negative = x < 0;
  let t = negative ? -x : x;
  let base = 0;
  let low = 0;
  if (t > TAN_3PI_8) {
    base = Math.PI / 2; // atan(t) = pi / 2 - atan(1 / t)
    low = PI_2_LOW;
    t = -1 / t;
  } else if (t > 0.66) {
    base = Math.PI / 4; // atan(t) = pi / 4 + atan((t - 1) / (t + 1))
    low = 0.5 * PI_2_LOW;
    t = (t - 1) / (t + 1);
  }
  const z = t * t;
  const r = (z * ((((P0 * z + P1) * z + P2) * z + P3) * z + P4)) / (((((z + Q0) * z + Q1) * z + Q2) * z + Q3) * z + Q4);
  const a = base + (t * r + t + low);
  return negative ? -a : a;
}

/**
 * Histogram of oriented gradients: each pixel votes its gradient magnitude into its cell of a 4 x 4 grid,
 * shared between the two nearest of 9 orientation bins centred at 0, 20, ..., 160 degrees (linear in the
 * angle, 160 wrapping to 0). Each cell's votes are divided by its pixel count, then the 144 values are
 * normalised together as one block, L2-Hys (divided by their L2 norm, clipped at 0.2, divided again); a
 * flat image gives zeros. In cell-row, cell-column, bin order.
 */
export function hog(magnitude: Float64Array, orientation: Float64Array, w: number, h: number): number[] {
  const v = new Float64Array(HOG_CELLS * HOG_CELLS * HOG_BINS);
  const counts = new Float64Array(HOG_CELLS * HOG_CELLS);
  const step = Math.PI / HOG_BINS;
  for (let y = 0; y < h; y++) {
    const cy = Math.floor((y * HOG_CELLS) / h);
    for (let x = 0; x < w; x++) {
      const cell = cy * HOG_CELLS + Math.floor((x * HOG_CELLS) / w);
      counts[cell]++;
      const p = y * w + x;
      const m = magnitude[p];
      if (m === 0) continue;
      const t = orientation[p] / step;
      const b0 = Math.floor(t);
      const f = t - b0;
      v[cell * HOG_BINS + (b0 % HOG_BINS)] += m * (1 - f);
      v[cell * HOG_BINS + ((b0 + 1) % HOG_BINS)] += m * f;
    }
  }
  for (let k = 0; k < v.length; k++) v[k] /= Math.max(1, counts[Math.floor(k / HOG_BINS)]);
  const normalise = () => {
    let ss = 0;
    for (const x of v) ss += x * x;
    const norm = Math.sqrt(ss);
    if (norm > 1e-9) for (let k = 0; k < v.length; k++) v[k] /= norm;
  };
  normalise();
  for (let k = 0; k < v.length; k++) v[k] = Math.min(v[k], HOG_CLIP);
  normalise();
  return Array.from(v);
}

/**
 * The orientations of the edges (pixels whose gradient magnitude is above EDGE_THRESHOLD), turned so that the
 * strongest comes first: a 9-bin histogram of their gradient magnitude over orientation (bins 20 degrees apart,
 * shared linearly as in the HOG), as fractions of the total, starting at the bin that holds the most and going
 * round. Rotation-invariant: one orientation (stripes) puts everything in bin 0, a square shares it between 0 and
 * the bins at 80 and 100 degrees (4 and 5), a disk spreads it evenly. All zeros without edges.
 */
export function dominantOrientations(magnitude: Float64Array, orientation: Float64Array): number[] {
  const h = new Float64Array(HOG_BINS);
  const step = Math.PI / HOG_BINS;
  let total = 0;
  for (let p = 0; p < magnitude.length; p++) {
    const m = magnitude[p];
    if (m <= EDGE_THRESHOLD) continue;
    const t = orientation[p] / step;
    const b0 = Math.floor(t);
    const f = t - b0;
    h[b0 % HOG_BINS] += m * (1 - f);
    h[(b0 + 1) % HOG_BINS] += m * f;
    total += m;
  }
  if (total === 0) return new Array<number>(HOG_BINS).fill(0);
  let top = 0;
  for (let b = 1; b < HOG_BINS; b++) if (h[b] > h[top]) top = b;
  return range(HOG_BINS).map((k) => h[(top + k) % HOG_BINS] / total);
}

/** Neighbours of LBP(8,1) in circular order (row, column offsets): east, then anticlockwise. */
const NEIGHBOURS: [number, number][] = [
  [0, 1],
  [-1, 1],
  [-1, 0],
  [-1, -1],
  [0, -1],
  [1, -1],
  [1, 0],
  [1, 1],
];

/** LBP(8,1) riu2 of each bit pattern (bit p: neighbour p >= centre): the count of ones if uniform, else 9. */
const RIU2 = Uint8Array.from(range(256), (pattern) => {
  let ones = 0;
  let transitions = 0;
  for (let p = 0; p < 8; p++) {
    const bit = (pattern >> p) & 1;
    ones += bit;
    if (bit !== ((pattern >> ((p + 1) % 8)) & 1)) transitions++;
  }
  return transitions <= 2 ? ones : LBP_CODES - 1;
});

/**
 * Rotation-invariant uniform local binary patterns (Ojala et al. 2002, P = 8, R = 1 on the pixel grid): each
 * pixel not on the border compares its 8 neighbours with itself (1 where the neighbour is at least as bright);
 * a pattern with at most two 0/1 changes around the circle is coded by its number of ones (0..8: spots,
 * edges, corners, flat areas are 8), any other is 9. Returns the fraction of pixels of each code (all zeros
 * for an image under 3 x 3).
 */
export function lbpHistogram(levels: Uint8Array, w: number, h: number): number[] {
  const counts = new Float64Array(LBP_CODES);
  const total = lbpCounts(levels, w, h, counts);
  return Array.from(counts, (c) => (total ? c / total : 0));
}

/** lbpHistogram's pass: the count of each code into `counts`; returns the pixels counted. */
function lbpCounts(levels: Uint8Array, w: number, h: number, counts: Float64Array): number {
  const [e, ne, no, nw, we, sw, so, se] = NEIGHBOURS.map(([dy, dx]) => dy * w + dx);
  let total = 0;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1, p = y * w + 1; x < w - 1; x++, p++) {
      // without a branch: a neighbour n is at least the centre c when c - 1 - n is negative, the sign bit of the
      // 32-bit difference (a comparison each cost a mispredicted branch about every other pixel of a noisy image)
      const c = levels[p] - 1;
      const pattern =
        ((c - levels[p + e]) >>> 31) |
        (((c - levels[p + ne]) >>> 31) << 1) |
        (((c - levels[p + no]) >>> 31) << 2) |
        (((c - levels[p + nw]) >>> 31) << 3) |
        (((c - levels[p + we]) >>> 31) << 4) |
        (((c - levels[p + sw]) >>> 31) << 5) |
        (((c - levels[p + so]) >>> 31) << 6) |
        (((c - levels[p + se]) >>> 31) << 7);
      counts[RIU2[pattern]]++;
      total++;
    }
  }
  return total;
}
