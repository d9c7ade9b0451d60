import { connect, AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { API, createProject, createTestApp, createUser, expectError, expectSuccess, pngHeader, TestApp, uploadDataset } from './utils';

/**
 * One test per finding of issue 12's hostile review that is about input: each failed before its fix
 * (HTTP 500, a leak, an accepted bad value). The bad-input corpus covers the same ground more broadly.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

type User = Awaited<ReturnType<typeof createUser>>;

/** POST of `body` as it is (JSON text a client wrote by hand), as `auth`. */
function rawJson(auth: string, path: string, body: string) {
  return t
    .http()
    .post(API + path)
    .set('Authorization', auth)
    .set('Content-Type', 'application/json')
    .send(body);
}

async function share(projectId: string, user: User, read: boolean, write: boolean, execute: boolean) {
  await t.db.query(`INSERT INTO project_shares (project_id, user_id, can_read, can_write, can_execute) VALUES ($1, $2, $3, $4, $5)`, [
    projectId,
    user.userId,
    read,
    write,
    execute,
  ]);
}

/** A dataset row, an analysis with a stored result (model `best`) and rows as the modules leave them. */
async function dataset(projectId: string, name: string): Promise<string> {
  const [ds] = await t.db.query(
    `INSERT INTO datasets (project_id, name, sample_count, feature_count, size_in_bytes) VALUES ($1, $2, 2, 1, 10) RETURNING id`,
    [projectId, name],
  );
  return String(ds.id);
}

async function finishedAnalysis(projectId: string, datasetId: string, userId: string): Promise<string> {
  const parameters = { datasetId, outcome: { classification: 'y' }, thoroughness: 'preliminary', coreCount: 1, name: 'm' };
  const [a] = await t.db.query(
    `INSERT INTO analyses (project_id, dataset_id, user_id, name, parameters, state, core_count, seed, start_time, end_time)
     VALUES ($1, $2, $3, 'm', $4, 'finished', 1, 1, now(), now()) RETURNING id`,
    [projectId, datasetId, userId, JSON.stringify(parameters)],
  );
  const models = { best: { preprocessing: '', featureSelection: '', model: '', signatures: [[]], performance: {} } };
  await t.db.query(
    `INSERT INTO analysis_results (analysis_id, ml_engine, models, plots, pipelines, stats) VALUES ($1, 'signet-engine 0.1.0', $2, '{}', '{}', '{}')`,
    [a.id, JSON.stringify(models)],
  );
  return String(a.id);
}

async function finishedPrediction(analysisId: string, datasetId: string, userId: string, rows: object[]): Promise<string> {
  const [p] = await t.db.query(
    `INSERT INTO predictions (analysis_id, dataset_id, user_id, model_key, state) VALUES ($1, $2, $3, 'best', 'finished') RETURNING id`,
    [analysisId, datasetId, userId],
  );
  await t.db.query(`INSERT INTO prediction_results (prediction_id, rows) VALUES ($1, $2)`, [p.id, JSON.stringify(rows)]);
  return String(p.id);
}

describe('finding 6: NUL bytes and lone surrogates are refused with badRequest-1-0-6, not HTTP 500', () => {
  it('in every kind of string field', async () => {
    const u = await createUser(t);
    const p = await createProject(t, u.auth);
    const other = await createUser(t);
    const post = (path: string, body: object, auth = u.auth) =>
      t
        .http()
        .post(API + path)
        .set('Authorization', auth)
        .send(body);
    for (const bad of ['a\u0000b', 'a\uD800b', '\uDC00']) {
      expectError(await post('/createProject', { name: bad }), 'badRequest-1-0-6');
      expectError(await post('/createProject', { name: 'fine', description: bad }), 'badRequest-1-0-6');
      expectError(await post(`/project/${p}/share`, { username: bad, permissions: ['read'] }), 'badRequest-1-0-6');
      expectError(await post(`/project/${p}/share`, { username: other.username, permissions: [bad] }), 'badRequest-1-0-6');
      expectError(await t.http().post(`${API}/login`).send({ usernameOrEmail: bad, password: 'whatever-1' }), 'badRequest-1-0-6');
      expectError(await t.http().post(`${API}/login`).send({ usernameOrEmail: u.username, password: bad }), 'badRequest-1-0-6');
      expectError(await post('/file/f1/createDataset', { projectId: p, name: bad, fileSizeInBytes: 1 }), 'badRequest-1-0-6');
      expectError(
        await post('/file/f1/createDataset', { projectId: p, name: 'fine', fileSizeInBytes: 1, featureTypes: { [bad]: 'numerical' } }),
        'badRequest-1-0-6',
      );
      // the same JSON sent as text (an escaped NUL) and in a query string
      expectError(
        await t
          .http()
          .post(`${API}/createProject`)
          .set('Authorization', u.auth)
          .set('Content-Type', 'application/json')
          .send(`{"name":${JSON.stringify(bad)}}`),
        'badRequest-1-0-6',
      );
      const ds = await dataset(p, `ds-${Math.random()}`);
      const a = await finishedAnalysis(p, ds, u.userId);
      expectError(
        await post(`/dataset/${ds}/analyze`, { outcome: { classification: 'y' }, thoroughness: 'preliminary', coreCount: 1, name: bad }),
        'badRequest-1-0-6',
      );
      if (bad.includes('\u0000')) {
        // a query string cannot carry a lone surrogate (it is UTF-8 percent-encoded), but it can carry %00
        expectError(
          await t.http().get(`${API}/analysis/${a}/availablePlots?modelKey=a%00b`).set('Authorization', u.auth),
          'badRequest-1-0-6',
        );
      }
    }
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM projects WHERE owner_id = $1`, [u.userId]);
    expect(n).toBe(1);
  });

  it('in multipart fields: image init attributes and the sampleId of an add', async () => {
    const u = await createUser(t);
    const p = await createProject(t, u.auth);
    const init = (attributes: string) =>
      t
        .http()
        .post(`${API}/image/initUpload`)
        .set('Authorization', u.auth)
        .field('attributes', attributes)
        .attach('file', Buffer.from('sampleId,label\ns1,a\n'), 'l.csv');
    expectError(await init(JSON.stringify({ projectId: Number(p), name: 'sc\u0000ans' })), 'badRequest-1-0-6');
    const { taskId } = expectSuccess(await init(JSON.stringify({ projectId: Number(p), name: 'scans' })));
    const add = await t
      .http()
      .post(`${API}/image/${taskId}/add`)
      .set('Authorization', u.auth)
      .field('sampleId', 's\u00001')
      .attach('file', pngHeader(4, 4), 'i.png');
    expectError(add, 'badRequest-1-0-6');
  });

  it('refuses a JSON body that is not UTF-8', async () => {
    const u = await createUser(t);
    const res = await t
      .http()
      .post(`${API}/createProject`)
      .set('Authorization', u.auth)
      .set('Content-Type', 'application/json')
      .serialize((b: Buffer) => b as unknown as string) // send the bytes as they are (supertest would JSON-encode a Buffer)
      .send(Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
    expectError(res, 'badRequest-1-0-6');
  });
});

describe('finding 7: deeply nested JSON is refused with badRequest-1-0-4 before it is parsed', () => {
  it('in a JSON body and in a multipart JSON field, and the service answers after', async () => {
    const u = await createUser(t);
    const p = await createProject(t, u.auth);
    const deep = '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000);
    const send = (path: string, body: string) => rawJson(u.auth, path, body);
    expectError(await send('/createProject', deep), 'badRequest-1-0-4');
    expectError(await send('/createProject', `{"name":"x","description":${'['.repeat(50_000)}${']'.repeat(50_000)}}`), 'badRequest-1-0-4');
    expectError(await t.http().post(`${API}/login`).set('Content-Type', 'application/json').send(deep), 'badRequest-1-0-4');
    expectError(await send(`/project/${p}/share`, deep), 'badRequest-1-0-4');
    // 33 levels is over the limit, a normal body is not
    expectError(await send('/createProject', `{"name":"x","d":${'['.repeat(33)}${']'.repeat(33)}}`), 'badRequest-1-0-4');
    // deep but under the 64 KiB a multipart attributes field may have
    const attributes = '{"projectId":' + '['.repeat(20_000) + ']'.repeat(20_000) + '}';
    const res = await t
      .http()
      .post(`${API}/image/initUpload`)
      .set('Authorization', u.auth)
      .field('attributes', attributes)
      .attach('file', Buffer.from('sampleId\ns1\n'), 'l.csv');
    expectError(res, 'badRequest-1-0-4');
    expectSuccess(await t.http().post(`${API}/createProject`).set('Authorization', u.auth).send({ name: 'after' }));
  });
});

describe('a caller without a valid token gets 403 whatever its body or query string holds', () => {
  it('answers 403 before the body fault, and the body fault only to a caller with a valid token', async () => {
    const u = await createUser(t);
    const bodies: [string, string][] = [
      ['{"name":', 'badRequest-1-0-4'], // malformed
      ['{"a":'.repeat(40) + '1' + '}'.repeat(40), 'badRequest-1-0-4'], // too deep
      ['{"name":"a\\u0000b"}', 'badRequest-1-0-6'], // text rule
      [`{"name":"${'x'.repeat(1_100_000)}"}`, 'badRequest-1-0-3'], // over MAX_JSON_BODY_BYTES
    ];
    for (const [body, code] of bodies) {
      const send = (authorization?: string) => {
        const req = t.http().post(`${API}/createProject`).set('Content-Type', 'application/json');
        return (authorization ? req.set('Authorization', authorization) : req).send(body);
      };
      expect((await send()).status).toBe(403);
      expect((await send('Bearer not-a-token')).status).toBe(403);
      expectError(await send(u.auth), code);
      // a public route has no token to check: the fault is answered
      expectError(await t.http().post(`${API}/login`).set('Content-Type', 'application/json').send(body), code);
    }
    const query = await t.http().get(`${API}/projects/owned/0/10?x=%00`);
    expect(query.status).toBe(403);
    expectError(await t.http().get(`${API}/projects/owned/0/10?x=%00`).set('Authorization', u.auth), 'badRequest-1-0-6');
    expect(await t.db.query(`SELECT id FROM projects WHERE owner_id = $1`, [u.userId])).toHaveLength(0);
  });
});

describe("requests Node's HTTP parser refuses get a JSON answer, not a bare status line", () => {
  /** Sends raw bytes to the listening app and reads the whole answer (the connection is closed after it). */
  async function raw(request: string): Promise<{ status: number; body: unknown }> {
    const server = t.app.getHttpServer() as Server;
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(request));
      let got = '';
      socket.on('data', (d) => (got += d.toString()));
      socket.on('end', () => resolve(got));
      socket.on('error', reject);
    });
    const [head, body] = text.split('\r\n\r\n');
    return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]), body: JSON.parse(body) };
  }

  it('answers an unknown method as an undefined endpoint (404), and a malformed request 400, with a JSON body', async () => {
    expect(await raw(`FOO ${API}/version HTTP/1.1\r\nHost: x\r\n\r\n`)).toEqual({
      status: 404,
      body: { statusCode: 404, message: 'Not Found' },
    });
    // a method Node knows but no route has: the same answer from the router
    expect(await raw(`PROPFIND ${API}/version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).toEqual({
      status: 404,
      body: { statusCode: 404, message: 'Not Found' },
    });
    expect(await raw(`GET ${API}/version HTTP/1.1\r\nHost x\r\n\r\n`)).toEqual({
      status: 400,
      body: { statusCode: 400, message: 'Bad Request' },
    });
    expect(await raw(`GET ${API}/version HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)).toEqual({
      status: 431,
      body: { statusCode: 431, message: 'Request Header Fields Too Large' },
    });
    expectSuccess(await t.http().get(`${API}/version`));
  });
});

describe('a malformed id in a body is described by its kind, never echoed as [object Object] or a rounded number', () => {
  it('answers badRequest-1-0-2 naming what was sent', async () => {
    const u = await createUser(t);
    const create = (projectId: string) =>
      t
        .http()
        .post(`${API}/file/rows.csv/createDataset`)
        .set('Authorization', u.auth)
        .set('Content-Type', 'application/json')
        .send(`{"projectId":${projectId},"name":"rows","fileSizeInBytes":1}`);
    const messages: string[] = [];
    for (const raw of ['{"$gt":0}', '9223372036854775807', '[1]', '"12a"']) {
      const res = await create(raw);
      expectError(res, 'badRequest-1-0-2');
      messages.push(res.body.message);
    }
    expect(messages).toEqual([
      'malformed project id (a JSON object): ids are positive integers, as numbers or strings of digits',
      'malformed project id (a JSON number): ids are positive integers, as numbers or strings of digits',
      'malformed project id (a JSON array): ids are positive integers, as numbers or strings of digits',
      'malformed project id "12a": ids are positive integers, as numbers or strings of digits',
    ]);
  });
});

describe('names are visible: not only spaces, no control characters', () => {
  it('refuses blank names and terminal escapes with the name codes, and takes any other text', async () => {
    const u = await createUser(t);
    const create = (name: string) => t.http().post(`${API}/createProject`).set('Authorization', u.auth).send({ name });
    for (const name of ['   ', '\u0007\u001b[31m', 'a\tb', 'x\u0085']) expectError(await create(name), 'badRequest-100-0-1');
    for (const name of ['Cohort A', 'é', '  padded  ', '数据']) expectSuccess(await create(name));
    const p = await createProject(t, u.auth, 'names');
    const dataset = await t
      .http()
      .post(`${API}/file/rows.csv/createDataset`)
      .set('Authorization', u.auth)
      .send({ projectId: Number(p), name: '    ', fileSizeInBytes: 1 });
    expectError(dataset, 'badRequest-110-0-2');
  });
});

describe("finding 8: reading a prediction needs read on the model's project and on the dataset's", () => {
  it("refuses a reader of the model's project alone, and leaves the prediction out of its list", async () => {
    const ownerA = await createUser(t);
    const ownerB = await createUser(t);
    const a = await createProject(t, ownerA.auth, 'A');
    const b = await createProject(t, ownerB.auth, 'B');
    const executor = await createUser(t); // execute on A, read on B: may run the prediction
    await share(a, executor, true, false, true);
    await share(b, executor, true, false, false);
    const readerA = await createUser(t); // read on A only
    await share(a, readerA, true, false, false);
    const readerBoth = await createUser(t);
    await share(a, readerBoth, true, false, false);
    await share(b, readerBoth, true, false, false);

    const trainId = await dataset(a, 'train');
    const analysisId = await finishedAnalysis(a, trainId, ownerA.userId);
    const otherId = await dataset(b, 'secret samples');
    const predictionId = await finishedPrediction(analysisId, otherId, executor.userId, [
      { row: 0, sampleId: 'patient-007', prediction: 'x' },
    ]);
    const own = await finishedPrediction(analysisId, trainId, ownerA.userId, [{ row: 0, prediction: 'x' }]);

    const get = (path: string, who: User) =>
      t
        .http()
        .get(API + path)
        .set('Authorization', who.auth);
    for (const path of [
      `/prediction/${predictionId}/status`,
      `/prediction/${predictionId}/result`,
      `/prediction/${predictionId}/result?format=csv`,
    ]) {
      expect({ path, status: (await get(path, readerA)).status }).toEqual({ path, status: 403 });
      expect({ path, status: (await get(path, ownerA)).status }).toEqual({ path, status: 403 });
      expect({ path, status: (await get(path, readerBoth)).status }).toEqual({ path, status: 200 });
      expect({ path, status: (await get(path, executor)).status }).toEqual({ path, status: 200 });
    }
    expect(expectSuccess(await get(`/prediction/${predictionId}/result`, readerBoth)).predictions[0].sampleId).toBe('patient-007');
    const listed = async (who: User) =>
      expectSuccess(await get(`/analysis/${analysisId}/predictions/0/10`, who)).data.map((x: { predictionId: string }) => x.predictionId);
    expect(await listed(readerA)).toEqual([own]);
    expect(expectSuccess(await get(`/analysis/${analysisId}/predictions/0/10`, readerA)).totalCount).toBe(1);
    expect(await listed(readerBoth)).toEqual([predictionId, own]);
    // an unknown prediction is still notFound, not 403
    expectError(await get(`/prediction/987654321/status`, readerA), 'notFound-150-1-1');
  });
});

describe('a nested key named after a prototype member ("constructor", "toString" ...) is data, never HTTP 500', () => {
  it('gives the value its own error where it is not an object, and is a feature name like any other in featureTypes', async () => {
    const u = await createUser(t);
    const p = await createProject(t, u.auth);
    const post = (path: string, body: object, auth: string | undefined = u.auth) => {
      const req = t
        .http()
        .post(API + path)
        .set('Content-Type', 'application/json');
      if (auth) req.set('Authorization', auth);
      return req.send(JSON.stringify(body));
    };
    const nested = { constructor: 1 };
    expectError(await post('/login', { usernameOrEmail: nested, password: 'whatever-1' }, undefined), 'badRequest-1-0-6');
    expectError(await post('/createProject', { name: nested }), 'badRequest-1-0-6');
    expectError(await post('/createProject', { name: 'fine', description: { toString: 'x' } }), 'badRequest-1-0-6');
    const shareRes = await post(`/project/${p}/share`, { username: u.username, permissions: [nested] });
    expect({ http: shareRes.status, status: shareRes.body.status }).toEqual({ http: 200, status: 'error' });
    const ds = await uploadDataset(t, u.auth, p, 'constructor,toString,y\n1,2,a\n3,4,b\n5,6,a\n');
    const analysisId = await finishedAnalysis(p, ds, u.userId);
    expectError(
      await post(`/dataset/${ds}/analyze`, { outcome: { classification: nested }, thoroughness: 'preliminary', coreCount: 1, name: 'x' }),
      'badRequest-120-0-1', // an outcome names its feature with a string
    );
    // and a feature may be named "constructor"
    expectError(
      await post(`/dataset/${ds}/analyze`, { outcome: { regression: 'constructor' }, thoroughness: 'x', coreCount: 1, name: 'x' }),
      'badRequest-120-0-4',
    );
    expectError(await post(`/analysis/${analysisId}/predict/${ds}`, { modelKey: { constructor: 'best' } }), 'badRequest-1-0-6');
    // featureTypes maps the dataset's own feature names: "constructor" and "toString" are two of them here
    expectSuccess(
      await post(`/dataset/${ds}/changeFeatureTypes`, { featureTypes: { constructor: 'categorical', toString: 'categorical' } }),
    );
    const { features } = expectSuccess(await t.http().get(`${API}/dataset/${ds}/features`).set('Authorization', u.auth));
    expect(features.map((f: { name: string; type: string }) => [f.name, f.type])).toEqual([
      ['constructor', 'categorical'], // numbers, typed categorical by name
      ['toString', 'categorical'],
      ['y', 'categorical'],
    ]);
    expectError(await post(`/dataset/${ds}/changeFeatureTypes`, { featureTypes: { valueOf: 'categorical' } }), 'badRequest-110-3-1');
    expectSuccess(await t.http().get(`${API}/version`));
  });
});

describe('percent-encoding in paths and query strings', () => {
  it('refuses a path segment that is not percent-encoding with the path code, in its own words', async () => {
    const u = await createUser(t);
    const project = await t.http().get(`${API}/project/%`).set('Authorization', u.auth);
    expectError(project, 'badRequest-1-0-2');
    expect(project.body.message).toBe('a path segment is not valid percent-encoding');
    expectError(await t.http().post(`${API}/file/a%zz/delete`).set('Authorization', u.auth), 'badRequest-115-0-1');
  });

  it('refuses a query string value that is not UTF-8 (it used to become U+FFFD) with badRequest-1-0-6', async () => {
    const u = await createUser(t);
    const p = await createProject(t, u.auth);
    const analysisId = await finishedAnalysis(p, await dataset(p, 'data'), u.userId);
    for (const bad of ['%ED%A0%80', '%C0%AF', '%FF']) {
      const res = await t.http().get(`${API}/analysis/${analysisId}/availablePlots?modelKey=${bad}`).set('Authorization', u.auth);
      expectError(res, 'badRequest-1-0-6');
      expect(res.body.message).not.toContain('\uFFFD');
    }
    // well-formed percent-encoding and + still read as text
    const res = await t.http().get(`${API}/analysis/${analysisId}/availablePlots?modelKey=b%C3%A9st+one`).set('Authorization', u.auth);
    expectError(res, 'notFound-140-1-1');
    expect(res.body.message).toContain('"bést one"');
  });
});

describe('finding 9: modelKey must be an own key of the result', () => {
  it('refuses constructor, __proto__, toString and friends with notFound-140-1-1 and queues nothing', async () => {
    const u = await createUser(t);
    const p = await createProject(t, u.auth);
    const ds = await dataset(p, 'data');
    const analysisId = await finishedAnalysis(p, ds, u.userId);
    for (const modelKey of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
      const res = await t.http().post(`${API}/analysis/${analysisId}/predict/${ds}`).set('Authorization', u.auth).send({ modelKey });
      expect({ modelKey, code: res.body.code }).toEqual({ modelKey, code: 'notFound-140-1-1' });
    }
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM predictions WHERE analysis_id = $1`, [analysisId]);
    expect(n).toBe(0);
  });
});

describe('finding 10: the predictions CSV carries no spreadsheet formula', () => {
  it('prefixes a quote to text cells starting with = + - @ tab or CR, and leaves numbers alone', async () => {
    const u = await createUser(t);
    const p = await createProject(t, u.auth);
    const ds = await dataset(p, 'data');
    const analysisId = await finishedAnalysis(p, ds, u.userId);
    const predictionId = await finishedPrediction(analysisId, ds, u.userId, [
      { row: 0, sampleId: '=cmd|calc!A1', prediction: '@SUM(1)' },
      { row: 1, sampleId: '+1+1', prediction: '-x' },
      { row: 2, sampleId: '\tTAB', prediction: '\rCR' },
      { row: 3, sampleId: '-12.5', prediction: -0.5 },
    ]);
    const res = await t.http().get(`${API}/prediction/${predictionId}/result`).query({ format: 'csv' }).set('Authorization', u.auth);
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      ['row,sampleId,prediction', "0,'=cmd|calc!A1,'@SUM(1)", "1,'+1+1,'-x", `2,'\tTAB,"'\rCR"`, '3,-12.5,-0.5', ''].join('\n'),
    );
  });
});

