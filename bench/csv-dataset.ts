import { columnType, impossibleType, textColumnsOf, toEngineColumn } from '../src/datasets/column-codec';
import { parseTableText } from '../src/datasets/table-parser';
import type { EngineColumn, EngineDataset, FeatureType } from '../src/engine/types';

/**
 * A CSV text (comma separated, a header row, samples in rows) as an engine dataset, for the engine's tests and
 * the benchmarks (the engine reads no files: the service hands it datasets). It is read as an upload is
 * (src/datasets: parseTableText, then the stored columns' typing and conversion), so the engine is tested on what
 * production gives it: missing values are empty cells, NA, NaN, ?, null (case-insensitive); a column whose present
 * values are all numbers is numerical, otherwise categorical with its levels in order of first appearance; `types`
 * overrides by column name. A fault in the text, an unknown name in `types` or an impossible type throws an Error
 * saying which.
 */
export function datasetFromCsv(text: string, types: Record<string, FeatureType> = {}): EngineDataset {
  const table = parseTableText(text, {
    separator: ',',
    hasFeatureHeaders: true,
    hasSampleHeaders: false,
    hasSamplesInRows: true,
    textColumns: textColumnsOf(types),
  });
  const names = new Set(table.columns.map((c) => c.name));
  const unknown = Object.keys(types).filter((n) => !names.has(n));
  if (unknown.length) throw new Error(`types names unknown columns: ${unknown.join(', ')}`);
  const columns = table.columns.map((c, i) => {
    const type = columnType(table, i, types);
    const why = impossibleType(c, type);
    if (why) throw new Error(why);
    return toEngineColumn({ ...c, type });
  });
  return { sampleCount: table.sampleCount, columns };
}

/** The rows `rows` of a dataset, in that order. */
export function subsetDataset(data: EngineDataset, rows: ArrayLike<number>): EngineDataset {
  const idx = Array.from(rows);
  return {
    sampleCount: idx.length,
    columns: data.columns.map((c): EngineColumn => {
      if ('codes' in c) return { ...c, codes: Int32Array.from(idx, (r) => c.codes[r]) };
      return { ...c, values: Float64Array.from(idx, (r) => c.values[r]) };
    }),
  };
}
