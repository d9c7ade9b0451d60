import { deflateSync, gzipSync } from 'node:zlib';
import { ERROR_CODES } from '../src/common/error-codes';
import {
  emptyChunksIn,
  jpegWithComments,
  manyScansJpeg,
  pngWithEmptyChunks,
  rleBombBmp,
  tiffWithDuplicateWidth,
  truncatedBmp,
} from '../bench/hostile-images';
import { API, createProject, createTestApp, createUser, expectSuccess, pngChunk, pngHeader, TestApp, uploadDataset } from './utils';

/**
 * The bad-input corpus (issue 12): hundreds of hostile requests across every route, sent by the owner
 * of everything they name, so that no 403 hides an answer. Each must be an error envelope (HTTP 200)
 * whose code is in the catalogue: never a 500, never a success. The service must be healthy after.
 */

let t: TestApp;
let owner: Awaited<ReturnType<typeof createUser>>;
let ids: { projectId: string; datasetId: string; taskId: string; analysisId: string; predictionId: string; imageTaskId: string };

beforeAll(async () => {
  t = await createTestApp();
  owner = await createUser(t);
  const projectId = await createProject(t, owner.auth, 'corpus');
  const datasetId = await uploadDataset(t, owner.auth, projectId, 'id,x,y\ns1,1,a\ns2,2,b\ns3,3,a\ns4,4,b\n', {
    name: 'corpus data',
    hasSampleHeaders: true,
  });
  const [task] = await t.db.query(`SELECT id FROM tasks WHERE dataset_id = $1`, [datasetId]);
  // a finished analysis and prediction, as the modules leave them (the corpus is about input, not the engine)
  const parameters = { datasetId, outcome: { classification: 'y' }, thoroughness: 'preliminary', coreCount: 1, name: 'm' };
  const [analysis] = await t.db.query(
    `INSERT INTO analyses (project_id, dataset_id, user_id, name, parameters, state, core_count, seed, start_time, end_time)
     VALUES ($1, $2, $3, 'm', $4, 'finished', 1, 1, now(), now()) RETURNING id`,
    [projectId, datasetId, owner.userId, JSON.stringify(parameters)],
  );
  const models = { best: { preprocessing: '', featureSelection: '', model: '', signatures: [['x']], performance: {} } };
  await t.db.query(
    `INSERT INTO analysis_results (analysis_id, ml_engine, models, plots, pipelines, stats) VALUES ($1, 'signet-engine 0.1.0', $2, '{"best":{}}', '{}', '{}')`,
    [analysis.id, JSON.stringify(models)],
  );
  const [prediction] = await t.db.query(
    `INSERT INTO predictions (analysis_id, dataset_id, user_id, model_key, state) VALUES ($1, $2, $3, 'best', 'finished') RETURNING id`,
    [analysis.id, datasetId, owner.userId],
  );
  await t.db.query(`INSERT INTO prediction_results (prediction_id, rows) VALUES ($1, '[]')`, [prediction.id]);
  const init = await t
    .http()
    .post(`${API}/image/initUpload`)
    .set('Authorization', owner.auth)
    .field('attributes', JSON.stringify({ projectId: Number(projectId), name: 'corpus scans' }))
    .attach('file', Buffer.from('sampleId,label\ns1,a\ns2,b\n'), 'labels.csv');
  ids = {
    projectId,
    datasetId,
    taskId: String(task.id),
    analysisId: String(analysis.id),
    predictionId: String(prediction.id),
    imageTaskId: expectSuccess(init).taskId,
  };
}, 120_000);
afterAll(async () => {
  await t.close();
});

interface Case {
  name: string;
  send: () => Promise<{ status: number; body: { status?: string; code?: string; payload?: { errors?: { code: string }[] } } }>;
  /** The check route answers bad parameters with a success listing them: its first error counts. */
  check?: boolean;
}

type Json = Record<string, unknown>;
const NUL = 'a\u0000b';
const LONE = 'x\uD800y';
const HUGE_TEXT = 'h'.repeat(20_000);
const DEEP = '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000);
const DEEP_ARRAY = '['.repeat(100_000) + ']'.repeat(100_000);

