import { parse } from 'csv-parse/sync';
import type { EngineColumn, EngineDataset, FeatureType } from './types';

/**
 * A CSV text as an engine dataset (for tests, benchmarks and tools). A column whose non-empty cells
 * are all numbers is numerical, otherwise categorical (levels sorted); `types` overrides by column name.
 * Empty cells and NA are missing.
 */
export function datasetFromCsv(text: string, types: Record<string, FeatureType> = {}): EngineDataset {
  const records = parse(text, { skip_empty_lines: true }) as string[][];
  const [header, ...rows] = records;
  const missing = (s: string | undefined): boolean => s === undefined || s.trim() === '' || s.trim() === 'NA';
  const columns: EngineColumn[] = header.map((name, j) => {
    const cells = rows.map((r) => r[j]);
    const numeric = cells.every((c) => missing(c) || Number.isFinite(Number(c)));
    const type = types[name] ?? (numeric ? 'numerical' : 'categorical');
    if ((type === 'numerical' || type === 'timeToEvent' || type === 'event') && numeric) {
      const values = Float64Array.from(cells, (c) => (missing(c) ? NaN : Number(c)));
      return type === 'event' ? { name, type, values } : { name, type: type as 'numerical' | 'timeToEvent', values };
    }
    const levels = [...new Set(cells.filter((c) => !missing(c)).map((c) => c.trim()))].sort();
    const index = new Map(levels.map((l, k) => [l, k]));
    const codes = Int32Array.from(cells, (c) => (missing(c) ? -1 : (index.get(c.trim()) as number)));
    return { name, type: type as 'categorical' | 'identifier' | 'event', codes, levels };
  });
  return { sampleCount: rows.length, columns };
}

/** The rows `rows` of a dataset, in that order. */
export function subsetDataset(data: EngineDataset, rows: ArrayLike<number>): EngineDataset {
  const idx = Array.from(rows);
  return {
    sampleCount: idx.length,
    columns: data.columns.map((c): EngineColumn => {
      if ('codes' in c) return { ...c, codes: Int32Array.from(idx, (r) => c.codes[r]) };
      return { ...c, values: Float64Array.from(idx, (r) => c.values[r]) } as EngineColumn;
    }),
  };
}
