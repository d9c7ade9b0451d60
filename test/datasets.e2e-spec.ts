import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { DataSource } from 'typeorm';
import { BlobReader, PipedBytes } from '../src/common/blob-channel';
import { copyIn } from '../src/database/copy-in';
import { clientOf } from '../src/database/sql';
import { PIECE_ROWS } from '../src/datasets/column-pieces';
import type { CodedColumn, NumericColumn } from '../src/engine/types';
import { ColumnStore, TypedTable } from '../src/datasets/column-store';
import { FilesService } from '../src/datasets/files.service';
import {
  API,
  createProject,
  createTestApp,
  createUser,
  expectError,
  expectSuccess,
  TEST_DATA,
  TestApp,
  uploadDataset,
  uploadTask,
} from './utils';

let t: TestApp;
let owner: Awaited<ReturnType<typeof createUser>>;
let projectId: string;
beforeAll(async () => {
  t = await createTestApp();
  owner = await createUser(t);
  projectId = await createProject(t, owner.auth, 'datasets');
});
afterAll(async () => {
  await t.close();
});

const shared = (name: string) => fs.readFileSync(path.join(TEST_DATA, name));

describe('the shared datasets', () => {
  it.each([
    ['iris.csv', 150, 5, { species: 'categorical', sepal_length_cm: 'numerical' }],
    ['breast_cancer.csv', 569, 31, { mean_radius: 'numerical' }],
    ['diabetes.csv', 442, 11, { progression: 'numerical', sex: 'numerical' }],
    ['lung.csv', 228, 9, { time: 'numerical', status: 'numerical', 'ph.ecog': 'numerical' }],
  ])('%s uploads with its sample count, feature count and types', async (file, samples, features, types) => {
    const id = await uploadDataset(t, owner.auth, projectId, shared(file), { name: file });
    const ds = expectSuccess(await t.http().get(`${API}/dataset/${id}`).set('Authorization', owner.auth));
    expect(ds).toEqual({
      datasetId: id,
      projectId,
      name: file,
      sampleCount: samples,
      featureCount: features,
      sizeInBytes: expect.any(Number),
    });
    expect(ds.sizeInBytes).toBeGreaterThan(0);
    const f = expectSuccess(await t.http().get(`${API}/dataset/${id}/features`).set('Authorization', owner.auth));
    expect(f.features).toHaveLength(features);
    const byName = Object.fromEntries(f.features.map((x: { name: string; type: string }) => [x.name, x.type]));
    expect(byName).toMatchObject(types);
  });

  it('counts missing and distinct values (lung has empty cells)', async () => {
    const id = await uploadDataset(t, owner.auth, projectId, shared('lung.csv'));
    const f = expectSuccess(await t.http().get(`${API}/dataset/${id}/features`).set('Authorization', owner.auth));
    const status = f.features.find((x: { name: string }) => x.name === 'status');
    const ecog = f.features.find((x: { name: string }) => x.name === 'ph.ecog');
    expect(status).toEqual({ name: 'status', type: 'numerical', missingCount: 0, distinctCount: 2 });
    expect(ecog.missingCount).toBe(1);
  });
});