/** Sends `body` as raw bytes with `type` (supertest would re-encode a Buffer or an object). */
function raw(method: 'post', path: string, type: string, body: string | Buffer) {
  return t
    .http()
    [method](API + path)
    .set('Authorization', owner.auth)
    .set('Content-Type', type)
    .serialize((b: unknown) => b as string)
    .send(body as string);
}

function json(path: string, body: unknown) {
  return t
    .http()
    .post(API + path)
    .set('Authorization', owner.auth)
    .send(body as object);
}

/**
 * The JSON routes with a body that is valid except where a variant breaks it; each variant replaces
 * one field (every string field gets NUL, a lone surrogate, a huge text, a wrong type...).
 */
function jsonRoutes(): { path: string; base: Json; check?: boolean; strings: string[]; numbers: string[] }[] {
  const analyze = { outcome: { classification: 'y' }, thoroughness: 'preliminary', coreCount: 1, name: 'corpus analysis' };
  return [
    {
      path: '/login',
      base: { usernameOrEmail: 'nobody-here', password: 'not-the-password' },
      strings: ['usernameOrEmail', 'password'],
      numbers: [],
    },
    { path: '/createProject', base: { name: 'p', description: 'd' }, strings: ['name', 'description'], numbers: [] },
    {
      path: `/project/${ids.projectId}/share`,
      base: { username: 'nobody-here', permissions: ['read'] },
      strings: ['username'],
      numbers: [],
    },
    { path: `/project/${ids.projectId}/unshare`, base: { username: 'nobody-here' }, strings: ['username'], numbers: [] },
    {
      path: '/file/never-uploaded/createDataset',
      base: { projectId: ids.projectId, name: 'corpus set', fileSizeInBytes: 8, separator: ',' },
      strings: ['name', 'separator'],
      numbers: ['projectId', 'fileSizeInBytes'],
    },
    {
      path: `/dataset/${ids.datasetId}/changeFeatureTypes`,
      base: { featureTypes: { x: 'categorical', nosuch: 'numerical' } },
      strings: [],
      numbers: [],
    },
    {
      path: `/dataset/${ids.datasetId}/analyze`,
      base: { ...analyze, coreCount: 1000 },
      strings: ['name', 'thoroughness'],
      numbers: ['coreCount'],
    },
    {
      path: `/check/dataset/${ids.datasetId}/analyze`,
      base: { ...analyze, thoroughness: 'thorough' },
      check: true,
      strings: ['name'],
      numbers: ['coreCount'],
    },
    { path: `/analysis/${ids.analysisId}/availablePlots`, base: { modelKey: 'nosuch' }, strings: ['modelKey'], numbers: [] },
    {
      path: `/analysis/${ids.analysisId}/getPlot`,
      base: { modelKey: 'best', plotKey: 'nosuch' },
      strings: ['modelKey', 'plotKey'],
      numbers: [],
    },
    { path: `/analysis/${ids.analysisId}/getPlots`, base: { modelKey: 'nosuch' }, strings: ['modelKey'], numbers: [] },
    {
      path: `/analysis/${ids.analysisId}/predict/${ids.datasetId}`,
      base: { modelKey: 'nosuch', signatureIndex: 0 },
      strings: ['modelKey'],
      numbers: ['signatureIndex'],
    },
  ];
}

