import type request from 'supertest';
import { Jimp } from 'jimp';
import { deflateSync } from 'node:zlib';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IMAGE_FEATURES } from '../src/image-upload/image-features';
import { readImageHeader } from '../src/image-upload/image-format';
import { ImageUploadExpiry } from '../src/image-upload/image-upload-expiry';
import {
  API,
  createProject,
  createTestApp,
  createUser,
  expectError,
  expectSuccess,
  pngOfSize,
  pollUntil,
  TestApp,
  uploadDataset,
  uploadTask,
} from './utils';
import { pngChunk as chunk } from '../bench/hostile-images';

/** The image dataset flow through HTTP: init, add, commit, status; then the dataset it makes. */

type Mime = 'image/png' | 'image/jpeg' | 'image/bmp' | 'image/tiff';

/** A small real image: a gray gradient on a colored background, `width` wide. */
async function image(mime: Mime, width: number, height = 6, rgba = 0x3366ccff): Promise<Buffer> {
  const img = new Jimp({ width, height, color: rgba });
  for (let x = 0; x < width; x++) img.setPixelColor(((x * 40) % 256) * 0x01010100 + 0xff, x, 0);
  return img.getBuffer(mime);
}

/** A PNG chunk: length, type, data, CRC. */
let t: TestApp;
let owner: Awaited<ReturnType<typeof createUser>>;
beforeAll(async () => {
  t = await createTestApp();
  owner = await createUser(t);
});
afterAll(async () => {
  await t.close();
});

interface Attributes {
  projectId?: unknown;
  name?: unknown;
  description?: unknown;
  hasFeatureHeaders?: unknown;
}

function init(auth: string, csv: string | Buffer | undefined, attributes: Attributes | string | undefined, app: TestApp = t) {
  const req = app.http().post(`${API}/image/initUpload`).set('Authorization', auth);
  if (attributes !== undefined) req.field('attributes', typeof attributes === 'string' ? attributes : JSON.stringify(attributes));
  if (csv !== undefined) req.attach('file', typeof csv === 'string' ? Buffer.from(csv) : csv, 'labels.csv');
  return req;
}

function add(
  auth: string,
  taskId: string,
  sampleId: string | undefined,
  file: Buffer | undefined,
  filename = 'image.png',
  app: TestApp = t,
) {
  const req = app.http().post(`${API}/image/${taskId}/add`).set('Authorization', auth);
  if (sampleId !== undefined) req.field('sampleId', sampleId);
  if (file !== undefined) req.attach('file', file, filename);
  return req;
}

interface Status {
  taskId: string;
  state: string;
  datasetId?: string;
  error?: { code: string; message: string };
}

/** The error envelope with `code`; its message. */
function errorMessage(res: { status: number; body: { code?: string; status?: string; message?: string } }, code: string): string {
  expectError(res, code);
  return String(res.body.message);
}

const get = (auth: string, path: string) =>
  t
    .http()
    .get(API + path)
    .set('Authorization', auth);

const LABELS = 'id,label,age\ns1,cat,3\ns2,dog,5\ns3,cat,2\ns4,dog,7\n';

async function openTask(projectId: string, csv = LABELS, name = `scans-${Math.random().toString(36).slice(2, 8)}`): Promise<string> {
  return expectSuccess<{ taskId: string }>(await init(owner.auth, csv, { projectId: Number(projectId), name })).taskId;
}

async function taskRows(projectId: string): Promise<number> {
  const [r] = await t.db.query(`SELECT count(*)::int AS n FROM tasks WHERE project_id = $1`, [projectId]);
  return r.n;
}