describe('parsing options', () => {
  const plain = 'id,a,b,label\ns1,1.5,x,yes\ns2,2,y,no\ns3,NA,x,yes\ns4,4,,no\n';
  const semicolon = plain.replace(/,/g, ';');
  const transposed = 'id,s1,s2,s3,s4\na,1.5,2,NA,4\nb,x,y,x,\nlabel,yes,no,yes,no\n';

  it('gives the same dataset for plain, semicolon-separated and transposed files', async () => {
    const a = await uploadDataset(t, owner.auth, projectId, plain, { hasSampleHeaders: true });
    const b = await uploadDataset(t, owner.auth, projectId, semicolon, { hasSampleHeaders: true, separator: ';' });
    const c = await uploadDataset(t, owner.auth, projectId, transposed, { hasSampleHeaders: true, hasSamplesInRows: false });
    const svc = t.app.get(ColumnStore);
    const [da, db, dc] = await Promise.all([a, b, c].map((id) => svc.loadForEngine(id)));
    expect(db).toEqual(da);
    expect(dc).toEqual(da);
    expect(da.sampleCount).toBe(4);
    expect(da.columns.map((x) => [x.name, x.type])).toEqual([
      ['id', 'identifier'],
      ['a', 'numerical'],
      ['b', 'categorical'],
      ['label', 'categorical'],
    ]);
    const aCol = da.columns[1] as { values: Float64Array };
    expect(Array.from(aCol.values)).toEqual([1.5, 2, NaN, 4]);
    const feats = expectSuccess(await t.http().get(`${API}/dataset/${c}/features`).set('Authorization', owner.auth)).features;
    expect(feats.map((x: { name: string }) => x.name)).toEqual(['id', 'a', 'b', 'label']);
  });

  it('reads quoted fields with separators and newlines, a BOM, CRLF, and files without headers', async () => {
    const text = '\ufeffname,note,v\r\n"Smith, J","line one\nline two",1\r\n"O""Brien",plain,2\r\n';
    const id = await uploadDataset(t, owner.auth, projectId, text);
    const data = await t.app.get(ColumnStore).loadForEngine(id);
    expect(data.columns.map((c) => c.name)).toEqual(['name', 'note', 'v']);
    const name = data.columns[0] as { codes: Int32Array; levels: string[] };
    expect(Array.from(name.codes, (c) => name.levels[c])).toEqual(['Smith, J', 'O"Brien']);
    const note = data.columns[1] as { codes: Int32Array; levels: string[] };
    expect(note.levels[note.codes[0]]).toBe('line one\nline two');

    const noHeader = await uploadDataset(t, owner.auth, projectId, '1,2\n3,4\n', { hasFeatureHeaders: false });
    const d2 = await t.app.get(ColumnStore).loadForEngine(noHeader);
    expect(d2.columns.map((c) => c.name)).toEqual(['feature_1', 'feature_2']);
    expect(d2.sampleCount).toBe(2);
  });

  it('applies featureTypes at creation and validates them', async () => {
    const csv = 'time,status,group,code\n5,1,a,001\n7,0,b,002\n9,1,a,003\n';
    const id = await uploadDataset(t, owner.auth, projectId, csv, {
      featureTypes: { time: 'timeToEvent', status: 'event', code: 'identifier' },
    });
    const f = expectSuccess(await t.http().get(`${API}/dataset/${id}/features`).set('Authorization', owner.auth)).features;
    expect(f.map((x: { type: string }) => x.type)).toEqual(['timeToEvent', 'event', 'categorical', 'identifier']);
    const data = await t.app.get(ColumnStore).loadForEngine(id);
    const code = data.columns[3] as { codes: Int32Array; levels: string[] };
    expect(Array.from(code.codes, (c) => code.levels[c])).toEqual(['001', '002', '003']);

    const bad = await uploadTask(t, owner.auth, projectId, csv, { featureTypes: { group: 'numerical' } });
    expect(bad.state).toBe('failed');
    expect(bad.error?.code).toBe('badRequest-110-3-2');
    const unknown = await uploadTask(t, owner.auth, projectId, csv, { featureTypes: { nope: 'numerical' } });
    expect(unknown.error?.code).toBe('badRequest-110-3-1');
    const res = await t
      .http()
      .post(`${API}/file/x/createDataset`)
      .set('Authorization', owner.auth)
      .send({ projectId, name: 'abc', fileSizeInBytes: 1, featureTypes: { time: 'date' } });
    expectError(res, 'badRequest-110-3-3');
  });
});

