import { parse } from 'csv-parse/sync';
import { ApiError } from '../common/api-error';
import { Codes, ErrorCode } from '../common/error-codes';
import { ColumnBuilder, isMissing, ParsedColumn } from '../datasets/column-builder';
import { IMAGE_FEATURE_PREFIX } from './image-features';
import { runInWorker, workerScript } from '../common/worker-thread';
import { describeCsvError } from '../datasets/table-parser';

/** The init file of an image upload: sample ids (first column, kept as text) and the other columns. */
export interface SampleTable {
  ids: string[];
  /** Every column, the sample-id column first (as text); the others typed as in tabular uploads. */
  columns: ParsedColumn[];
}

const SAMPLE_COLUMN_DEFAULT = 'sampleId';

function unreadable(message: string): never {
  throw new ApiError(Codes.UnreadableSampleTable, `the init file: ${message}`);
}

/**
 * Reads the init CSV (comma separated, UTF-8 with or without BOM, quoted fields allowed). The first
 * column holds the sample ids: each non-empty and unique (compared as written, trimmed). Without a
 * header row the columns are named sampleId, feature_2, feature_3... Throws ApiError naming the line.
 */
export function parseSampleTable(csv: Buffer, hasFeatureHeaders: boolean): SampleTable {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(csv);
  } catch {
    unreadable('is not valid UTF-8 text; save it as UTF-8');
  }
  if (text.includes('\u0000')) unreadable('holds a NUL byte (binary content)');
  let records: string[][];
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: false, max_record_size: 1_000_000 });
  } catch (e) {
    unreadable(describeCsvError(e as Error & { code?: string; lines?: number }, ','));
  }
  if (!records.length) unreadable('is empty');
  const width = records[0].length;
  let names: string[];
  if (hasFeatureHeaders) {
    names = records[0].map((h) => h.trim());
    records = records.slice(1);
    if (!names[0]) names[0] = SAMPLE_COLUMN_DEFAULT;
    const seen = new Map<string, number>();
    names.forEach((name, i) => {
      if (!name) unreadable(`column ${i + 1} has an empty name`);
      if (name.length > 200) unreadable(`column ${i + 1} has a name longer than 200 characters`);
      const before = seen.get(name);
      if (before !== undefined) unreadable(`columns ${before + 1} and ${i + 1} have the same name "${name.slice(0, 60)}"`);
      seen.set(name, i);
    });
  } else {
    names = Array.from({ length: width }, (_, i) => (i === 0 ? SAMPLE_COLUMN_DEFAULT : `feature_${i + 1}`));
  }
  if (!records.length) unreadable('has a header but no sample rows');
  const reserved = names.filter((n) => n.startsWith(IMAGE_FEATURE_PREFIX));
  if (reserved.length) {
    throw new ApiError(
      Codes.ReservedFeatureName,
      `column names starting with "${IMAGE_FEATURE_PREFIX}" are reserved for the computed image features: ${reserved.slice(0, 5).join(', ')}`,
    );
  }

  const ids: string[] = [];
  const rowOf = new Map<string, number>();
  records.forEach((r, k) => {
    const id = r[0].trim();
    if (!id) throw new ApiError(Codes.BadSampleIds, `data row ${k + 1} has an empty sample id`);
    if (isMissing(id)) {
      throw new ApiError(Codes.BadSampleIds, `data row ${k + 1} has the sample id "${id}", which reads as a missing value`);
    }
    const before = rowOf.get(id);
    if (before !== undefined) {
      throw new ApiError(Codes.BadSampleIds, `sample id "${id.slice(0, 60)}" appears twice: data rows ${before + 1} and ${k + 1}`);
    }
    rowOf.set(id, k);
    ids.push(id);
  });

  const builders = names.map((n, i) => new ColumnBuilder(n, i === 0));
  for (const r of records) for (let j = 0; j < builders.length; j++) builders[j].push(r[j]);
  return { ids, columns: builders.map((b) => b.finish()) };
}

const SCRIPT = workerScript(__dirname, __filename, 'sample-table.worker');

/** What sample-table.worker.ts is given: the init file and its header option; its answer: the table, or the refusal it raised. */
export interface SampleTableRequest {
  csv: Uint8Array;
  hasFeatureHeaders: boolean;
}
export type SampleTableResponse = { ok: true; table: SampleTable } | { ok: false; code?: ErrorCode; message: string };

/**
 * An init file of at most this many bytes is parsed on the calling thread: about 2.5 ms of CPU for 500 samples
 * (12 KB), where starting an engine process for it cost 0.3 s of CPU and, in an image dataset's build, held back
 * the feature processes until it had answered.
 */
export const SAMPLE_TABLE_AT_ONCE_BYTES = 16 * 1024;

/**
 * parseSampleTable on a worker thread of an engine process (a 50 MB init file took 6 s of the API's event loop,
 * every request waited, and 700 MB of its memory), or at once when the file is small (SAMPLE_TABLE_AT_ONCE_BYTES).
 * Rejects with the ApiError the parser raised.
 */
export async function parseSampleTableInWorker(csv: Buffer, hasFeatureHeaders: boolean, signal?: AbortSignal): Promise<SampleTable> {
  if (csv.length <= SAMPLE_TABLE_AT_ONCE_BYTES) {
    signal?.throwIfAborted();
    return parseSampleTable(csv, hasFeatureHeaders);
  }
  const answer = await runInWorker<SampleTableResponse>(SCRIPT, { csv, hasFeatureHeaders } satisfies SampleTableRequest, { signal });
  if (answer.ok) return answer.table;
  if (answer.code) throw new ApiError(answer.code, answer.message);
  throw new Error(answer.message);
}
