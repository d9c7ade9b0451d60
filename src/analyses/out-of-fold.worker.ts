import { csvCell } from '../common/csv-cell';
import { answerOnce, WorkFailed } from '../common/thread-task';
import { withOwnConnection } from '../database/pg-pool';
import type { Explanation, OutOfFoldExplanationValues, OutOfFoldPredictions } from '../engine/types';
import type { OutOfFoldRow } from './dto/result.dto';

/** The out-of-fold predictions of one model key of a finished analysis, to be written as the API answers them. */
export interface OutOfFoldRequest {
  databaseUrl: string;
  analysisId: string;
  modelKey: string;
  /** write the rows with their explanations too (explain=true) */
  explain: boolean;
}

/**
 * `stored`: its texts are in out_of_fold_texts (written now, or by another process first); `missing`: it has none;
 * `failed`: the database could not be read or written (`unavailable`: it could not be reached).
 */
export type OutOfFoldAnswer = { stored: true } | { missing: true } | WorkFailed;

/** The explanation of sample i from a model's out-of-fold explanations (arrays over the samples). */
function explanationOf(e: OutOfFoldExplanationValues, i: number): Explanation {
  const H = e.heads;
  const M = e.features.length;
  const byName = (values: number[], at: number): Record<string, number> =>
    Object.fromEntries(e.features.map((f, m) => [f, values[at + m]]));
  return {
    scale: e.scale,
    method: e.method,
    outputs: Array.from({ length: H }, (_, h) => ({
      ...(e.classes ? { class: e.classes[h] } : {}),
      value: e.output[i * H + h],
      base: e.base[i * H + h],
      contributions: byName(e.values, (i * H + h) * M),
      ...(e.standardErrors ? { standardErrors: byName(e.standardErrors, (i * H + h) * M) } : {}),
    })),
  };
}

/** Each sample's row: its outcome, the prediction (the class of highest probability), the probabilities or the risk. */
export function outOfFoldRows(o: OutOfFoldPredictions, classes: string[], task: string): OutOfFoldRow[] {
  return o.rows.map((row, i): OutOfFoldRow => {
    const out: OutOfFoldRow = { row, actual: 0, prediction: 0 };
    if (o.sampleIds) out.sampleId = o.sampleIds[i];
    if (task === 'classification') {
      const p = o.values.slice(i * o.width, (i + 1) * o.width);
      let best = 0;
      p.forEach((v, c) => {
        if (v > p[best]) best = c;
      });
      out.actual = classes[o.y[i]];
      out.prediction = classes[best];
      out.probabilities = Object.fromEntries(classes.map((c, k) => [c, p[k]]));
    } else if (task === 'survival') {
      out.actual = o.y[i];
      out.event = o.event?.[i];
      out.prediction = o.values[i];
      out.risk = o.values[i];
    } else {
      out.actual = o.y[i];
      out.prediction = o.values[i];
    }
    return out;
  });
}

/** The rows as CSV: row, sampleId (when any), actual, event (survival), prediction, one probability column per class, risk. */
export function outOfFoldCsv(rows: OutOfFoldRow[]): string {
  const classes = Object.keys(rows[0]?.probabilities ?? {});
  const hasSample = rows.some((r) => r.sampleId !== undefined);
  const survival = rows.some((r) => r.risk !== undefined);
  const header = [
    'row',
    ...(hasSample ? ['sampleId'] : []),
    'actual',
    ...(survival ? ['event'] : []),
    'prediction',
    ...classes.map((c) => `probability:${c}`),
    ...(survival ? ['risk'] : []),
  ];
  const lines = [header.map(csvCell).join(',')];
  for (const r of rows) {
    lines.push(
      [
        r.row,
        ...(hasSample ? [r.sampleId] : []),
        r.actual,
        ...(survival ? [r.event] : []),
        r.prediction,
        ...classes.map((c) => r.probabilities?.[c]),
        ...(survival ? [r.risk] : []),
      ]
        .map(csvCell)
        .join(','),
    );
  }
  return lines.join('\n') + '\n';
}

/**
 * Reads one model key's out-of-fold predictions of a stored result (over a connection of its own: the JSON never
 * crosses the service's event loop), writes them as the API answers them, the JSON array of rows and the CSV, and
 * stores both (out_of_fold_texts) for the service to send as they are. In an engine process: 200,000 rows are
 * seconds of parsing and writing.
 */
async function store({ databaseUrl, analysisId, modelKey, explain }: OutOfFoldRequest): Promise<OutOfFoldAnswer> {
  return withOwnConnection(databaseUrl, async (pool) => {
    const { rows } = await pool.query<{ oof: string | null; classes: string | null; task: string }>(
      `SELECT (r.out_of_fold -> $2::text)::text AS oof, (r.models -> $2::text -> 'classes')::text AS classes,
              (SELECT jsonb_object_keys(a.parameters -> 'outcome') LIMIT 1) AS task
         FROM analysis_results r JOIN analyses a ON a.id = r.analysis_id WHERE r.analysis_id = $1`,
      [analysisId, modelKey],
    );
    const found = rows[0];
    if (!found?.oof) return { missing: true };
    const oof = JSON.parse(found.oof) as OutOfFoldPredictions;
    const predictions = outOfFoldRows(oof, JSON.parse(found.classes ?? '[]') as string[], found.task);
    const explanation = explain ? oof.explanation : undefined;
    const explained = explanation
      ? Buffer.from(JSON.stringify(predictions.map((r, i) => ({ ...r, explanation: explanationOf(explanation, i) }))))
      : null;
    // a later explain=true adds its text beside the ones written before
    await pool.query(
      `INSERT INTO out_of_fold_texts (analysis_id, model_key, rows_json, csv, explained_json) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (analysis_id, model_key) DO UPDATE SET explained_json = coalesce(out_of_fold_texts.explained_json, excluded.explained_json)`,
      [analysisId, modelKey, Buffer.from(JSON.stringify(predictions)), Buffer.from(outOfFoldCsv(predictions)), explained],
    );
    return { stored: true };
  });
}

answerOnce(
  (data) => typeof (data as { analysisId?: unknown } | null)?.analysisId === 'string',
  (data) => store(data as OutOfFoldRequest),
);
