import { parentPort, workerData } from 'node:worker_threads';
import type { PredictionRow } from '../engine/types';
import { csvCell } from '../common/csv-cell';

type ResultRow = PredictionRow & { sampleId?: string };

/**
 * A prediction's rows (their JSON text, as stored) as CSV: row, sampleId (when any), prediction, one probability
 * column per class, risk, survival:<time>..., medianSurvivalTime, and with explanations per output explained
 * (`:<class>` after each name when there are several) base, contribution:<feature>... and explained, the output
 * they add up to. On a worker thread: a result can hold a million rows, whose parsing and writing would stall the
 * service's requests for seconds.
 */
export function resultCsv(json: string): string {
  const rows = JSON.parse(json) as ResultRow[];
  const classes = [...new Set(rows.flatMap((r) => Object.keys(r.probabilities ?? {})))].sort();
  const hasSample = rows.some((r) => r.sampleId !== undefined);
  const hasRisk = rows.some((r) => r.risk !== undefined);
  // survival models: the same times on every row
  const times = rows.find((r) => r.survival)?.survival?.map((s) => s.time) ?? [];
  // explanations: the same outputs and features on every row
  const explained = rows.find((r) => r.explanation)?.explanation?.outputs ?? [];
  const features = Object.keys(explained[0]?.contributions ?? {});
  const several = explained.length > 1;
  const explanationHeader = explained.flatMap((o) => {
    const c = several ? `:${o.class ?? ''}` : '';
    return [`base${c}`, ...features.map((f) => `contribution${c}:${f}`), `explained${c}`];
  });
  const header = [
    'row',
    ...(hasSample ? ['sampleId'] : []),
    'prediction',
    ...classes.map((c) => `probability:${c}`),
    ...(hasRisk ? ['risk'] : []),
    ...times.map((t) => `survival:${t}`),
    ...(times.length ? ['medianSurvivalTime'] : []),
    ...explanationHeader,
  ];
  const lines = [header.map(csvCell).join(',')];
  for (const r of rows) {
    lines.push(
      [
        r.row,
        ...(hasSample ? [r.sampleId] : []),
        r.prediction,
        ...classes.map((c) => r.probabilities?.[c]),
        ...(hasRisk ? [r.risk] : []),
        ...times.map((_, k) => r.survival?.[k]?.probability),
        ...(times.length ? [r.medianSurvivalTime] : []),
        ...explained.flatMap((_, h) => {
          const o = r.explanation?.outputs[h];
          return [o?.base, ...features.map((f) => o?.contributions[f]), o?.value];
        }),
      ]
        .map(csvCell)
        .join(','),
    );
  }
  return lines.join('\n') + '\n';
}

if (parentPort && workerData !== null && typeof (workerData as { json?: unknown }).json === 'string') {
  parentPort.postMessage(resultCsv((workerData as { json: string }).json));
}