function jsonCases(): Case[] {
  const cases: Case[] = [];
  for (const route of jsonRoutes()) {
    const add = (name: string, send: Case['send']) => cases.push({ name: `POST ${route.path}: ${name}`, send, check: route.check });
    const withField = (field: string, value: unknown) => ({ ...route.base, [field]: value });
    for (const f of route.strings) {
      add(`${f} with NUL`, () => json(route.path, withField(f, NUL)));
      add(`${f} with a lone surrogate`, () => json(route.path, withField(f, LONE)));
      add(`${f} 20,000 characters`, () => json(route.path, withField(f, HUGE_TEXT)));
      add(`${f} a number`, () => json(route.path, withField(f, 12345)));
      add(`${f} an array`, () => json(route.path, withField(f, ['a', 'b'])));
      add(`${f} an object`, () => json(route.path, withField(f, { $ne: null })));
    }
    for (const f of route.numbers) {
      add(`${f} negative`, () => json(route.path, withField(f, -1)));
      add(`${f} a float`, () => json(route.path, withField(f, 1.5)));
      add(`${f} huge`, () =>
        raw(
          'post',
          route.path,
          'application/json',
          JSON.stringify(route.base)
            .replace(/}$/, `,"${f}":1e400}`)
            .replace(`"${f}":${JSON.stringify(route.base[f])},`, ''),
        ),
      );
      add(`${f} a string with NUL`, () => json(route.path, withField(f, '1\u0000')));
    }
    add('deep JSON object', () => raw('post', route.path, 'application/json', DEEP));
    add('deep JSON array in a field', () => raw('post', route.path, 'application/json', `{"x":${DEEP_ARRAY}}`));
    add('a NUL in a key', () => json(route.path, { ...route.base, ['k\u0000']: 1 }));
    add('a __proto__ key', () =>
      raw('post', route.path, 'application/json', JSON.stringify(route.base).replace(/^{/, '{"__proto__":{"admin":true},')),
    );
    add('a constructor key', () =>
      raw('post', route.path, 'application/json', JSON.stringify(route.base).replace(/^{/, '{"constructor":{"prototype":{"admin":true}},')),
    );
    add('not UTF-8', () =>
      raw(
        'post',
        route.path,
        'application/json',
        Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]),
      ),
    );
    add('UTF-16 declared, UTF-8 sent', () =>
      raw('post', route.path, 'application/json; charset=utf-16le', Buffer.from(JSON.stringify(route.base), 'utf8')),
    );
    add('a charset that does not exist', () => raw('post', route.path, 'application/json; charset=klingon', JSON.stringify(route.base)));
    add('truncated JSON', () => raw('post', route.path, 'application/json', JSON.stringify(route.base).slice(0, -3)));
    add('a JSON array body', () => raw('post', route.path, 'application/json', '[1,2,3]'));
    add('a JSON null body', () => raw('post', route.path, 'application/json', 'null'));
    add('over the size limit', () => raw('post', route.path, 'application/json', `{"x":"${'x'.repeat(1_100_000)}"}`));
    add('form-encoded', () => raw('post', route.path, 'application/x-www-form-urlencoded', 'name=x&modelKey=best'));
    add('XML', () => raw('post', route.path, 'application/xml', '<project><name>x</name></project>'));
  }
  return cases;
}

const BAD_IDS = ['-1', '0', '1.5', '1e3', 'abc', '1%00', '%00', '99999999999999999999', '0x10', '%ED%A0%80', '%C3%28'];

