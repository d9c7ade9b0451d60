import type { FeatureMeta } from './data';
import type { Design } from './models/common';

/** Reads feature j (numbers, or category codes into the feature's levels; NaN = missing) for all samples. */
export type ColumnSource = (feature: number) => Float64Array;

/** How one input feature becomes design columns. */
export interface FeatureStep {
  /** index of the feature in the analysis' feature list */
  feature: number;
  name: string;
  kind: 'numerical' | 'categorical';
  /** numerical: mean (imputation); categorical: mode code */
  impute: number;
  /** numerical: standard deviation; unused for categorical */
  scale: number;
  /** categorical: all level names (codes index them), the one-hot codes (every observed level but the mode) and their centers / scales */
  levels: string[];
  dummyCodes: number[];
  dummyCenters: number[];
  dummyScales: number[];
}

/**
 * Preprocessing fitted on training rows only: constant removal, mean (numerical) and mode (categorical)
 * imputation, one-hot encoding (the training mode is the reference level), standardization of every
 * design column.
 */
export class Preprocessor {
  constructor(readonly steps: FeatureStep[]) {}

  static fit(source: ColumnSource, rows: Int32Array, features: FeatureMeta[], candidates?: ArrayLike<number>): Preprocessor {
    const steps: FeatureStep[] = [];
    const list = candidates ?? Int32Array.from({ length: features.length }, (_, j) => j);
    for (let c = 0; c < list.length; c++) {
      const j = list[c];
      const col = source(j);
      const meta = features[j];
      if (meta.kind === 'numerical') {
        let s = 0;
        let m = 0;
        for (const r of rows) {
          const v = col[r];
          if (!Number.isNaN(v)) {
            s += v;
            m++;
          }
        }
        if (m === 0) continue;
        const mean = s / m;
        let ss = 0;
        for (const r of rows) {
          const v = col[r];
          if (!Number.isNaN(v)) ss += (v - mean) ** 2;
        }
        const sd = Math.sqrt(ss / rows.length);
        if (!(sd > 1e-12 * (1 + Math.abs(mean)))) continue;
        steps.push({
          feature: j,
          name: meta.name,
          kind: 'numerical',
          impute: mean,
          scale: sd,
          levels: [],
          dummyCodes: [],
          dummyCenters: [],
          dummyScales: [],
        });
      } else {
        const counts = new Float64Array(meta.levels.length);
        for (const r of rows) {
          const v = col[r];
          if (!Number.isNaN(v)) counts[v]++;
        }
        let mode = -1;
        let observed = 0;
        for (let k = 0; k < counts.length; k++) {
          if (counts[k] > 0) observed++;
          if (counts[k] > 0 && (mode < 0 || counts[k] > counts[mode])) mode = k;
        }
        if (observed < 2) continue;
        const dummyCodes: number[] = [];
        const dummyCenters: number[] = [];
        const dummyScales: number[] = [];
        for (let k = 0; k < counts.length; k++) {
          if (counts[k] === 0 || k === mode) continue;
          const f = counts[k] / rows.length; // missing values are imputed to the mode, so this is the dummy mean
          dummyCodes.push(k);
          dummyCenters.push(f);
          dummyScales.push(Math.sqrt(f * (1 - f)));
        }
        steps.push({
          feature: j,
          name: meta.name,
          kind: 'categorical',
          impute: mode,
          scale: 1,
          levels: meta.levels,
          dummyCodes,
          dummyCenters,
          dummyScales,
        });
      }
    }
    return new Preprocessor(steps);
  }

  /** Design columns per step. */
  get width(): number {
    let w = 0;
    for (const s of this.steps) w += s.kind === 'numerical' ? 1 : s.dummyCodes.length;
    return w;
  }

  /** For each design column, the index of its step. */
  columnSteps(): Int32Array {
    const out: number[] = [];
    this.steps.forEach((s, k) => {
      const m = s.kind === 'numerical' ? 1 : s.dummyCodes.length;
      for (let i = 0; i < m; i++) out.push(k);
    });
    return Int32Array.from(out);
  }

  /** Names of the design columns (`feature` or `feature=level`). */
  columnNames(): string[] {
    const out: string[] = [];
    for (const s of this.steps) {
      if (s.kind === 'numerical') out.push(s.name);
      else for (const c of s.dummyCodes) out.push(`${s.name}=${s.levels[c]}`);
    }
    return out;
  }

  /** The design matrix (row-major) of `rows`. `source(step.feature)` must use the same coding as at fit time. */
  transform(source: ColumnSource, rows: Int32Array): Design {
    const d = this.width;
    const n = rows.length;
    const data = new Float64Array(n * d);
    let off = 0;
    for (const s of this.steps) {
      const col = source(s.feature);
      if (s.kind === 'numerical') {
        for (let i = 0; i < n; i++) {
          const v = col[rows[i]];
          data[i * d + off] = ((Number.isNaN(v) ? s.impute : v) - s.impute) / s.scale;
        }
        off++;
      } else {
        const m = s.dummyCodes.length;
        for (let i = 0; i < n; i++) {
          const v = col[rows[i]];
          const code = Number.isNaN(v) ? s.impute : v;
          for (let k = 0; k < m; k++) data[i * d + off + k] = ((code === s.dummyCodes[k] ? 1 : 0) - s.dummyCenters[k]) / s.dummyScales[k];
        }
        off += m;
      }
    }
    return { data, rows: n, cols: d };
  }

  /** The same preprocessing restricted to the given steps (by step index), in that order. */
  restrict(stepIndices: ArrayLike<number>): Preprocessor {
    return new Preprocessor(Array.from(stepIndices, (k) => this.steps[k]));
  }

  /** Text for the result's `preprocessing` field. */
  static describe(): string {
    return 'Constant feature removal, mean imputation (numerical) and mode imputation (categorical), one-hot encoding of categorical features (mode as reference level), standardization; fitted on training samples only';
  }

  toJSON(): Record<string, unknown> {
    return { steps: this.steps };
  }

  static fromJSON(json: Record<string, unknown>): Preprocessor {
    return new Preprocessor(json.steps as FeatureStep[]);
  }
}

/** Selects design columns (row-major copy). */
export function selectColumns(X: Design, columns: ArrayLike<number>): Design {
  const m = columns.length;
  const data = new Float64Array(X.rows * m);
  for (let i = 0; i < X.rows; i++) for (let k = 0; k < m; k++) data[i * m + k] = X.data[i * X.cols + columns[k]];
  return { data, rows: X.rows, cols: m };
}
