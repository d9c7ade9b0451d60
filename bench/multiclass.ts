/**
 * Synthetic multiclass data for the speed benchmark: `classes` classes, `features` standard-normal features of which
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
