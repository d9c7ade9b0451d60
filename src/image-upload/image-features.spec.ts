import { arctan, areaResize, Bitmap, computeFeatures, gradients, IMAGE_FEATURES, lbpHistogram } from './image-features';

/** A w x h opaque bitmap whose gray level at (x, y) is `level(x, y)`. */
function grayBitmap(w: number, h: number, level: (x: number, y: number) => number): Bitmap {
  const data = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const o = (y * w + x) * 4;
      data.fill(level(x, y), o, o + 3);
      data[o + 3] = 255;
    }
  }
  return { width: w, height: h, data };
}

function named(f: number[]): Record<string, number> {
  expect(f).toHaveLength(IMAGE_FEATURES.length);
  return Object.fromEntries(IMAGE_FEATURES.map((n, i) => [n, f[i]]));
}

const pick = (f: Record<string, number>, prefix: string) =>
  Object.entries(f)
    .filter(([n]) => n.startsWith(prefix))
    .map(([, v]) => v);

describe('IMAGE_FEATURES', () => {
  it('is a fixed list of 297 unique img_ names: size, colour, histograms, 8 x 8 grid and its DCT, gradients, orientations, 4 x 4 x 9 HOG, two LBP histograms', () => {
    expect(IMAGE_FEATURES).toHaveLength(297);
    expect(new Set(IMAGE_FEATURES).size).toBe(297);
    expect(IMAGE_FEATURES.filter((n) => n.startsWith('img_dct_'))).toHaveLength(15);
    expect(IMAGE_FEATURES.filter((n) => n.startsWith('img_orient_'))).toHaveLength(9);
    expect(IMAGE_FEATURES.every((n) => /^img_[a-z0-9_]+$/.test(n))).toBe(true);
    expect(IMAGE_FEATURES.filter((n) => n.startsWith('img_grid_'))).toHaveLength(64);
    expect(IMAGE_FEATURES.filter((n) => n.startsWith('img_hog_'))).toHaveLength(144);
    expect(IMAGE_FEATURES.filter((n) => n.startsWith('img_lbp1_'))).toHaveLength(10);
    expect(IMAGE_FEATURES.filter((n) => n.startsWith('img_hist_'))).toHaveLength(32);
  });

  it('has the same length whatever the size of the bitmap', () => {
    for (const [w, h] of [
      [1, 1],
      [2, 7],
      [33, 5],
      [128, 128],
    ]) {
      const f = computeFeatures(grayBitmap(w, h, (x, y) => (x * 7 + y * 13) % 256));
      expect(f).toHaveLength(IMAGE_FEATURES.length);
      expect(f.every(Number.isFinite)).toBe(true);
    }
  });
});

