import * as fs from 'node:fs';
import * as path from 'node:path';
import { datasetFromCsv } from '../../bench/csv-dataset';
import { TEST_DATA as DATA } from '../../test/data';
import type { EngineDataset, FeatureType } from '../engine/types';
import { columnType, textColumnsOf, toEngineColumn } from './column-codec';
import { parseTable, parseTableText, TableError, TableOptions } from './table-parser';

/** The dataset an upload of `text` gives the engine: parseTable on a stream of small chunks, typed as stored. */
async function asUploaded(text: string, types: Record<string, FeatureType> = {}): Promise<EngineDataset> {
  const options: TableOptions = {
    separator: ',',
    hasFeatureHeaders: true,
    hasSampleHeaders: false,
    hasSamplesInRows: true,
    textColumns: textColumnsOf(types),
  };
  async function* chunks(): AsyncGenerator<Buffer> {
    const bytes = Buffer.from(text, 'utf8');
    for (let i = 0; i < bytes.length; i += 7) yield bytes.subarray(i, i + 7);
  }
  const table = await parseTable(chunks(), options);
  return {
    sampleCount: table.sampleCount,
    columns: table.columns.map((c, i) => toEngineColumn({ ...c, type: columnType(table, i, types) })),
  };
}

/** Typed arrays as plain arrays, so datasets built through different buffers compare by value. */
function plain(data: EngineDataset): unknown {
  return JSON.parse(JSON.stringify(data, (_, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v)));
}

describe("datasetFromCsv (the engine tests' and benchmarks' reader) reads a text as an upload does", () => {
  it('treats empty cells, NA, NaN, ?, null (any case) as missing, as docs/decisions.md says', () => {
    const data = datasetFromCsv('x,g\n1,a\nNA,b\n,na\nnan,?\n?,NULL\nNull,a\n 2 ,A\n');
    const [x, g] = data.columns;
    expect(data.sampleCount).toBe(7);
    expect(x).toEqual({ name: 'x', type: 'numerical', values: Float64Array.from([1, NaN, NaN, NaN, NaN, NaN, 2]) });
    // levels in order of first appearance, case kept
    expect(g).toEqual({ name: 'g', type: 'categorical', codes: Int32Array.from([0, 1, -1, -1, -1, 0, 2]), levels: ['a', 'b', 'A'] });
  });

  it('types a column with any present non-number as categorical, and follows `types`', () => {
    const data = datasetFromCsv('a,b,c,t,e\n1,0x10,3,5,1\n2,Infinity,4,7,2\n', { c: 'categorical', t: 'timeToEvent', e: 'event' });
    expect(data.columns.map((c) => c.type)).toEqual(['numerical', 'categorical', 'categorical', 'timeToEvent', 'event']);
    expect(data.columns[2]).toEqual({ name: 'c', type: 'categorical', codes: Int32Array.from([0, 1]), levels: ['3', '4'] });
    expect(data.columns[4]).toEqual({ name: 'e', type: 'event', values: Float64Array.from([1, 2]) });
  });

  it('refuses what an upload refuses, saying why', () => {
    expect(() => datasetFromCsv('a,b\n1,2\n3\n')).toThrow(TableError);
    expect(() => datasetFromCsv('a,a\n1,2\n')).toThrow('columns 1 and 2 have the same name "a"');
    expect(() => datasetFromCsv('a\n1\n', { b: 'numerical' })).toThrow('types names unknown columns: b');
    expect(() => datasetFromCsv('a\nx\n', { a: 'numerical' })).toThrow('"a" holds text ("x"), so it cannot be numerical');
  });

  it('gives the same dataset as parseTable on a stream, for quoted fields, CRLF, a BOM and overrides', async () => {
    const text = '\ufeffid,"note, quoted",v\r\n1,"a ""b""",2.5\r\n2,"line\nbreak",NA\r\n3,a,1e3\r\n';
    const types: Record<string, FeatureType> = { id: 'categorical' };
    expect(plain(datasetFromCsv(text, types))).toEqual(plain(await asUploaded(text, types)));
    expect(datasetFromCsv(text, types).columns[1]).toMatchObject({ levels: ['a "b"', 'line\nbreak', 'a'] });
  });

  it.each(['iris', 'lung', 'diabetes', 'breast_cancer'])('gives the same dataset as an upload of %s.csv', async (name) => {
    const text = fs.readFileSync(path.join(DATA, `${name}.csv`), 'utf8');
    const types: Record<string, FeatureType> = name === 'lung' ? { status: 'event', time: 'timeToEvent' } : {};
    expect(plain(datasetFromCsv(text, types))).toEqual(plain(await asUploaded(text, types)));
  });

  it('parseTableText and parseTable agree on samples in columns too', async () => {
    const text = 'sample,s1,s2,s3\ngeneA,1,2,NA\ngeneB,x,y,x\n';
    const options: TableOptions = { separator: ',', hasFeatureHeaders: true, hasSampleHeaders: true, hasSamplesInRows: false };
    async function* one(): AsyncGenerator<Buffer> {
      yield Buffer.from(text);
    }
    const table = parseTableText(text, options);
    expect(table).toEqual(await parseTable(one(), options));
    expect(table.columns.map((c) => c.name)).toEqual(['sample', 'geneA', 'geneB']);
  });
});