/** Every route with an id in its path, each bad id in turn (the other ids valid). */
function idCases(): Case[] {
  const i = () => ids;
  const routes: { method: 'get' | 'post'; path: (id: string) => string }[] = [
    { method: 'get', path: (x) => `/project/${x}` },
    { method: 'post', path: (x) => `/project/${x}/delete` },
    { method: 'post', path: (x) => `/project/${x}/share` },
    { method: 'get', path: (x) => `/task/${x}/status` },
    { method: 'get', path: (x) => `/dataset/${x}` },
    { method: 'get', path: (x) => `/dataset/${x}/features` },
    { method: 'post', path: (x) => `/dataset/${x}/delete` },
    { method: 'get', path: (x) => `/datasets/${x}/0/10` },
    { method: 'get', path: (x) => `/analyses/all/${x}/0/10` },
    { method: 'get', path: (x) => `/analysis/${x}` },
    { method: 'get', path: (x) => `/analysis/${x}/status` },
    { method: 'get', path: (x) => `/analysis/${x}/result` },
    { method: 'post', path: (x) => `/analysis/${x}/delete` },
    { method: 'get', path: (x) => `/analysis/${x}/availablePlots?modelKey=best` },
    { method: 'get', path: (x) => `/analysis/${x}/predictions/0/10` },
    { method: 'post', path: (x) => `/analysis/${i().analysisId}/predict/${x}` },
    { method: 'get', path: (x) => `/prediction/${x}/status` },
    { method: 'get', path: (x) => `/prediction/${x}/result` },
    { method: 'post', path: (x) => `/prediction/${x}/delete` },
    { method: 'get', path: (x) => `/image/${x}/status` },
    { method: 'get', path: (x) => `/image/${x}/commit` },
  ];
  const cases: Case[] = [];
  for (const r of routes) {
    for (const bad of BAD_IDS) {
      cases.push({
        name: `${r.method.toUpperCase()} ${r.path(bad)}`,
        send: () => {
          const req = t
            .http()
            [r.method](API + r.path(bad))
            .set('Authorization', owner.auth);
          return r.method === 'post' ? req.send({ modelKey: 'best', username: 'nobody-here', permissions: ['read'] }) : req;
        },
      });
    }
  }
  for (const list of ['/projects/owned', '/projects/shared', `/datasets/${ids?.projectId ?? 1}`]) {
    for (const [offset, count] of [
      ['-1', '10'],
      ['0', '101'],
      ['1.5', '1'],
      ['0', '1e2'],
      ['%00', '1'],
      ['0', '99999999999999999999'],
    ]) {
      cases.push({
        name: `GET ${list}/${offset}/${count}`,
        send: () => t.http().get(`${API}${list}/${offset}/${count}`).set('Authorization', owner.auth),
      });
    }
  }
  return cases;
}

