import type { FeatureMeta } from '../data';
import type { Preprocessor } from '../preprocessing';
import { Rng } from '../rng';
import type { Explanation } from '../types';
import type { Players, ShapleyValues } from './types';

/**
 * The background of a model's explanations: at most this many of its training samples, drawn at random without
 * replacement from a stream of their own (the model's fit draws nothing less), all of them when fewer. 100 rows keep
 * the exact methods' cost linear in a small number (interventional TreeSHAP and the kernel quadrature run over every
 * background row) while the base value, the mean output over them, is within about a tenth of the output's standard
 * deviation of the mean over every training sample.
 */
export const BACKGROUND_SIZE = 100;

/** Stream id of the background draw (beside a task's own seed ids). */
const BACKGROUND_STREAM = 0xbac6;

/** The background rows among `train` (ascending), drawn with Rng(seed, ...seedIds, BACKGROUND_STREAM). */
export function backgroundRows(train: Int32Array, seed: number, seedIds: number[]): Int32Array {
  if (train.length <= BACKGROUND_SIZE) return Int32Array.from(train);
  const pool = Int32Array.from(train);
  const rng = new Rng(seed, ...seedIds, BACKGROUND_STREAM);
  for (let k = 0; k < BACKGROUND_SIZE; k++) {
    const j = k + rng.int(pool.length - k);
    const t = pool[k];
    pool[k] = pool[j];
    pool[j] = t;
  }
  return pool.subarray(0, BACKGROUND_SIZE).sort();
}

/** The players of a pipeline's explanations: one per preprocessing step (a categorical feature's columns together). */
export function playersOf(pre: Preprocessor): Players {
  return { of: pre.columnSteps(), count: pre.steps.length };
}

/**
 * The stored background of a pipeline (one array per step: numbers, category labels, null for missing) from the
 * analysis's column-major data `X` (n rows; category codes index the feature's levels).
 */
export function storedBackground(
  pre: Preprocessor,
  features: FeatureMeta[],
  X: Float64Array,
  n: number,
  rows: Int32Array,
): (number | string | null)[][] {
  return pre.steps.map((st) =>
    Array.from(rows, (r) => {
      const v = X[st.feature * n + r];
      if (Number.isNaN(v)) return null;
      return st.kind === 'numerical' ? v : features[st.feature].levels[v];
    }),
  );
}

/** The columns of a stored background by step, coded as at fit time (levels by name; unknown or null = missing). */
export function backgroundColumns(
  pre: Preprocessor,
  stored: (number | string | null)[][],
): { columns: Map<number, Float64Array>; rows: number } {
  const columns = new Map<number, Float64Array>();
  pre.steps.forEach((st, k) => {
    const values = stored[k] ?? [];
    const index = new Map(st.levels.map((l, c) => [l, c]));
    columns.set(
      st.feature,
      Float64Array.from(values, (v) =>
        v === null ? NaN : typeof v === 'number' ? (st.kind === 'numerical' ? v : NaN) : (index.get(v) ?? NaN),
      ),
    );
  });
  return { columns, rows: stored[0]?.length ?? 0 };
}

/** The explanation of each row: its outputs (the classes of `classes` the heads stand for), base and contributions by name. */
export function explanationRows(sv: ShapleyValues, names: string[], headClasses: string[] | undefined): Explanation[] {
  const { heads: H, players: M } = sv;
  const n = sv.output.length / Math.max(1, H);
  const byName = (values: Float64Array, at: number): Record<string, number> =>
    Object.fromEntries(names.map((name, p) => [name, values[at + p]]));
  return Array.from({ length: n }, (_, i) => ({
    scale: sv.scale,
    method: sv.method,
    outputs: Array.from({ length: H }, (_, h) => {
      const at = (i * H + h) * M;
      return {
        ...(headClasses ? { class: headClasses[h] } : {}),
        value: sv.output[i * H + h],
        base: sv.base[h],
        contributions: byName(sv.values, at),
        ...(sv.standardErrors ? { standardErrors: byName(sv.standardErrors, at) } : {}),
      };
    }),
  }));
}