describe('colour statistics and histograms', () => {
  it('a black and a white pixel: means 127.5, standard deviations 127.5, half the pixels in the first and last bins', () => {
    const f = named(computeFeatures({ width: 2, height: 1, data: Uint8Array.from([0, 0, 0, 255, 255, 255, 255, 255]) }));
    expect([f.img_width, f.img_height, f.img_opacity]).toEqual([2, 1, 1]);
    for (const c of ['red', 'green', 'blue', 'gray']) {
      expect(f[`img_mean_${c}`]).toBeCloseTo(127.5, 9);
      expect(f[`img_std_${c}`]).toBeCloseTo(127.5, 9);
      expect(pick(f, `img_hist_${c}_`)).toEqual([0.5, 0, 0, 0, 0, 0, 0, 0.5]);
    }
  });

  it('tells the channels apart: a pure red image', () => {
    const data = new Uint8Array(4 * 4 * 4);
    for (let p = 0; p < 16; p++) data.set([255, 0, 0, 255], p * 4);
    const f = named(computeFeatures({ width: 4, height: 4, data }));
    expect([f.img_mean_red, f.img_mean_green, f.img_mean_blue]).toEqual([255, 0, 0]);
    expect(f.img_mean_gray).toBeCloseTo(0.299 * 255, 9);
    expect(pick(f, 'img_hist_red_')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(pick(f, 'img_hist_green_')).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(pick(f, 'img_hist_gray_')).toEqual([0, 0, 1, 0, 0, 0, 0, 0]); // 76.2
  });

  it('composes transparent pixels over white and reports the mean opacity', () => {
    // black: opaque, fully transparent, half transparent (128/255)
    const f = named(computeFeatures({ width: 3, height: 1, data: Uint8Array.from([0, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0, 128]) }));
    expect(f.img_opacity).toBeCloseTo((1 + 0 + 128 / 255) / 3, 12);
    expect(f.img_mean_gray).toBeCloseTo((0 + 255 + 255 * (1 - 128 / 255)) / 3, 9);
  });

  it('reads an RGB bitmap (3 bytes a pixel) as the same RGBA one with every pixel opaque', () => {
    const rgba = new Uint8Array(9 * 7 * 4);
    for (let i = 0; i < rgba.length; i++) rgba[i] = i % 4 === 3 ? 255 : (i * 37 + (i >> 5) * 11) % 256;
    const rgb = rgba.filter((_, i) => i % 4 !== 3);
    const f = computeFeatures({ width: 9, height: 7, channels: 3, data: rgb });
    expect(f).toEqual(computeFeatures({ width: 9, height: 7, data: rgba }));
    expect(named(f).img_opacity).toBe(1);
  });

  it('reports the size it is given (the image before its resize to the working square)', () => {
    const f = named(
      computeFeatures(
        grayBitmap(4, 4, () => 9),
        { width: 640, height: 480 },
      ),
    );
    expect([f.img_width, f.img_height]).toEqual([640, 480]);
  });
});

describe('gray intensity grid', () => {
  it('averages each of the 8 x 8 cells: a 16 x 16 image, black on the left half, white on the right', () => {
    const f = named(computeFeatures(grayBitmap(16, 16, (x) => (x < 8 ? 0 : 255))));
    for (let r = 0; r < 8; r++) {
      expect([0, 1, 2, 3, 4, 5, 6, 7].map((c) => f[`img_grid_${r}_${c}`])).toEqual([0, 0, 0, 0, 255, 255, 255, 255]);
    }
  });

  it('its DCT: a flat grid has only the constant term (8 x its level); a left-right step only horizontal frequencies', () => {
    const flat = named(computeFeatures(grayBitmap(16, 16, () => 100)));
    expect(flat.img_dct_0_0).toBeCloseTo(800, 9);
    expect(
      pick(flat, 'img_dct_')
        .slice(1)
        .every((v) => Math.abs(v) < 1e-9),
    ).toBe(true);
    const step = named(computeFeatures(grayBitmap(16, 16, (x) => (x < 8 ? 0 : 255))));
    expect(step.img_dct_0_0).toBeCloseTo(8 * 127.5, 9);
    // the first horizontal cosine is positive on the left half: dark there, so a negative coefficient; even ones vanish
    expect(step.img_dct_0_1).toBeLessThan(-500);
    for (const name of ['img_dct_1_0', 'img_dct_0_2', 'img_dct_2_0', 'img_dct_1_1', 'img_dct_0_4'])
      expect(Math.abs(step[name])).toBeLessThan(1e-9);
  });

  it('is an exact area resize for any ratio (a pixel shared by two cells counts in both by its overlap)', () => {
    expect(Array.from(areaResize(Float64Array.from([0, 3, 6]), 3, 1, 2, 1))).toEqual([1, 5]);
    // upsampling repeats: 2 pixels to 4 cells
    expect(Array.from(areaResize(Float64Array.from([10, 20]), 2, 1, 4, 1))).toEqual([10, 10, 20, 20]);
    // a 12 x 12 ramp to 8 x 8 keeps the mean
    const ramp = Float64Array.from({ length: 144 }, (_, i) => i);
    const small = areaResize(ramp, 12, 12, 8, 8);
    expect(small.reduce((a, b) => a + b, 0) / 64).toBeCloseTo(71.5, 9);
  });
});

describe('gradients and HOG', () => {
  it('a constant image has zero gradients, no edges and an all-zero HOG; every LBP pattern is flat (code 8)', () => {
    const f = named(computeFeatures(grayBitmap(16, 16, () => 100)));
    expect(f.img_mean_gradient).toBe(0);
    expect(f.img_edge_density).toBe(0);
    expect(pick(f, 'img_hog_').every((v) => v === 0)).toBe(true);
    expect(pick(f, 'img_orient_').every((v) => v === 0)).toBe(true);
    expect(pick(f, 'img_lbp1_')).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1, 0]);
    expect(pick(f, 'img_lbp2_')).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1, 0]);
    expect(f.img_std_gray).toBe(0);
  });

  it('a vertical edge puts all HOG energy in the horizontal-gradient bin (0 degrees) of the cells it crosses', () => {
    const f = named(computeFeatures(grayBitmap(16, 16, (x) => (x < 8 ? 0 : 255))));
    // columns 7 and 8 have |dx| = 255 (centred differences), in cell columns 1 and 2
    expect(f.img_mean_gradient).toBeCloseTo((2 * 255) / 16, 9);
    expect(f.img_edge_density).toBe(2 / 16);
    for (let r = 0; r < 4; r++) {
      for (let c = 0; c < 4; c++) {
        for (let b = 0; b < 9; b++) {
          const expected = b === 0 && (c === 1 || c === 2) ? 1 / Math.sqrt(8) : 0;
          expect(f[`img_hog_${r}_${c}_${b}`]).toBeCloseTo(expected, 9);
        }
      }
    }
  });

  it('a horizontal edge shares its energy between the bins at 80 and 100 degrees (a vertical gradient)', () => {
    const f = named(computeFeatures(grayBitmap(16, 16, (_, y) => (y < 8 ? 255 : 0))));
    for (let r = 0; r < 4; r++) {
      for (let c = 0; c < 4; c++) {
        const bins = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((b) => f[`img_hog_${r}_${c}_${b}`]);
        const crossed = r === 1 || r === 2;
        // 16 equal values, 1/4 each after L2-Hys (the 0.2 clip leaves equal values equal)
        bins.forEach((v, b) => expect(v).toBeCloseTo(crossed && (b === 4 || b === 5) ? 0.25 : 0, 9));
      }
    }
  });

  it('a 45-degree ramp votes at 45 degrees: between the bins at 40 and 60, more to 40', () => {
    // gray = 8 (x + y): dx = dy = 16 inside; y grows downwards, so atan2(16, 16) = 45 degrees (3/4 to bin 2 before L2-Hys clips)
    const f = named(computeFeatures(grayBitmap(16, 16, (x, y) => 8 * (x + y))));
    const bins = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((b) => f[`img_hog_1_1_${b}`]);
    expect(bins[2]).toBeGreaterThan(bins[3]);
    expect(bins[3]).toBeGreaterThan(0);
    expect(bins.filter((_, b) => b !== 2 && b !== 3).every((v) => v === 0)).toBe(true);
  });
});

