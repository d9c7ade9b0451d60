import type { EngineColumn, EngineDataset, SavedPipeline } from '../engine/types';

/** At most this many rows in one score call: more go through a dataset and a prediction. */
export const SCORE_MAX_ROWS = 1000;

/** Why rows cannot be scored: `missing` a feature the model reads is in no row (badRequest-150-3-1), else `rejected` (-3-2). */
export interface ScoreRowsFault {
  fault: 'missing' | 'rejected';
  message: string;
}

/** How the pipeline reads each feature: a number, or a category by its name. */
function kinds(pipeline: SavedPipeline): Map<string, 'numerical' | 'categorical'> {
  const steps = (pipeline.preprocessing as { steps?: { name: string; kind: 'numerical' | 'categorical' }[] }).steps ?? [];
  return new Map(steps.map((s) => [s.name, s.kind]));
}

const shown = (name: string): string => JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}...` : name);

/**
 * The rows of a score call (objects of feature name -> value) as a dataset of the columns the model reads, or the
 * fault that refuses them. As for a dataset given to a prediction: keys the model does not read are ignored, a
 * feature in no row is a missing column, a value null or absent is missing; a numerical feature takes numbers only,
 * a categorical one a text (a number is read as its text, as a CSV cell is), an unknown level counting as missing.
 */
export function rowsToDataset(pipeline: SavedPipeline, rows: unknown): EngineDataset | ScoreRowsFault {
  if (!Array.isArray(rows) || rows.length === 0) return { fault: 'rejected', message: 'rows must be a list of 1 to 1000 objects' };
  if (rows.length > SCORE_MAX_ROWS)
    return { fault: 'rejected', message: `${rows.length} rows: at most ${SCORE_MAX_ROWS} in one call (predict a dataset for more)` };
  const bad = rows.findIndex((r) => typeof r !== 'object' || r === null || Array.isArray(r));
  if (bad >= 0) return { fault: 'rejected', message: `rows[${bad}] must be an object of feature name -> value` };
  const objects = rows as Record<string, unknown>[];
  const byName = kinds(pipeline);
  const missing = pipeline.featureNames.filter((name) => !objects.some((r) => Object.prototype.hasOwnProperty.call(r, name)));
  if (missing.length > 0)
    return {
      fault: 'missing',
      message: `the rows lack feature${missing.length > 1 ? 's' : ''} the model uses: ${missing.slice(0, 20).map(shown).join(', ')}`,
    };
  const n = objects.length;
  const columns: EngineColumn[] = [];
  for (const name of pipeline.featureNames) {
    const value = (i: number): unknown => (Object.prototype.hasOwnProperty.call(objects[i], name) ? objects[i][name] : null);
    if (byName.get(name) === 'categorical') {
      const levels = new Map<string, number>();
      const codes = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const v = value(i);
        if (v === null) {
          codes[i] = -1;
          continue;
        }
        if (typeof v !== 'string' && !(typeof v === 'number' && Number.isFinite(v)))
          return {
            fault: 'rejected',
            message: `rows[${i}].${name.slice(0, 60)} must be a category's text or null (the feature is categorical)`,
          };
        const text = String(v);
        if (!levels.has(text)) levels.set(text, levels.size);
        codes[i] = levels.get(text) as number;
      }
      columns.push({ name, type: 'categorical', levels: [...levels.keys()], codes });
      continue;
    }
    const values = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const v = value(i);
      if (v !== null && typeof v !== 'number')
        return { fault: 'rejected', message: `rows[${i}].${name.slice(0, 60)} must be a number or null (the feature is numerical)` };
      values[i] = v === null ? NaN : v;
    }
    columns.push({ name, type: 'numerical', values });
  }
  return { sampleCount: n, columns };
}
