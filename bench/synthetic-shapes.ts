/**
 * Synthetic shapes for the benchmarks.
 *
 * `syntheticMulticlass`: `classes` classes, `features` standard-normal features of which
 * the first `informative` have class-dependent means (class k's mean on feature j is drawn once from N(0, effect^2)).
 * With informative = features every feature is associated with the class, as the pixels of handwritten digits are.
 */
import { Rng } from '../src/engine/rng';
import type { EngineColumn, EngineDataset } from '../src/engine/types';

export function syntheticMulticlass(
  n: number,
  features: number,
  classes: number,
  informative: number,
  seed: number,
  effect = 1,
): EngineDataset {
  const rng = new Rng(seed, 0x3c1a);
  const means = Array.from({ length: classes }, () => Float64Array.from({ length: informative }, () => effect * rng.normal()));
  const codes = Int32Array.from({ length: n }, (_, i) => i % classes);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [codes[i], codes[j]] = [codes[j], codes[i]];
  }
  const columns: EngineColumn[] = Array.from({ length: features }, (_, j) => ({
    name: `f${j + 1}`,
    type: 'numerical' as const,
    values: Float64Array.from(codes, (c) => (j < informative ? means[c][j] : 0) + rng.normal()),
  }));
  columns.push({ name: 'class', type: 'categorical', codes, levels: Array.from({ length: classes }, (_, k) => `c${k}`) });
  return { sampleCount: n, columns };
}

/** n x p standard-normal features g0..g{p-1}; a binary class driven by g0, g1, g2 and g3 (engine and speed benches). */
export function syntheticWide(n: number, p: number, seed: number): EngineDataset {
  const rng = new Rng(seed);
  const columns = Array.from({ length: p }, (_, j) => ({ name: `g${j}`, type: 'numerical' as const, values: new Float64Array(n) }));
  const codes = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < p; j++) columns[j].values[i] = rng.normal();
    const s = columns[0].values[i] + columns[1].values[i] - columns[2].values[i] + 0.5 * columns[3].values[i] + 0.5 * rng.normal();
    codes[i] = s > 0 ? 1 : 0;
  }
  return { sampleCount: n, columns: [...columns, { name: 'class', type: 'categorical', codes, levels: ['a', 'b'] }] };
}