describe('arctan (the orientation of a gradient)', () => {
  it('is Math.atan to within a unit in the last place, across both reductions, the signs and the ends', () => {
    const xs = [0, -0, 1e-300, 1e-8, 0.5, 0.66, 0.66 + 1e-12, 1, 2.414213562373095, 2.4142135623731, 10, 1e8, 1e300, Infinity];
    for (let i = 0; i < 20_000; i++) xs.push(Math.tan((i / 20_000 - 0.5) * Math.PI * 0.9999), (i - 10_000) / 37);
    for (const x of [...xs, ...xs.map((v) => -v)]) {
      const want = Math.atan(x);
      expect(Math.abs(arctan(x) - want)).toBeLessThanOrEqual(Number.EPSILON * Math.max(Math.abs(want), 1));
    }
    expect(Object.is(arctan(0), 0)).toBe(true);
  });

  it('gives the orientations atan2 folded into [0, pi) gives, pixel by pixel', () => {
    let seed = 7;
    const gray = Float64Array.from({ length: 64 * 64 }, () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256) * 0.7);
    // and the exact directions: flat, horizontal, vertical and diagonal steps of both signs
    gray.set([0, 0, 0, 5, 5, 5, 0, 9, 0, 3, 0, 3], 0);
    const { orientation } = gradients(gray, 64, 64);
    gray.forEach((_, p) => {
      const [x, y] = [p % 64, Math.floor(p / 64)];
      const dx = gray[y * 64 + Math.min(63, x + 1)] - gray[y * 64 + Math.max(0, x - 1)];
      const dy = gray[Math.min(63, y + 1) * 64 + x] - gray[Math.max(0, y - 1) * 64 + x];
      let theta = Math.atan2(dy, dx);
      if (theta < 0) theta += Math.PI;
      expect(Math.abs(orientation[p] - (theta >= Math.PI ? 0 : theta))).toBeLessThanOrEqual(4 * Number.EPSILON);
    });
  });
});

