import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { parseSampleTable, parseSampleTableInWorker, SAMPLE_TABLE_AT_ONCE_BYTES } from './sample-table';

// The engine process runs the worker from dist/ (npm test builds first).
function csvOf(rows: number, duplicate = false): Buffer {
  const lines = Array.from(
    { length: rows },
    (_, i) => `sample-${duplicate && i === rows - 1 ? 0 : i},class${i % 7},${(i * 0.37).toFixed(2)}`,
  );
  return Buffer.from(`id,label,weight\n${lines.join('\n')}\n`);
}

/** A table with its typed arrays as plain arrays (those from an engine process come from another realm). */
const plain = (table: unknown): unknown =>
  JSON.parse(JSON.stringify(table, (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v)));

describe('parseSampleTableInWorker', () => {
  it('parses a small init file at once and a large one in an engine process, to the same table', async () => {
    const small = csvOf(20);
    const large = csvOf(2000);
    expect(small.length).toBeLessThanOrEqual(SAMPLE_TABLE_AT_ONCE_BYTES);
    expect(large.length).toBeGreaterThan(SAMPLE_TABLE_AT_ONCE_BYTES);
    for (const csv of [small, large]) {
      const table = await parseSampleTableInWorker(csv, true);
      expect(plain(table)).toEqual(plain(parseSampleTable(csv, true)));
      expect(table.ids).toHaveLength(csv === small ? 20 : 2000);
    }
  });

  it('rejects a refused init file with the same error either way', async () => {
    for (const csv of [csvOf(20, true), csvOf(2000, true)]) {
      const refused = await parseSampleTableInWorker(csv, true).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(ApiError);
      expect((refused as ApiError).code).toBe(Codes.BadSampleIds);
      expect((refused as ApiError).message).toMatch(/appears twice/);
    }
  });
});