describe('full flow', () => {
  it('init with 4 samples, 4 images of 4 formats, commit, finished: the dataset has the labels, the id and the img_ features', async () => {
    const projectId = await createProject(t, owner.auth, 'images');
    const init1 = expectSuccess(
      await init(owner.auth, LABELS, { projectId: Number(projectId), name: 'scans', description: 'four pets', hasFeatureHeaders: true }),
    );
    expect(init1).toEqual({ taskId: expect.stringMatching(/^[1-9][0-9]*$/) });
    const { taskId } = init1;
    expect(expectSuccess(await get(owner.auth, `/image/${taskId}/status`))).toEqual({ taskId, state: 'pending' });

    const files: [string, Buffer, string][] = [
      ['s1', await image('image/png', 2), 's1.png'],
      ['s2', await image('image/jpeg', 3), 's2.jpg'],
      ['s3', await image('image/bmp', 4), 's3.bmp'],
      ['s4', await image('image/tiff', 5), 's4.tif'],
    ];
    for (const [sampleId, buf, name] of files) {
      expect(expectSuccess(await add(owner.auth, taskId, sampleId, buf, name))).toEqual({ taskId });
    }
    expect(expectSuccess(await get(owner.auth, `/image/${taskId}/commit`))).toEqual({});

    const done = await pollUntil<Status>(t, owner.auth, `/image/${taskId}/status`, (p) => p.state !== 'running');
    expect(done).toEqual({ taskId, state: 'finished', datasetId: expect.stringMatching(/^[1-9][0-9]*$/) });
    // the tabular task status route reads the same task
    expect(expectSuccess(await get(owner.auth, `/task/${taskId}/status`))).toEqual(done);

    const ds = expectSuccess(await get(owner.auth, `/dataset/${done.datasetId}`));
    expect(ds).toEqual({
      datasetId: done.datasetId,
      projectId,
      name: 'scans',
      description: 'four pets',
      sampleCount: 4,
      featureCount: 3 + IMAGE_FEATURES.length,
      sizeInBytes: expect.any(Number),
    });
    const { features } = expectSuccess(await get(owner.auth, `/dataset/${done.datasetId}/features`));
    expect(features.slice(0, 3)).toEqual([
      { name: 'id', type: 'identifier', missingCount: 0, distinctCount: 4 },
      { name: 'label', type: 'categorical', missingCount: 0, distinctCount: 2 },
      { name: 'age', type: 'numerical', missingCount: 0, distinctCount: 4 },
    ]);
    const img = features.slice(3);
    expect(img.map((f: { name: string }) => f.name)).toEqual([...IMAGE_FEATURES]);
    expect(img.every((f: { type: string; missingCount: number }) => f.type === 'numerical' && f.missingCount === 0)).toBe(true);
    // the widths 2, 3, 4, 5 and the single height 6 came out of the decoded images
    expect(img.find((f: { name: string }) => f.name === 'img_width').distinctCount).toBe(4);
    expect(img.find((f: { name: string }) => f.name === 'img_height').distinctCount).toBe(1);

    // the images are not kept once the dataset exists
    const [left] = await t.db.query(
      `SELECT (SELECT count(*)::int FROM image_samples WHERE task_id = $1) AS samples,
              (SELECT count(*)::int FROM image_uploads WHERE task_id = $1) AS uploads`,
      [taskId],
    );
    expect(left).toEqual({ samples: 0, uploads: 0 });
  });

  it('reads the init file without a header row: the first row is a sample, columns are named sampleId, feature_2...', async () => {
    const projectId = await createProject(t, owner.auth, 'no-header');
    const { taskId } = expectSuccess(
      await init(owner.auth, '007,cat\n008,dog\n', { projectId: String(projectId), name: 'noheader', hasFeatureHeaders: false }),
    );
    // ids are kept as written (leading zeros included)
    expectSuccess(await add(owner.auth, taskId, '007', await image('image/png', 3)));
    expectSuccess(await add(owner.auth, taskId, '008', await image('image/png', 4)));
    expectSuccess(await get(owner.auth, `/image/${taskId}/commit`));
    const done = await pollUntil<Status>(t, owner.auth, `/image/${taskId}/status`, (p) => p.state !== 'running');
    expect(done.state).toBe('finished');
    const { features } = expectSuccess(await get(owner.auth, `/dataset/${done.datasetId}/features`));
    expect(features.slice(0, 2).map((f: { name: string; type: string }) => [f.name, f.type])).toEqual([
      ['sampleId', 'identifier'],
      ['feature_2', 'categorical'],
    ]);
    expect(features).toHaveLength(2 + IMAGE_FEATURES.length);
  });

  it('fails the task naming the sample when an image passes the header check but cannot be decoded; its images go as it fails', async () => {
    const projectId = await createProject(t, owner.auth, 'broken');
    const taskId = await openTask(projectId, 'id\nok\nbroken\n');
    const good = await image('image/png', 3);
    // a sound PNG (its data inflates to the 6 rows of 1 + 3 x 4 bytes its header needs) whose rows name a filter that does not exist
    const broken = Buffer.concat([good.subarray(0, 33), chunk('IDAT', deflateSync(Buffer.alloc(78, 9))), chunk('IEND', Buffer.alloc(0))]);
    expect(readImageHeader(broken)).toEqual({ mime: 'image/png', width: 3, height: 6 });
    expectSuccess(await add(owner.auth, taskId, 'ok', good));
    expectSuccess(await add(owner.auth, taskId, 'broken', broken, 'broken.png'));
    const left = async () =>
      (
        await t.db.query(
          `SELECT (SELECT count(*)::int FROM datasets WHERE project_id = $1) AS datasets,
                  (SELECT count(*)::int FROM image_samples WHERE task_id = $2) AS samples,
                  (SELECT count(*)::int FROM image_upload_bytes WHERE task_id = $2) AS counters`,
          [projectId, taskId],
        )
      )[0];
    // a transaction of the test holds the sample rows, so the clean-up that deletes them waits: the failure must wait with it
    const holder = t.db.createQueryRunner();
    await holder.connect();
    try {
      await holder.startTransaction();
      await holder.query('SELECT 1 FROM image_samples WHERE task_id = $1 FOR UPDATE', [taskId]);
      expectSuccess(await get(owner.auth, `/image/${taskId}/commit`));
      const waiting = async () =>
        (
          await t.db.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'DELETE FROM image_samples%'`,
          )
        )[0].n;
      for (const end = Date.now() + 30_000; (await waiting()) === 0;) {
        expect(Date.now()).toBeLessThan(end);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(expectSuccess<Status>(await get(owner.auth, `/image/${taskId}/status`)).state).toBe('running');
    } finally {
      await holder.rollbackTransaction().catch(() => undefined);
      await holder.release();
    }
    const done = await pollUntil<Status>(t, owner.auth, `/image/${taskId}/status`, (p) => p.state !== 'running');
    expect(done).toEqual({ taskId, state: 'failed', error: { code: 'badRequest-130-4-1', message: expect.stringContaining('"broken"') } });
    expect(await left()).toEqual({ datasets: 0, samples: 0, counters: 0 });
  });
});

describe('analysis on an image dataset', () => {
  it('a classification analysis runs on the img_ features and the label', async () => {
    const projectId = await createProject(t, owner.auth, 'analysed');
    const ids = Array.from({ length: 16 }, (_, i) => `p${i + 1}`);
    const csv = 'id,label\n' + ids.map((id, i) => `${id},${i % 2 ? 'bright' : 'dark'}`).join('\n') + '\n';
    const taskId = await openTask(projectId, csv, 'bright-or-dark');
    for (let i = 0; i < ids.length; i++) {
      const level = i % 2 ? 200 + i : 30 + i;
      const color = ((level * 0x010101) << 8) + 0xff;
      expectSuccess(await add(owner.auth, taskId, ids[i], await image('image/png', 4 + (i % 3), 4, color >>> 0)));
    }
    expectSuccess(await get(owner.auth, `/image/${taskId}/commit`));
    const done = await pollUntil<Status>(t, owner.auth, `/image/${taskId}/status`, (p) => p.state !== 'running');
    expect(done.state).toBe('finished');
    const { analysisId } = expectSuccess(
      await t
        .http()
        .post(`${API}/dataset/${done.datasetId}/analyze`)
        .set('Authorization', owner.auth)
        .send({ outcome: { classification: 'label' }, thoroughness: 'preliminary', coreCount: 1, name: 'images' }),
    );
    const status = await pollUntil<{ state: string }>(
      t,
      owner.auth,
      `/analysis/${analysisId}/status`,
      (s) => s.state === 'finished' || s.state === 'failed',
      120_000,
    );
    expect(status.state).toBe('finished');
    // the brightness features separate the classes: the models' signatures name img_ features
    const result = expectSuccess(await get(owner.auth, `/analysis/${analysisId}/result`));
    expect(JSON.stringify(result.models)).toMatch(/"img_(mean|hist|grid)_/);
  }, 150_000);
});

describe('image features', () => {
  it('reads the format and dimensions of each accepted format by content, and nothing else', async () => {
    for (const mime of ['image/png', 'image/jpeg', 'image/bmp', 'image/tiff'] as const) {
      expect(readImageHeader(await image(mime, 7, 5))).toEqual({ mime, width: 7, height: 5 });
    }
    expect(readImageHeader(Buffer.from('not an image, just text'))).toBeUndefined();
    expect(readImageHeader(await new Jimp({ width: 2, height: 2, color: 0xffffffff }).getBuffer('image/gif'))).toBeUndefined();
    expect(readImageHeader((await image('image/png', 4)).subarray(0, 20))).toBeUndefined();
  });
});

describe('init errors (and nothing left behind)', () => {
  let projectId: string;
  beforeAll(async () => {
    projectId = await createProject(t, owner.auth, 'init-errors');
    await uploadDataset(t, owner.auth, projectId, 'a,b\n1,2\n3,4\n', { name: 'taken' });
  });

  it.each<[string, string | Buffer | undefined, Attributes | string | undefined | ((p: string) => Attributes), string]>([
    ['attributes not JSON', LABELS, '{projectId: 1', 'badRequest-1-0-4'],
    ['attributes a JSON array', LABELS, '[1,2]', 'badRequest-1-0-4'],
    ['attributes missing', LABELS, undefined, 'badRequest-1-0-5'],
    ['projectId missing', LABELS, { name: 'scans' }, 'badRequest-1-0-5'],
    ['projectId not a positive integer', LABELS, { projectId: 'abc', name: 'scans' }, 'badRequest-1-0-6'],
    ['projectId negative', LABELS, { projectId: -3, name: 'scans' }, 'badRequest-1-0-6'],
    ['unknown project', LABELS, { projectId: 987654321, name: 'scans' }, 'notFound-100-1-1'],
    ['name too short', LABELS, (p) => ({ projectId: Number(p), name: 'ab' }), 'badRequest-110-0-2'],
    ['name too long', LABELS, (p) => ({ projectId: Number(p), name: 'x'.repeat(61) }), 'badRequest-110-0-2'],
    ['name missing', LABELS, (p) => ({ projectId: Number(p) }), 'badRequest-1-0-5'],
    ['description too long', LABELS, (p) => ({ projectId: Number(p), name: 'scans', description: 'd'.repeat(256) }), 'badRequest-110-0-3'],
    [
      'hasFeatureHeaders not a boolean',
      LABELS,
      (p) => ({ projectId: Number(p), name: 'scans', hasFeatureHeaders: 'yes' }),
      'badRequest-1-0-6',
    ],
    ['unknown attribute', LABELS, (p) => ({ projectId: Number(p), name: 'scans', color: 'red' }), 'badRequest-1-0-7'],
    ['name already used', LABELS, (p) => ({ projectId: Number(p), name: 'taken' }), 'conflict-110-0-1'],
    ['file missing', undefined, (p) => ({ projectId: Number(p), name: 'scans' }), 'badRequest-1-0-5'],
    ['duplicate sample id', 'id,label\ns1,a\ns2,b\ns1,c\n', (p) => ({ projectId: Number(p), name: 'scans' }), 'badRequest-130-0-2'],
    ['empty sample id', 'id,label\ns1,a\n ,b\n', (p) => ({ projectId: Number(p), name: 'scans' }), 'badRequest-130-0-2'],
    ['ragged rows', 'id,label\ns1,a\ns2,b,extra\n', (p) => ({ projectId: Number(p), name: 'scans' }), 'badRequest-130-0-1'],
    ['header only', 'id,label\n', (p) => ({ projectId: Number(p), name: 'scans' }), 'badRequest-130-0-1'],
    ['empty file', '', (p) => ({ projectId: Number(p), name: 'scans' }), 'badRequest-130-0-1'],
    [
      'not UTF-8',
      Buffer.from([0x69, 0x64, 0x0a, 0xff, 0xfe, 0x0a]),
      (p) => ({ projectId: Number(p), name: 'scans' }),
      'badRequest-130-0-1',
    ],
    ['a column named img_*', 'id,img_width\ns1,3\n', (p) => ({ projectId: Number(p), name: 'scans' }), 'badRequest-130-0-3'],
  ])('%s', async (_name, csv, attributes, code) => {
    const attrs = typeof attributes === 'function' ? attributes(projectId) : attributes;
    const message = errorMessage(await init(owner.auth, csv, attrs), code);
    expect(message.length).toBeGreaterThan(0);
    expect(await taskRows(projectId)).toBe(1); // only the tabular upload's task of beforeAll
  });

  it("describes a broken init file in the service's words, not the CSV parser's", async () => {
    const at = async (csv: string) =>
      errorMessage(await init(owner.auth, csv, { projectId: Number(projectId), name: 'quotes' }), 'badRequest-130-0-1');
    expect(await at('id,label\ns1,x"y\ns2,z\n')).toMatch(/^the init file: line 2: a quote inside a field that does not start with one/);
    expect(await at('id,label\ns1,"x"y\n')).toMatch(/^the init file: line 2: text after the closing quote of a field/);
    expect(await at('id,label\ns1,a,b\n')).toBe(
      'the init file: line 2: 3 fields where the first row has 2 (every row must have as many; is the separator "," right?)',
    );
  });

  it('names the row of a duplicate sample id', async () => {
    const message = errorMessage(
      await init(owner.auth, 'id\na\nb\na\n', { projectId: Number(projectId), name: 'dups' }),
      'badRequest-130-0-2',
    );
    expect(message).toContain('"a"');
    expect(message).toContain('rows 1 and 3');
  });

  it('refuses a second file part and other form fields with malformed-body or unknown-field codes', async () => {
    const twoFiles = t
      .http()
      .post(`${API}/image/initUpload`)
      .set('Authorization', owner.auth)
      .field('attributes', JSON.stringify({ projectId: Number(projectId), name: 'scans' }))
      .attach('file', Buffer.from(LABELS), 'a.csv')
      .attach('file', Buffer.from(LABELS), 'b.csv');
    expectError(await twoFiles, 'badRequest-1-0-4');
    const otherPart = t
      .http()
      .post(`${API}/image/initUpload`)
      .set('Authorization', owner.auth)
      .field('attributes', JSON.stringify({ projectId: Number(projectId), name: 'scans' }))
      .attach('image', Buffer.from(LABELS), 'a.csv');
    expectError(await otherPart, 'badRequest-1-0-4');
    const extraField = init(owner.auth, LABELS, { projectId: Number(projectId), name: 'scans' }).field('color', 'red');
    expectError(await extraField, 'badRequest-1-0-7');
    expect(await taskRows(projectId)).toBe(1);
  });

  it('needs write permission on the project: a stranger and a read-only user get 403, a writer may', async () => {
    const stranger = await createUser(t);
    const reader = await createUser(t);
    const writer = await createUser(t);
    await t.db.query(
      `INSERT INTO project_shares (project_id, user_id, can_read, can_write, can_execute) VALUES ($1, $2, true, false, false), ($1, $3, true, true, false)`,
      [projectId, reader.userId, writer.userId],
    );
    const attrs = { projectId: Number(projectId), name: 'shared-scans' };
    expect((await init(stranger.auth, LABELS, attrs)).status).toBe(403);
    expect((await init(reader.auth, LABELS, attrs)).status).toBe(403);
    expect((await init('Bearer nope', LABELS, attrs)).status).toBe(403);
    expect(await taskRows(projectId)).toBe(1);
    const { taskId } = expectSuccess(await init(writer.auth, LABELS, attrs));
    const [row] = await t.db.query(`SELECT kind, state, user_id, project_id FROM tasks WHERE id = $1`, [taskId]);
    expect(row).toEqual({ kind: 'imageUpload', state: 'pending', user_id: writer.userId, project_id: projectId });
  });
});

describe('add and commit errors', () => {
  let projectId: string;
  beforeAll(async () => {
    projectId = await createProject(t, owner.auth, 'add-errors');
  });

  it('refuses an unknown sampleId, a non-image named .png, a GIF, a second image, a missing part', async () => {
    const taskId = await openTask(projectId);
    const png = await image('image/png', 3);
    expectError(await add(owner.auth, taskId, 's9', png), 'badRequest-130-2-1');
    expectError(await add(owner.auth, taskId, 's1', Buffer.from('id,label\nhello,world\n'), 'photo.png'), 'badRequest-130-2-2');
    const gif = await new Jimp({ width: 2, height: 2, color: 0xffffffff }).getBuffer('image/gif');
    expectError(await add(owner.auth, taskId, 's1', gif, 'photo.jpg'), 'badRequest-130-2-2');
    expectError(await add(owner.auth, taskId, undefined, png), 'badRequest-1-0-5');
    expectError(await add(owner.auth, taskId, 's1', undefined), 'badRequest-1-0-5');
    // a BMP named .png is a BMP: the content decides
    expectSuccess(await add(owner.auth, taskId, 's1', await image('image/bmp', 3), 'really-a-bmp.png'));
    expectError(await add(owner.auth, taskId, 's1', png), 'conflict-130-2-3');
    const [row] = await t.db.query(`SELECT mime FROM image_samples WHERE task_id = $1 AND sample_id = 's1'`, [taskId]);
    expect(row.mime).toBe('image/bmp');
  });

  it('stores an image byte for byte, whether it arrived in memory or (over 1 MiB) in a spool file, which is removed', async () => {
    const taskId = await openTask(projectId);
    const images = { s1: pngOfSize(20_000), s2: pngOfSize(1_500_000) };
    for (const [sampleId, png] of Object.entries(images)) {
      expectSuccess(await add(owner.auth, taskId, sampleId, png));
      const [row] = await t.db.query('SELECT image FROM image_samples WHERE task_id = $1 AND sample_id = $2', [taskId, sampleId]);
      expect(Buffer.compare(row.image as Buffer, png)).toBe(0);
    }
    expect(fs.readdirSync(path.join(t.config.dataDir, 'spool'))).toEqual([]);
  });

  it('refuses crafted PNGs before anything decodes them: a second IHDR past the pixel limit, data inflating beyond its header (a zlib bomb)', async () => {
    const taskId = await openTask(projectId);
    const ihdr = (w: number, h: number, interlaced: boolean) => {
      const d = Buffer.alloc(13);
      d.writeUInt32BE(w, 0);
      d.writeUInt32BE(h, 4);
      d[8] = 8; // bit depth
      d[9] = 6; // RGBA
      d[12] = interlaced ? 1 : 0;
      return chunk('IHDR', d);
    };
    const png = (...chunks: Buffer[]) =>
      Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ...chunks, chunk('IEND', Buffer.alloc(0))]);
    // 16 x 16 RGBA interlaced: the seven Adam7 passes hold 2 + 2 + 4 + 8 + 16 + 32 + 64 rows' bytes and filter bytes
    const passes = [
      [2, 2],
      [2, 2],
      [4, 2],
      [4, 4],
      [8, 4],
      [8, 8],
      [16, 8],
    ].reduce((n, [w, h]) => n + h * (1 + 4 * w), 0);
    const fine = png(ihdr(16, 16, true), chunk('IDAT', deflateSync(Buffer.alloc(passes))));
    const secondIhdr = png(ihdr(4, 4, false), ihdr(12000, 12000, false), chunk('IDAT', deflateSync(Buffer.alloc(4 * 17))));
    const bomb = png(ihdr(16, 16, true), chunk('IDAT', deflateSync(Buffer.alloc(20 * 1048576))));
    expect(bomb.length).toBeLessThan(40_000);
    const refused = async (file: Buffer, why: string) =>
      expect(errorMessage(await add(owner.auth, taskId, 's1', file, 's1.png'), 'badRequest-130-2-2')).toContain(why);
    await refused(secondIhdr, 'it has a second IHDR header');
    await refused(bomb, 'its image data inflates to more than the 1054 bytes its 16 x 16 header needs');
    await refused(png(ihdr(16, 16, true), chunk('IDAT', deflateSync(Buffer.alloc(passes - 1)))), 'shorter than its header needs');
    expectSuccess(await add(owner.auth, taskId, 's1', fine, 's1.png'));
  });

  it('refuses a JPEG with a second frame header past the pixel limit (the decoder sized its buffers by it: 865 MB)', async () => {
    const taskId = await openTask(projectId);
    const jpg = await image('image/jpeg', 8, 8);
    const at = jpg.indexOf(Buffer.from([0xff, 0xc0]));
    const sof = jpg.subarray(at, at + 2 + jpg.readUInt16BE(at + 2));
    const big = Buffer.from(sof);
    big.writeUInt16BE(9000, 5);
    big.writeUInt16BE(9000, 7);
    const crafted = Buffer.concat([jpg.subarray(0, at + sof.length), big, jpg.subarray(at + sof.length)]);
    expect(readImageHeader(crafted)).toEqual({ mime: 'image/jpeg', width: 8, height: 8 });
    expect(errorMessage(await add(owner.auth, taskId, 's1', crafted, 's1.jpg'), 'badRequest-130-2-2')).toContain(
      'it has a second frame header (SOF)',
    );
    expectSuccess(await add(owner.auth, taskId, 's1', jpg, 's1.jpg'));
  });

  it("answers multipart faults of add in the service's words, not multer's or busboy's", async () => {
    const taskId = await openTask(projectId);
    const png = await image('image/png', 3);
    const post = () => t.http().post(`${API}/image/${taskId}/add`).set('Authorization', owner.auth);
    const fault = async (res: Promise<request.Response> | request.Test, message: string) =>
      expect(errorMessage(await res, 'badRequest-1-0-4')).toBe(message);
    await fault(post().field('sampleId', 's1').attach('image', png, 's1.png'), 'a file part must be named file');
    await fault(post().field('sampleId', 's1').attach('file', png, 'a.png').attach('file', png, 'b.png'), 'send one file part only');
    await fault(post().set('Content-Type', 'multipart/form-data').send('--x\r\n'), 'the body must be multipart/form-data with a boundary');
    await fault(
      post()
        .set('Content-Type', 'multipart/form-data; boundary=x')
        .send(
          '--x\r\nContent-Disposition: form-data; name="sampleId"\r\n\r\ns1\r\n--x\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nabc',
        ),
      'the multipart body ended before its closing boundary',
    );
    await fault(
      post()
        .field('sampleId', 's1')
        .field('note', 'x'.repeat(70 * 1024))
        .attach('file', png, 's1.png'),
      'a multipart field value is over 64 KiB',
    );
    expectSuccess(await add(owner.auth, taskId, 's1', png));
  });

  it('refuses a commit with samples lacking an image, naming how many and which; then commit once, and no add after it', async () => {
    const taskId = await openTask(projectId);
    expectSuccess(await add(owner.auth, taskId, 's2', await image('image/png', 3)));
    const missing = errorMessage(await get(owner.auth, `/image/${taskId}/commit`), 'badRequest-130-3-2');
    expect(missing).toContain('3 of 4');
    expect(missing).toContain('s1, s3, s4');
    expect(expectSuccess(await get(owner.auth, `/image/${taskId}/status`)).state).toBe('pending');

    for (const s of ['s1', 's3', 's4']) expectSuccess(await add(owner.auth, taskId, s, await image('image/jpeg', 4)));
    expect(expectSuccess(await get(owner.auth, `/image/${taskId}/commit`))).toEqual({});
    expectError(await get(owner.auth, `/image/${taskId}/commit`), 'conflict-130-3-1');
    expectError(await add(owner.auth, taskId, 's1', await image('image/png', 3)), 'conflict-130-2-4');
    const done = await pollUntil<Status>(t, owner.auth, `/image/${taskId}/status`, (p) => p.state !== 'running');
    expect(done.state).toBe('finished');
    expectError(await get(owner.auth, `/image/${taskId}/commit`), 'conflict-130-3-1');
  });

  it('unknown task: notFound-130-1-1, a dataset-creation task too; malformed id: badRequest-1-0-2', async () => {
    const png = await image('image/png', 3);
    expectError(await add(owner.auth, '987654321', 's1', png), 'notFound-130-1-1');
    expectError(await get(owner.auth, '/image/987654321/commit'), 'notFound-130-1-1');
    expectError(await get(owner.auth, '/image/987654321/status'), 'notFound-130-1-1');
    const tabular = await uploadTask(t, owner.auth, projectId, 'a,b\n1,2\n3,4\n');
    expectError(await add(owner.auth, tabular.taskId, 's1', png), 'notFound-130-1-1');
    expectError(await get(owner.auth, `/image/${tabular.taskId}/commit`), 'notFound-130-1-1');
    expectError(await get(owner.auth, `/image/${tabular.taskId}/status`), 'notFound-130-1-1');
    expectError(await add(owner.auth, 'abc', 's1', png), 'badRequest-1-0-2');
    expectError(await get(owner.auth, '/image/0/commit'), 'badRequest-1-0-2');
    expectError(await get(owner.auth, '/image/-1/status'), 'badRequest-1-0-2');
  });

  it('another user gets 403 on add, commit and status; a reader may read the status but not add or commit', async () => {
    const taskId = await openTask(projectId);
    const stranger = await createUser(t);
    const reader = await createUser(t);
    await t.db.query(
      `INSERT INTO project_shares (project_id, user_id, can_read, can_write, can_execute) VALUES ($1, $2, true, false, false)`,
      [projectId, reader.userId],
    );
    const png = await image('image/png', 3);
    expect((await add(stranger.auth, taskId, 's1', png)).status).toBe(403);
    expect((await get(stranger.auth, `/image/${taskId}/commit`)).status).toBe(403);
    expect((await get(stranger.auth, `/image/${taskId}/status`)).status).toBe(403);
    expect((await add(reader.auth, taskId, 's1', png)).status).toBe(403);
    expect((await get(reader.auth, `/image/${taskId}/commit`)).status).toBe(403);
    expect(expectSuccess(await get(reader.auth, `/image/${taskId}/status`))).toEqual({ taskId, state: 'pending' });
    const [row] = await t.db.query(`SELECT count(*)::int AS n FROM image_samples WHERE task_id = $1 AND image IS NOT NULL`, [taskId]);
    expect(row.n).toBe(0);
  });

  it('deleting the project deletes the task, its samples and images', async () => {
    const p = await createProject(t, owner.auth, 'to-delete');
    const taskId = await openTask(p);
    expectSuccess(await add(owner.auth, taskId, 's1', await image('image/png', 3)));
    expectSuccess(await t.http().post(`${API}/project/${p}/delete`).set('Authorization', owner.auth));
    const [left] = await t.db.query(
      `SELECT (SELECT count(*)::int FROM tasks WHERE id = $1) AS tasks,
              (SELECT count(*)::int FROM image_samples WHERE task_id = $1) AS samples,
              (SELECT count(*)::int FROM image_uploads WHERE task_id = $1) AS uploads`,
      [taskId],
    );
    expect(left).toEqual({ tasks: 0, samples: 0, uploads: 0 });
  });
});

describe('uploads never committed', () => {
  it('fail with conflict-130-5-1 once their init and last add are older than IMAGE_UPLOAD_EXPIRY_HOURS (24): images deleted, others kept', async () => {
    const projectId = await createProject(t, owner.auth, 'expiry');
    const stale = await openTask(projectId);
    const busy = await openTask(projectId);
    const fresh = await openTask(projectId);
    const committed = await openTask(projectId, 'id\nx1\n');
    for (const taskId of [stale, busy, fresh]) expectSuccess(await add(owner.auth, taskId, 's1', await image('image/png', 3)));
    expectSuccess(await add(owner.auth, committed, 'x1', await image('image/png', 3)));
    expectSuccess(await get(owner.auth, `/image/${committed}/commit`));
    expect((await pollUntil<Status>(t, owner.auth, `/image/${committed}/status`, (p) => p.state !== 'running')).state).toBe('finished');
    // stale: opened 30 hours ago, its one image added 25 hours ago; busy: opened 30 hours ago, an image added an hour ago
    await t.db.query(`UPDATE tasks SET created_at = now() - interval '30 hours' WHERE id = ANY($1::bigint[])`, [[stale, busy, committed]]);
    await t.db.query(`UPDATE image_samples SET added_at = now() - interval '25 hours' WHERE task_id = $1`, [stale]);
    await t.db.query(`UPDATE image_samples SET added_at = now() - interval '1 hour' WHERE task_id = $1`, [busy]);

    expect(await t.app.get(ImageUploadExpiry).sweep()).toEqual([stale]);
    const status = expectSuccess(await get(owner.auth, `/image/${stale}/status`));
    expect(status).toEqual({
      taskId: stale,
      state: 'failed',
      error: { code: 'conflict-130-5-1', message: expect.stringContaining('not committed within 24 hours (IMAGE_UPLOAD_EXPIRY_HOURS)') },
    });
    const rows = async (taskId: string) =>
      (
        await t.db.query(
          `SELECT (SELECT count(*)::int FROM image_samples WHERE task_id = $1) AS samples,
                  (SELECT count(*)::int FROM image_uploads WHERE task_id = $1) AS uploads`,
          [taskId],
        )
      )[0];
    expect(await rows(stale)).toEqual({ samples: 0, uploads: 0 });
    expect(await rows(busy)).toEqual({ samples: 4, uploads: 1 });
    expect(await rows(fresh)).toEqual({ samples: 4, uploads: 1 });
    for (const taskId of [busy, fresh]) expect(expectSuccess(await get(owner.auth, `/image/${taskId}/status`)).state).toBe('pending');
    expect(expectSuccess(await get(owner.auth, `/image/${committed}/status`)).state).toBe('finished');

    // an add or a commit after it says the upload expired, not that it was committed
    expect(errorMessage(await add(owner.auth, stale, 's2', await image('image/png', 3)), 'conflict-130-5-1')).toContain(
      'start a new upload',
    );
    expectError(await get(owner.auth, `/image/${stale}/commit`), 'conflict-130-5-1');
    // a second sweep finds nothing more
    expect(await t.app.get(ImageUploadExpiry).sweep()).toEqual([]);
  });
});

describe('spool files at start', () => {
  it('removes the spool files of a process that is gone (kill -9 during an init or add left them), keeps a live one', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-spool-'));
    const spool = path.join(dataDir, 'spool');
    fs.mkdirSync(spool);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    fs.writeFileSync(path.join(spool, `init-${dead}-1`), 'x'.repeat(1000));
    fs.writeFileSync(path.join(spool, `add-${dead}-2`), 'y');
    const live = `add-${process.pid}-3`;
    fs.writeFileSync(path.join(spool, live), 'z');
    const restarted = await createTestApp({ DATA_DIR: dataDir });
    try {
      expect(fs.readdirSync(spool)).toEqual([live]);
    } finally {
      await restarted.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('size limits', () => {
  let small: TestApp;
  beforeAll(async () => {
    small = await createTestApp({ MAX_IMAGE_BYTES: '2048', MAX_TABULAR_FILE_BYTES: '4096' });
  });
  afterAll(async () => {
    await small.close();
  });

  it('an init file over the limit or an image over MAX_IMAGE_BYTES gets badRequest-1-0-3; below them they pass', async () => {
    const user = await createUser(small);
    const projectId = await createProject(small, user.auth, 'limits');
    const big = 'id\n' + Array.from({ length: 800 }, (_, i) => `sample${i}`).join('\n') + '\n';
    expect(big.length).toBeGreaterThan(4096);
    expectError(await init(user.auth, big, { projectId: Number(projectId), name: 'too-big' }, small), 'badRequest-1-0-3');
    const [tasks] = await small.db.query(`SELECT count(*)::int AS n FROM tasks`);
    expect(tasks.n).toBe(0);

    const { taskId } = expectSuccess(await init(user.auth, 'id\ns1\n', { projectId: Number(projectId), name: 'small' }, small));
    const huge = await new Jimp({ width: 40, height: 40, color: 0x000000ff }).getBuffer('image/bmp');
    expect(huge.length).toBeGreaterThan(2048);
    expectError(await add(user.auth, taskId, 's1', huge, 's1.bmp', small), 'badRequest-1-0-3');
    const fits = await image('image/png', 4);
    expect(fits.length).toBeLessThan(2048);
    expectSuccess(await add(user.auth, taskId, 's1', fits, 's1.png', small));
  });
});