describe('edge orientations from the dominant one', () => {
  it('a vertical or a horizontal edge: all in the dominant orientation (the horizontal one shared by the bins at 80 and 100)', () => {
    expect(pick(named(computeFeatures(grayBitmap(16, 16, (x) => (x < 8 ? 0 : 255)))), 'img_orient_')).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0]);
    const horizontal = pick(named(computeFeatures(grayBitmap(16, 16, (_, y) => (y < 8 ? 0 : 255)))), 'img_orient_');
    horizontal.forEach((v, k) => expect(v).toBeCloseTo(k < 2 ? 0.5 : 0, 12));
  });

  it('a square: about half at the dominant orientation and half at 90 degrees from it (its corners vote diagonally)', () => {
    const orient = pick(
      named(computeFeatures(grayBitmap(32, 32, (x, y) => (x >= 8 && x < 24 && y >= 8 && y < 24 ? 255 : 0)))),
      'img_orient_',
    );
    expect(orient[0]).toBeGreaterThan(0.45);
    expect(Math.abs(orient[0] - (orient[4] + orient[5]))).toBeLessThan(0.01);
    expect(orient[0] + orient[4] + orient[5]).toBeGreaterThan(0.9);
    expect(orient.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });
});

describe('local binary patterns (riu2)', () => {
  it('a one-pixel checkerboard: dark pixels see only brighter or equal neighbours (code 8), bright ones alternate (non-uniform, 9)', () => {
    const f = named(computeFeatures(grayBitmap(16, 16, (x, y) => ((x + y) % 2 ? 255 : 0))));
    expect(pick(f, 'img_lbp1_')).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0.5, 0.5]);
    // at half size every 2 x 2 block averages to the same gray: flat
    expect(pick(f, 'img_lbp2_')).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1, 0]);
  });

  it('the second scale sees a two-pixel checkerboard as the first sees a one-pixel one', () => {
    const f = named(computeFeatures(grayBitmap(32, 32, (x, y) => ((Math.floor(x / 2) + Math.floor(y / 2)) % 2 ? 255 : 0))));
    expect(pick(f, 'img_lbp2_')).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0.5, 0.5]);
  });

  it('codes a bright spot 0, a dark spot 8, an edge by its count of brighter neighbours', () => {
    expect(lbpHistogram(Uint8Array.from([0, 0, 0, 0, 9, 0, 0, 0, 0]), 3, 3)).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(lbpHistogram(Uint8Array.from([9, 9, 9, 9, 0, 9, 9, 9, 9]), 3, 3)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1, 0]);
    // a vertical edge, dark on the left: NE, E, SE are brighter and N, S equal (ones), NW, W, SW darker; one run of 5 ones
    expect(lbpHistogram(Uint8Array.from([0, 5, 9, 0, 5, 9, 0, 5, 9]), 3, 3)).toEqual([0, 0, 0, 0, 0, 1, 0, 0, 0, 0]);
  });
});