describe('the fast path and the strict reader', () => {
  // 20,000 rows, about 0.5 MB
  const rows = ['id,x,y,site,flag'];
  for (let i = 0; i < 20_000; i++) {
    rows.push(`s${i},${(i * 0.37 - 50).toFixed(4)},${i % 7 === 0 ? '' : i * 3},${['a', 'b', 'c'][i % 3]},${i % 2 ? 'yes' : 'no'}`);
  }
  const plain = rows.join('\n') + '\n';
  // every cell quoted: the strict reader reads it all
  const quoted =
    rows
      .map((r) =>
        r
          .split(',')
          .map((c) => `"${c}"`)
          .join(','),
      )
      .join('\n') + '\n';
  // one quoted cell deep in the file: the fast path reads up to it, the strict reader the rest
  const late = rows.map((r, i) => (i === 15_000 ? r.replace(/^([^,]*),/, '"$1",') : r)).join('\n') + '\n';

  const storedColumns = (datasetId: string) =>
    t.app.get(DataSource).query(
      `SELECT idx, name, type, encoding, encode(sha256(data), 'hex') AS data, levels, missing_count, distinct_count
         FROM dataset_columns WHERE dataset_id = $1 ORDER BY idx`,
      [datasetId],
    );

  it('store identical columns, bit for bit', async () => {
    expect(late.indexOf('"')).toBeGreaterThan(300_000);
    const ids = await Promise.all(
      [plain, quoted, late].map((text) => uploadDataset(t, owner.auth, projectId, text, { hasSampleHeaders: true })),
    );
    const [a, b, c] = await Promise.all(ids.map(storedColumns));
    expect(a.map((x: { name: string; type: string }) => [x.name, x.type])).toEqual([
      ['id', 'identifier'],
      ['x', 'numerical'],
      ['y', 'numerical'],
      ['site', 'categorical'],
      ['flag', 'categorical'],
    ]);
    expect(a[2].missing_count).toBe(2858);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });
});

