import { Pipeline } from '../pipeline';
import type { FinalModelView } from '../plots/plot-kind';
import type { EngineColumn, SavedPipeline } from '../types';

/** What gridOutputs needs: a final model, the samples' values of the features it reads, and the grids to set. */
export interface GridArgs {
  /** the final model, its calibration map included */
  pipeline: SavedPipeline;
  features: FinalModelView['features'];
  /** each feature's values (in `features`' order) at the samples averaged over */
  columns: Float64Array[];
  survivalTime?: number;
  /** per feature: the values it is set to, one after the other */
  grids: { feature: number; values: number[] }[];
}

/**
 * For each grid, the model's outputs (samples x width) with its feature set to each of its values in turn, the other
 * features as observed: Partial Dependence's predictions (plots/partial-dependence.ts). A grid's samples are predicted
 * in one design of samples x values rows; each row's output depends on that row alone, so the numbers are those of
 * predicting each value apart. Runs on a worker thread (compute.ts) or here.
 */
export function gridOutputs(a: GridArgs): Float64Array[][] {
  const pipeline = Pipeline.fromJSON(a.pipeline);
  const m = a.columns[0]?.length ?? 0;
  return a.grids.map(({ feature, values }) => {
    const V = values.length;
    const columns = a.features.map((f, j): EngineColumn => {
      const v = new Float64Array(m * V);
      values.forEach((value, g) => (f.feature === feature ? v.fill(value, g * m, (g + 1) * m) : v.set(a.columns[j], g * m)));
      return f.kind === 'numerical'
        ? { name: f.name, type: 'numerical', values: v }
        : { name: f.name, type: 'categorical', levels: f.levels, codes: Int32Array.from(v, (c) => (Number.isNaN(c) ? -1 : c)) };
    });
    if (m === 0 || V === 0) return values.map(() => new Float64Array(0));
    const name = a.features.find((f) => f.feature === feature)?.name ?? '';
    const out = pipeline.outputs({ sampleCount: m * V, columns }, a.survivalTime, { count: V, feature: name });
    const width = out.length / (m * V);
    return values.map((_, g) => out.slice(g * m * width, (g + 1) * m * width));
  });
}