describe('finding 12: an image over MAX_IMAGE_PIXELS is refused at add, from its header', () => {
  it('answers badRequest-130-2-5 for a 100000 x 100000 PNG and keeps the sample free for a real image', async () => {
    const u = await createUser(t);
    const p = await createProject(t, u.auth);
    const { taskId } = expectSuccess(
      await t
        .http()
        .post(`${API}/image/initUpload`)
        .set('Authorization', u.auth)
        .field('attributes', JSON.stringify({ projectId: Number(p), name: 'scans' }))
        .attach('file', Buffer.from('sampleId,label\ns1,a\n'), 'l.csv'),
    );
    const add = (file: Buffer) =>
      t.http().post(`${API}/image/${taskId}/add`).set('Authorization', u.auth).field('sampleId', 's1').attach('file', file, 'i.png');
    const res = await add(pngHeader(100_000, 100_000));
    expectError(res, 'badRequest-130-2-5');
    expect(res.body.message).toContain('100000 x 100000');
    expectError(await add(pngHeader(10_000, 5_001)), 'badRequest-130-2-5'); // 50,010,000 pixels: just over the default
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM image_samples WHERE task_id = $1 AND image IS NOT NULL`, [taskId]);
    expect(n).toBe(0);
  });
});

describe('finding 4: login does the same work for unknown users and throttles failures', () => {
  it('takes about as long for an unknown user as for a known one with a wrong password', async () => {
    const u = await createUser(t);
    const time = async (usernameOrEmail: string) => {
      const start = process.hrtime.bigint();
      expectError(await t.http().post(`${API}/login`).send({ usernameOrEmail, password: 'wrong-password' }), 'auth-10-3');
      return Number(process.hrtime.bigint() - start) / 1e6;
    };
    const median = (xs: number[]) => xs.sort((x, y) => x - y)[xs.length >> 1];
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 7; i++) {
      known.push(await time(u.username));
      unknown.push(await time(`nobody-${i}`)); // a new name each time: no name reaches its failure limit
    }
    // before: ~47 ms against ~3 ms; with the dummy verify both do one scrypt (a loaded machine adds noise)
    expect(median(unknown)).toBeGreaterThan(median(known) * 0.4);
  });

  it('refuses every login for a name after LOGIN_MAX_FAILURES_PER_USER failures, even the right password, with auth-10-4', async () => {
    const s = await createTestApp({ LOGIN_MAX_FAILURES_PER_USER: '3', LOGIN_MAX_FAILURES_PER_ADDRESS: '6' });
    try {
      const alice = await createUser(s);
      const bob = await createUser(s);
      const login = (usernameOrEmail: string, password: string) => s.http().post(`${API}/login`).send({ usernameOrEmail, password });
      for (let i = 0; i < 3; i++) expectError(await login(alice.username, 'wrong-password'), 'auth-10-3');
      expectError(await login(alice.username, `password-${alice.username}`), 'auth-10-4');
      expectError(await login(alice.username.toUpperCase(), 'wrong-password'), 'auth-10-4');
      // another name from the same address is not blocked yet (3 of 6 failures), and a success does not count
      expect(expectSuccess(await login(bob.username, `password-${bob.username}`)).token).toEqual(expect.any(String));
      // a spray of names from one address: blocked after the sixth failure, for every name
      for (let i = 0; i < 3; i++) expectError(await login(`sprayed-${i}`, 'wrong-password'), 'auth-10-3');
      expectError(await login(bob.username, `password-${bob.username}`), 'auth-10-4');
    } finally {
      await s.close();
    }
  });

  it('counts a client behind trusted proxies by its forwarded address (TRUST_PROXY), and ignores X-Forwarded-For otherwise', async () => {
    const env = { LOGIN_MAX_FAILURES_PER_USER: '100', LOGIN_MAX_FAILURES_PER_ADDRESS: '2' };
    const fail = (s: TestApp, forwardedFor: string, name = `nobody-${forwardedFor}`) =>
      s.http().post(`${API}/login`).set('X-Forwarded-For', forwardedFor).send({ usernameOrEmail: name, password: 'wrong-password' });
    // supertest connects from loopback: with TRUST_PROXY=loopback that peer is a proxy naming the client
    const proxied = await createTestApp({ ...env, TRUST_PROXY: 'loopback' });
    try {
      expectError(await fail(proxied, '203.0.113.5'), 'auth-10-3');
      expectError(await fail(proxied, '203.0.113.5'), 'auth-10-3');
      expectError(await fail(proxied, '203.0.113.5'), 'auth-10-4');
      expectError(await fail(proxied, '198.51.100.9'), 'auth-10-3'); // another client behind the same proxy
    } finally {
      await proxied.close();
    }
    // without it, the header is the client's own claim: a client cannot dodge its address's limit by changing it
    const direct = await createTestApp(env);
    try {
      expectError(await fail(direct, '203.0.113.5'), 'auth-10-3');
      expectError(await fail(direct, '198.51.100.9'), 'auth-10-3');
      expectError(await fail(direct, '192.0.2.1'), 'auth-10-4');
    } finally {
      await direct.close();
    }
  });

  it('counts failed logins across API processes (one database): two processes do not double the limit', async () => {
    const env = { LOGIN_MAX_FAILURES_PER_USER: '3' };
    const first = await createTestApp(env);
    const second = await createTestApp(env, first.databaseUrl);
    try {
      const alice = await createUser(first);
      const login = (s: TestApp, password: string) => s.http().post(`${API}/login`).send({ usernameOrEmail: alice.username, password });
      expectError(await login(first, 'wrong-password'), 'auth-10-3');
      expectError(await login(first, 'wrong-password'), 'auth-10-3');
      expectError(await login(second, 'wrong-password'), 'auth-10-3');
      expectError(await login(first, `password-${alice.username}`), 'auth-10-4');
      expectError(await login(second, `password-${alice.username}`), 'auth-10-4');
    } finally {
      await second.close();
      await first.close();
    }
  });
});

describe('issue 41, finding 13: a key given twice, and times that repeat or run backwards, are refused', () => {
  it('a JSON body or a multipart JSON field giving a key twice in one object is malformed (badRequest-1-0-4)', async () => {
    const u = await createUser(t);
    const p = await createProject(t, u.auth);
    const send = (path: string, body: string) => rawJson(u.auth, path, body);
    const twice = expectError(await send('/createProject', '{"name":"first","name":"second"}'), 'badRequest-1-0-4');
    expect(twice.message).toBe('the JSON body gives the key "name" twice in one object');
    // the same key written with an escape is the same key; in a nested object too
    expectError(await send('/createProject', '{"name":"a","n\\u0061me":"b"}'), 'badRequest-1-0-4');
    expectError(await send(`/project/${p}/share`, '{"username":"x","permissions":["read"],"x":{"a":1,"a":2}}'), 'badRequest-1-0-4');
    const res = await t
      .http()
      .post(`${API}/image/initUpload`)
      .set('Authorization', u.auth)
      .field('attributes', `{"projectId":${p},"name":"scans","name":"other"}`)
      .attach('file', Buffer.from('sampleId\ns1\n'), 'l.csv');
    expect(expectError(res, 'badRequest-1-0-4').message).toBe('attributes gives the key "name" twice in one object');
    // the same key in two objects, or a value equal to a key, is fine
    expectSuccess(await send('/createProject', '{"name":"name","description":"{\\"name\\":1}"}'));
  });

  it('times must increase, each once, up to 10^15 (a time twice made two CSV columns of one name; 1e308 came back as 309 digits)', async () => {
    const u = await createUser(t);
    const p = await createProject(t, u.auth);
    const ds = await dataset(p, 'times');
    const analysisId = await finishedAnalysis(p, ds, u.userId);
    const predict = (times: unknown) =>
      t.http().post(`${API}/analysis/${analysisId}/predict/${ds}`).set('Authorization', u.auth).send({ modelKey: 'best', times });
    for (const times of [[180, 180], [365, 180], [1e308], [1, 2, 2e15]]) {
      const body = expectError(await predict(times), 'badRequest-1-0-6');
      expect(body.message).toBe('times must be an array of 1 to 100 numbers from 0 to 1000000000000000, increasing, each given once');
    }
    // sound times pass the check: what is refused next is this synthetic result's missing model
    expectError(await predict([180, 365.5, 1e15]), 'badRequest-150-0-1');
  });
});