describe('long number columns, written in pieces while the file is parsed', () => {
  // 3 x PIECE_ROWS + 8,000 rows (about 10 MB; three cuts, so that the parse waits once for the writer): x and age are
  // numbers throughout (three pieces each, then the rest as a fourth), y turns to text after its pieces were written (they are
  // left out), site is text
  const n = 3 * PIECE_ROWS + 8_000;
  const lines = ['x,y,age,site'];
  for (let i = 0; i < n; i++) {
    lines.push(`${(Math.sin(i) * 1000).toFixed(6)},${i === n - 10 ? 'none' : i % 11 === 0 ? '' : i * 3},${18 + (i % 70)},${'abc'[i % 3]}`);
  }
  const csv = lines.join('\n') + '\n';
  const db = () => t.app.get(DataSource);

  it('stores columns that read back as parsed, whose pieces belong to the dataset and go with it', async () => {
    expect(csv.length).toBeGreaterThan(8 * 2 ** 20); // large enough to be read by a thread of its own
    const id = await uploadDataset(t, owner.auth, projectId, csv);
    const data = await t.app.get(ColumnStore).loadForEngine(id);
    expect(data.sampleCount).toBe(n);
    const [x, y, age] = data.columns as [NumericColumn, CodedColumn, NumericColumn];
    expect([x.name, x.type, y.type, age.type]).toEqual(['x', 'numerical', 'categorical', 'numerical']);
    // every value, across the piece's end
    expect(x.values).toEqual(Float64Array.from({ length: n }, (_, i) => Number((Math.sin(i) * 1000).toFixed(6))));
    expect(age.values).toEqual(Float64Array.from({ length: n }, (_, i) => 18 + (i % 70)));
    expect(y.levels.includes('none')).toBe(true);
    // counted on two threads at the end of the parse: the same counts as one pass over the values
    const f = expectSuccess(await t.http().get(`${API}/dataset/${id}/features`).set('Authorization', owner.auth));
    expect(f.features.map((c: { distinctCount: number }) => c.distinctCount)).toEqual([new Set(x.values).size, y.levels.length, 70, 3]);
    const stored = await db().query(
      `SELECT c.name, c.pieces, octet_length(c.data) AS rest, count(p.piece)::int AS held, coalesce(sum(octet_length(p.data)), 0)::int AS bytes
         FROM dataset_columns c LEFT JOIN dataset_column_pieces p ON p.dataset_id = c.dataset_id AND p.idx = c.idx
        WHERE c.dataset_id = $1 GROUP BY c.idx, c.name, c.pieces, c.data ORDER BY c.idx`,
      [id],
    );
    expect(stored.map(({ name, pieces, held }: { name: string; pieces: number; held: number }) => [name, pieces, held])).toEqual([
      ['x', 4, 4],
      ['y', 0, 0],
      ['age', 4, 4],
      ['site', 0, 0],
    ]);
    // x's measurements barely deflate: raw, in stored blocks; age's small integers deflate; both then end in an empty final block
    const [xs, , ages] = stored as { rest: number; bytes: number }[];
    expect(xs.bytes).toBeGreaterThan(n * 8);
    expect(ages.bytes).toBeLessThan(n * 2);
    expect([xs.rest, ages.rest]).toEqual([2, 2]);
    // y's pieces, written before it turned to text, were deleted with the build's other loose pieces
    expect(await db().query('SELECT count(*)::int AS n FROM dataset_column_pieces WHERE dataset_id IS NULL')).toEqual([{ n: 0 }]);
    // its size counts the pieces
    const ds = expectSuccess(await t.http().get(`${API}/dataset/${id}`).set('Authorization', owner.auth));
    expect(ds.sizeInBytes).toBeGreaterThan(xs.bytes + ages.bytes);
    // the analysis path reads the same columns through readPacked (a data check of every column)
    const check = await t.app.get(ColumnStore).readPacked(id, new Set(['x', 'age']), async (count, columns, pieces) => {
      let bytes = 0;
      for await (const p of pieces) bytes += p.piece.length;
      return { count, bytes, declared: columns.reduce((a, c) => a + c.bytes, 0) };
    });
    expect(check.bytes).toBe(check.declared);
    expectSuccess(await t.http().post(`${API}/dataset/${id}/delete`).set('Authorization', owner.auth));
    expect(await db().query('SELECT count(*)::int AS n FROM dataset_column_pieces')).toEqual([{ n: 0 }]);
  });

  it('leaves no piece behind when the file turns out bad after its first pieces were written', async () => {
    const bad = lines.slice(0, PIECE_ROWS + 2).join('\n') + '\n1,2\n';
    const task = await uploadTask(t, owner.auth, projectId, bad);
    expect(task.state).toBe('failed');
    expect(task.error?.message).toMatch(/line \d+: 2 fields/);
    expect(await db().query('SELECT count(*)::int AS n FROM dataset_column_pieces WHERE dataset_id IS NULL')).toEqual([{ n: 0 }]);
  });

  it('stores a file shorter than a cut whose numbers were parsed into shared memory: a raw column reads back', async () => {
    // 60,000 rows: no cut, so the columns are packed whole at the end; v's many digits barely deflate, so it is kept
    // raw (stored blocks), a view of the parse's shared memory handed through the engine process's pipe
    const rows = 60_000;
    const v = Float64Array.from({ length: rows }, (_, i) => Number((Math.sin(i * 1.7) * 123456.789).toFixed(9)));
    const small = ['v,k', ...Array.from(v, (x, i) => `${x},${i % 5}`)].join('\n') + '\n';
    const id = await uploadDataset(t, owner.auth, projectId, small);
    const stored = await db().query(
      'SELECT name, pieces, octet_length(data) AS bytes FROM dataset_columns WHERE dataset_id = $1 ORDER BY idx',
      [id],
    );
    expect(stored.map((c: { name: string; pieces: unknown }) => [c.name, c.pieces])).toEqual([
      ['v', 0],
      ['k', 0],
    ]);
    expect(stored[0].bytes).toBeGreaterThan(rows * 8);
    expect(stored[1].bytes).toBeLessThan(rows);
    const data = await t.app.get(ColumnStore).loadForEngine(id);
    expect((data.columns[0] as NumericColumn).values).toEqual(v);
    expect((data.columns[1] as NumericColumn).values).toEqual(Float64Array.from({ length: rows }, (_, i) => i % 5));
  });

  it('sweeps the loose pieces of ended builds (a writer that committed after its build was let go), and only those', async () => {
    // an ended build (the small file's task, finished) and one still running, each with a loose piece; one attached
    const ended = await uploadTask(t, owner.auth, projectId, 'a,b\n1,2\n3,4\n');
    expect(ended.state).toBe('finished');
    const [running] = await db().query(
      `INSERT INTO tasks (kind, user_id, project_id, state) VALUES ('createDataset', $1, $2, 'running') RETURNING id`,
      [owner.userId, projectId],
    );
    const piece = `INSERT INTO dataset_column_pieces (build, task_id, dataset_id, idx, piece, data) VALUES (gen_random_uuid(), $1, $2, 0, 0, '\\x00')`;
    await db().query(piece, [ended.taskId, null]);
    await db().query(piece, [running.id, null]);
    await db().query(piece, [null, ended.datasetId]);
    const left = () =>
      db().query(
        `SELECT task_id::text AS task, dataset_id::text AS dataset FROM dataset_column_pieces WHERE task_id IN ($1, $2) OR dataset_id = $3 ORDER BY 1, 2`,
        [ended.taskId, running.id, ended.datasetId],
      );
    expect(await left()).toHaveLength(3);
    await t.app.get(FilesService).sweep();
    expect(await left()).toEqual([
      { task: String(running.id), dataset: null },
      { task: null, dataset: ended.datasetId },
    ]);
    await db().query('DELETE FROM tasks WHERE id = $1', [running.id]);
  });
});