function multipartCases(): Case[] {
  const cases: Case[] = [];
  const p = () => Number(ids.projectId);
  const init =
    (attributes: string | undefined, file: Buffer | null = Buffer.from('sampleId,label\ns1,a\n'), extra?: [string, string]) =>
    () => {
      const req = t.http().post(`${API}/image/initUpload`).set('Authorization', owner.auth);
      if (attributes !== undefined) req.field('attributes', attributes);
      if (extra) req.field(extra[0], extra[1]);
      if (file) req.attach('file', file, 'labels.csv');
      return req;
    };
  const attr = (o: Json) => JSON.stringify({ projectId: p(), name: 'scans', ...o });
  cases.push(
    { name: 'init: attributes not JSON', send: () => init('{projectId:')() },
    { name: 'init: attributes a JSON array', send: () => init('[1]')() },
    { name: 'init: attributes deep', send: () => init(DEEP)() },
    { name: 'init: name with NUL', send: () => init(attr({ name: NUL }))() },
    { name: 'init: name with a lone surrogate', send: () => init(attr({ name: LONE }))() },
    { name: 'init: description 20,000 characters', send: () => init(attr({ description: HUGE_TEXT }))() },
    { name: 'init: projectId negative', send: () => init(attr({ projectId: -1 }))() },
    { name: 'init: projectId a float', send: () => init(attr({ projectId: 1.5 }))() },
    { name: 'init: projectId huge', send: () => init(attr({ projectId: 1e300 }))() },
    { name: 'init: projectId an object', send: () => init(attr({ projectId: { $gt: 0 } }))() },
    { name: 'init: projectId with NUL', send: () => init(attr({ projectId: '1\u0000' }))() },
    { name: 'init: hasFeatureHeaders a string', send: () => init(attr({ hasFeatureHeaders: 'yes' }))() },
    { name: 'init: a __proto__ attribute', send: () => init(attr({}).replace(/^{/, '{"__proto__":{"x":1},'))() },
    { name: 'init: no file', send: () => init(attr({}), null)() },
    { name: 'init: an extra field', send: () => init(attr({}), undefined, ['color', 'red'])() },
    { name: 'init: a binary init file', send: () => init(attr({ name: 'binary init' }), Buffer.from([0, 1, 2, 0xff, 0xfe, 0, 10]))() },
    { name: 'init: a sample id with NUL in the file', send: () => init(attr({ name: 'nul init' }), Buffer.from('sampleId\ns\u00001\n'))() },
    { name: 'init: JSON instead of multipart', send: () => json('/image/initUpload', { attributes: attr({}) }) },
    { name: 'init: text/plain body', send: () => raw('post', '/image/initUpload', 'text/plain', 'attributes={}') },
    {
      name: 'init: a broken multipart body',
      send: () =>
        raw(
          'post',
          '/image/initUpload',
          'multipart/form-data; boundary=xyz',
          '--xyz\r\nContent-Disposition: form-data; name="attributes"\r\n\r\n{}',
        ),
    },
  );
  const ihdr = (w: number, h: number) => pngChunk('IHDR', pngHeader(w, h).subarray(16, 29));
  const crafted = (...chunks: Buffer[]) => Buffer.concat([pngHeader(1, 1).subarray(0, 8), ...chunks, pngChunk('IEND', Buffer.alloc(0))]);
  const add = (sampleId: string | string[] | undefined, file: Buffer | undefined) => () => {
    const req = t.http().post(`${API}/image/${ids.imageTaskId}/add`).set('Authorization', owner.auth);
    for (const s of sampleId === undefined ? [] : Array.isArray(sampleId) ? sampleId : [sampleId]) req.field('sampleId', s);
    if (file) req.attach('file', file, 'i.png');
    return req;
  };
  cases.push(
    { name: 'add: sampleId with NUL', send: add(NUL, pngHeader(4, 4)) },
    { name: 'add: sampleId with a lone surrogate', send: add(LONE, pngHeader(4, 4)) },
    { name: 'add: sampleId 20,000 characters', send: add(HUGE_TEXT, pngHeader(4, 4)) },
    { name: 'add: sampleId twice', send: add(['s1', 's2'], pngHeader(4, 4)) },
    { name: 'add: unknown sampleId', send: add('s9', pngHeader(4, 4)) },
    { name: 'add: not an image', send: add('s1', Buffer.from('not an image at all')) },
    { name: 'add: a header of 100000 x 100000 pixels', send: add('s1', pngHeader(100_000, 100_000)) },
    { name: 'add: a header of 0 x 0 pixels', send: add('s1', pngHeader(0, 0)) },
    { name: 'add: no file', send: add('s1', undefined) },
    { name: 'add: JSON instead of multipart', send: () => json(`/image/${ids.imageTaskId}/add`, { sampleId: 's1' }) },
    // crafted PNGs of the fourth review: a second header past the pixel limit, and data inflating far beyond its header
    {
      name: 'add: a second IHDR of 12000 x 12000 behind a 4 x 4 one',
      send: add('s1', crafted(ihdr(4, 4), ihdr(12000, 12000), pngChunk('IDAT', deflateSync(Buffer.alloc(4 * 17))))),
    },
    {
      name: 'add: 20 MB of image data behind a 16 x 16 header (a zlib bomb)',
      send: add('s1', crafted(ihdr(16, 16), pngChunk('IDAT', deflateSync(Buffer.alloc(20 * 1048576))))),
    },
    // crafted images of the fifth review (issue 41): structure that costs a checker or a decoder far beyond its size
    {
      name: 'add: an 8 x 8 PNG with 4.4 million empty IDAT chunks (50 MB)',
      send: add('s1', pngWithEmptyChunks(emptyChunksIn(50 * 1048576))),
    },
    { name: 'add: an 8 x 8 PNG with 200,000 empty tEXt chunks', send: add('s1', pngWithEmptyChunks(200_000, 'tEXt')) },
    { name: 'add: a JPEG with 3 million COM segments', send: add('s1', jpegWithComments(3_000_000)) },
    { name: 'add: a valid progressive JPEG of 757 scans', send: add('s1', manyScansJpeg()) },
    { name: 'add: a 1,080-byte RLE8 BMP claiming 7000 x 7000 pixels', send: add('s1', rleBombBmp()) },
    { name: 'add: a truncated BMP', send: add('s1', truncatedBmp(40, 40, 100)) },
    { name: 'add: a TIFF with its width tag twice', send: add('s1', tiffWithDuplicateWidth()) },
  );
  const upload = (fileId: string, body: string) => () =>
    t
      .http()
      .post(`${API}/file/${fileId}/upload`)
      .set('Authorization', owner.auth)
      .set('Content-Type', 'application/octet-stream')
      .send(body);
  cases.push(
    { name: 'upload: fileId with NUL', send: upload('a%00b', 'x') },
    { name: 'upload: fileId too long', send: upload('f'.repeat(65), 'x') },
    { name: 'upload: fileId with a space', send: upload('a%20b', 'x') },
    { name: 'upload: fileId non-ASCII', send: upload('%C3%A9t%C3%A9', 'x') },
    { name: 'upload: fileId invalid UTF-8', send: upload('%C3%28', 'x') },
  );
  const del = (fileId: string) => () => t.http().post(`${API}/file/${fileId}/delete`).set('Authorization', owner.auth);
  cases.push(
    { name: 'file delete: fileId with NUL', send: del('a%00b') },
    { name: 'file delete: fileId too long', send: del('f'.repeat(65)) },
    { name: 'file delete: fileId with a lone surrogate (encoded)', send: del('%ED%A0%80') },
    { name: 'file delete: unknown fileId', send: del('never-uploaded') },
  );
  for (const [offset, count] of [
    ['-1', '10'],
    ['0', '101'],
    ['1.5', '1'],
    ['%00', '1'],
  ]) {
    cases.push({
      name: `GET /files/${offset}/${count}`,
      send: () => t.http().get(`${API}/files/${offset}/${count}`).set('Authorization', owner.auth),
    });
  }
  return cases;
}

function otherCases(): Case[] {
  return [
    {
      name: 'GET availablePlots: modelKey %00',
      send: () => t.http().get(`${API}/analysis/${ids.analysisId}/availablePlots?modelKey=a%00b`).set('Authorization', owner.auth),
    },
    {
      name: 'GET availablePlots: modelKey __proto__',
      send: () => t.http().get(`${API}/analysis/${ids.analysisId}/availablePlots?modelKey=__proto__`).set('Authorization', owner.auth),
    },
    {
      name: 'GET availablePlots: modelKey twice',
      send: () =>
        t.http().get(`${API}/analysis/${ids.analysisId}/availablePlots?modelKey=best&modelKey=x`).set('Authorization', owner.auth),
    },
    {
      name: 'GET getPlot: plotKey constructor',
      send: () =>
        t.http().get(`${API}/analysis/${ids.analysisId}/getPlot?modelKey=best&plotKey=constructor`).set('Authorization', owner.auth),
    },
    {
      name: 'GET result: format %00',
      send: () => t.http().get(`${API}/prediction/${ids.predictionId}/result?format=csv%00`).set('Authorization', owner.auth),
    },
    {
      name: 'GET result: format twice',
      send: () => t.http().get(`${API}/prediction/${ids.predictionId}/result?format=csv&format=json`).set('Authorization', owner.auth),
    },
    ...['constructor', '__proto__', 'toString', 'hasOwnProperty'].map((modelKey) => ({
      name: `POST predict: modelKey ${modelKey}`,
      send: () => json(`/analysis/${ids.analysisId}/predict/${ids.datasetId}`, { modelKey }),
    })),
    ...['constructor', '__proto__', 'toString'].map((modelKey) => ({
      name: `POST getPlots: modelKey ${modelKey}`,
      send: () => json(`/analysis/${ids.analysisId}/getPlots`, { modelKey }),
    })),
    {
      name: 'POST changeFeatureTypes: a type __proto__',
      send: () => json(`/dataset/${ids.datasetId}/changeFeatureTypes`, { featureTypes: { x: '__proto__' } }),
    },
    {
      name: 'POST changeFeatureTypes: a feature __proto__',
      send: () =>
        raw('post', `/dataset/${ids.datasetId}/changeFeatureTypes`, 'application/json', '{"featureTypes":{"__proto__":"numerical"}}'),
    },
    // types the columns cannot take, checked on an engine process (the labels of `y` are text, `x` has four values)
    {
      name: 'POST changeFeatureTypes: text becoming numerical',
      send: () => json(`/dataset/${ids.datasetId}/changeFeatureTypes`, { featureTypes: { y: 'numerical' } }),
    },
    {
      name: 'POST changeFeatureTypes: text becoming a time to event',
      send: () => json(`/dataset/${ids.datasetId}/changeFeatureTypes`, { featureTypes: { y: 'timeToEvent' } }),
    },
    {
      name: 'POST changeFeatureTypes: four values becoming an event',
      send: () => json(`/dataset/${ids.datasetId}/changeFeatureTypes`, { featureTypes: { x: 'event' } }),
    },
    // compressed bodies: garbage, an unknown coding, and a bomb (100 KB of gzip that inflates to 100 MB)
    {
      name: 'gzip: not gzip',
      send: () => raw('post', '/createProject', 'application/json', 'not gzip at all').set('Content-Encoding', 'gzip'),
    },
    {
      name: 'gzip: an unknown coding',
      send: () => raw('post', '/createProject', 'application/json', '{"name":"x"}').set('Content-Encoding', 'x-klingon'),
    },
    {
      name: 'gzip: a bomb',
      send: () =>
        raw('post', '/createProject', 'application/json', gzipSync(Buffer.alloc(100 * 1024 * 1024, 0x20))).set('Content-Encoding', 'gzip'),
    },
    // the fifth review (issue 41): a key given twice, times that repeat, run backwards or overflow
    { name: 'POST createProject: a key twice', send: () => raw('post', '/createProject', 'application/json', '{"name":"a","name":"b"}') },
    {
      name: 'POST predict: a key twice',
      send: () =>
        raw('post', `/analysis/${ids.analysisId}/predict/${ids.datasetId}`, 'application/json', '{"modelKey":"best","modelKey":"x"}'),
    },
    ...[[5, 5], [9, 1], [1e308]].map((times) => ({
      name: `POST predict: times ${JSON.stringify(times)}`,
      send: () => json(`/analysis/${ids.analysisId}/predict/${ids.datasetId}`, { modelKey: 'best', times }),
    })),
    { name: 'POST logout: a NUL in the body', send: () => json('/logout', { x: NUL }) },
    { name: 'POST logout: deep JSON', send: () => raw('post', '/logout', 'application/json', DEEP) },
  ];
}

describe('the bad-input corpus', () => {
  it('answers every hostile request with an error envelope whose code is in the catalogue, and stays healthy', async () => {
    const cases = [...jsonCases(), ...idCases(), ...multipartCases(), ...otherCases()];
    expect(cases.length).toBeGreaterThanOrEqual(150);
    const wrong: { name: string; status: number; body: unknown }[] = [];
    for (const c of cases) {
      const res = await c.send();
      const code = c.check && res.body.status === 'success' ? res.body.payload?.errors?.[0]?.code : res.body.code;
      const ok = res.status === 200 && (c.check || res.body.status === 'error') && code !== undefined && code in ERROR_CODES;
      if (!ok) wrong.push({ name: c.name.slice(0, 160), status: res.status, body: JSON.stringify(res.body).slice(0, 200) });
    }
    expect(wrong).toEqual([]);

    expect((await t.http().get(`${API}/health/ready`)).status).toBe(200);
    expect(
      expectSuccess(await t.http().post(`${API}/createProject`).set('Authorization', owner.auth).send({ name: 'after the corpus' }))
        .projectId,
    ).toMatch(/^\d+$/);
    expect(expectSuccess(await t.http().get(`${API}/dataset/${ids.datasetId}`).set('Authorization', owner.auth)).datasetId).toBe(
      ids.datasetId,
    );
    // nothing the corpus sent was stored
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM projects WHERE owner_id = $1`, [owner.userId]);
    expect(n).toBe(2);
  }, 300_000);
});