describe('a failure while the columns are written', () => {
  it('leaves no dataset and no column when the engine process dies halfway through a column (its pipe closes)', async () => {
    const db = t.app.get(DataSource);
    const pipe = new PassThrough();
    const cut = new PipedBytes(1 << 20, new BlobReader(pipe), Promise.resolve(), () => undefined);
    const table: TypedTable = {
      sampleCount: 131_072,
      columns: [
        { name: 'whole', type: 'numerical', encoding: 'f64', packed: Buffer.alloc(1000, 1), missingCount: 0, distinctCount: 1 },
        { name: 'cut', type: 'numerical', encoding: 'f64', packed: cut, missingCount: 0, distinctCount: 1 },
      ],
    };
    pipe.write(Buffer.alloc(300_000, 2));
    setTimeout(() => pipe.destroy(), 100);
    const name = 'cut-midway';
    await expect(db.transaction((tx) => t.app.get(ColumnStore).write(tx, { projectId, name, description: null }, table))).rejects.toThrow(
      'the data pipe closed',
    );
    expect(await db.query('SELECT count(*)::int AS n FROM datasets WHERE name = $1', [name])).toEqual([{ n: 0 }]);
    expect(await db.query('SELECT count(*)::int AS n FROM dataset_columns WHERE name = $1', ['whole'])).toEqual([{ n: 0 }]);
  });

  it("rejects a COPY the server refuses with the server's error, and the connection serves its next query", async () => {
    const db = t.app.get(DataSource);
    const refused = db.transaction(async (tx) => {
      await tx.query('CREATE TEMP TABLE copied (n int NOT NULL)');
      async function* rows() {
        yield Buffer.from('1\n2\n');
        yield Buffer.from('\\N\n'); // NULL into a NOT NULL column
      }
      await copyIn(clientOf(tx), 'COPY copied (n) FROM STDIN', rows());
    });
    await expect(refused).rejects.toThrow('null value');
    const copied = await db.transaction(async (tx) => {
      await tx.query('CREATE TEMP TABLE copied2 (n int NOT NULL)');
      const n = await copyIn(
        clientOf(tx),
        'COPY copied2 (n) FROM STDIN',
        (async function* () {
          yield Buffer.from('1\n2\n3\n');
          // a list of pieces goes as one message, in order
          yield [Buffer.from('4'), Buffer.from('0\n5'), Buffer.from('0\n')];
        })(),
      );
      return { n, rows: await tx.query('SELECT sum(n)::int AS s FROM copied2') };
    });
    expect(copied).toEqual({ n: 5, rows: [{ s: 96 }] });
  });
});

describe('feature types', () => {
  it('changes types, refusing impossible ones', async () => {
    const csv = 'time,status,group,score\n5,1,a,1\n7,2,b,2\n9,1,a,3\n11,2,c,-1\n';
    const id = await uploadDataset(t, owner.auth, projectId, csv);
    const change = (featureTypes: object) =>
      t.http().post(`${API}/dataset/${id}/changeFeatureTypes`).set('Authorization', owner.auth).send({ featureTypes });
    const ok = expectSuccess(await change({ status: 'event', time: 'timeToEvent', score: 'categorical' }));
    expect(ok.features.map((x: { type: string }) => x.type)).toEqual(['timeToEvent', 'event', 'categorical', 'categorical']);
    // checked on an engine process the column's labels or values are streamed to, with the column's own reason
    expect(expectError(await change({ group: 'numerical' }), 'badRequest-110-3-2').message).toBe(
      '"group" holds text ("a"), so it cannot be numerical',
    );
    expectError(await change({ group: 'event' }), 'badRequest-110-3-2'); // three values
    expect(expectError(await change({ score: 'timeToEvent' }), 'badRequest-110-3-2').message).toBe(
      '"score" has negative values, so it cannot be a time to event',
    );
    expectError(await change({ missing: 'numerical' }), 'badRequest-110-3-1');
    expectError(await change({ group: 'text' }), 'badRequest-110-3-3');
    expect(expectSuccess(await change({})).features).toHaveLength(4);
    expectError(
      await t.http().post(`${API}/dataset/${id}/changeFeatureTypes`).set('Authorization', owner.auth).send({}),
      'badRequest-1-0-5',
    );
    // back to numerical: a categorical column of numbers can be numerical again
    const back = expectSuccess(await change({ score: 'numerical' }));
    expect(back.features[3]).toEqual({ name: 'score', type: 'numerical', missingCount: 0, distinctCount: 4 });
    const data = await t.app.get(ColumnStore).loadForEngine(id);
    expect(Array.from((data.columns[3] as { values: Float64Array }).values)).toEqual([1, 2, 3, -1]);
    // numbers stored as text labels (typed categorical at upload): their labels are what is checked
    const coded = await uploadDataset(t, owner.auth, projectId, 'x,lag\n1,-2.5\n2,3\n3, 4e0 \n', { featureTypes: { lag: 'categorical' } });
    const changeCoded = (featureTypes: object) =>
      t.http().post(`${API}/dataset/${coded}/changeFeatureTypes`).set('Authorization', owner.auth).send({ featureTypes });
    expect(expectError(await changeCoded({ lag: 'timeToEvent' }), 'badRequest-110-3-2').message).toBe(
      '"lag" has negative values, so it cannot be a time to event',
    );
    expect(expectSuccess(await changeCoded({ lag: 'numerical', x: 'timeToEvent' })).features.map((f: { type: string }) => f.type)).toEqual([
      'timeToEvent',
      'numerical',
    ]);
  });
});

describe('upload', () => {
  it('stores the body as the file whatever its Content-Type, and replaces a file uploaded again under one id', async () => {
    const json = '{"looks":"like json"}';
    const up = await t
      .http()
      .post(`${API}/file/same-id/upload`)
      .set('Authorization', owner.auth)
      .set('Content-Type', 'application/json')
      .send(json);
    expect(expectSuccess(up)).toEqual({ fileId: 'same-id', sizeInBytes: json.length });
    const csv = 'a,b\n1,2\n';
    const again = await t
      .http()
      .post(`${API}/file/same-id/upload`)
      .set('Authorization', owner.auth)
      .set('Content-Type', 'text/csv')
      .send(csv);
    expect(expectSuccess(again)).toEqual({ fileId: 'same-id', sizeInBytes: csv.length });
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM files WHERE file_id = 'same-id'`);
    expect(n).toBe(1);
    expectError(await t.http().post(`${API}/file/bad%20id/upload`).set('Authorization', owner.auth).send('x'), 'badRequest-115-0-1');
    expect((await t.http().post(`${API}/file/any/upload`).send('x')).status).toBe(403);
  });
});
