import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { drainedOrClosed } from '../src/common/drained';
import { API, createProject, createTestApp, createUser, expectError, expectSuccess, pngOfSize, pollUntil, TestApp } from './utils';

/**
 * Uploads under hostile clients: slow ones must not stall the service, silent ones are cut, one user
 * cannot open unbounded uploads nor store unbounded bytes; and the files routes (list, delete).
 */

type User = Awaited<ReturnType<typeof createUser>>;

async function listening(t: TestApp): Promise<number> {
  const server = t.app.getHttpServer() as import('node:http').Server;
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

interface SlowUpload {
  socket: net.Socket;
  /** Everything the server sent back so far. */
  received: () => string;
  closed: Promise<void>;
}

/** A client that announces `announced` bytes, sends `first`, then keeps the socket open and silent. */
function slowUpload(port: number, user: User, fileId: string, announced: number, first = 'abcd'): Promise<SlowUpload> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.on('data', (d) => (data += d.toString('utf8')));
    socket.on('error', () => undefined); // the server may cut it: that is the point of some tests
    socket.on('connect', () => {
      socket.write(
        `POST ${API}/file/${fileId}/upload HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${user.auth}\r\n` +
          `Content-Type: application/octet-stream\r\nContent-Length: ${announced}\r\n\r\n${first}`,
        () => resolve({ socket, received: () => data, closed }),
      );
    });
    socket.on('error', reject);
  });
}

async function timed<T>(f: () => PromiseLike<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint();
  const value = await f();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

async function uploadingRows(t: TestApp): Promise<number> {
  const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM files WHERE state = 'uploading'`);
  return n;
}

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('slow uploads', () => {
  let t: TestApp;
  let port: number;
  let users: User[];
  beforeAll(async () => {
    // the default pool (20 connections) and the default wait: 22 slow clients used to take every connection
    t = await createTestApp({ MAX_UPLOADS_PER_USER: '50' });
    port = await listening(t);
    users = [await createUser(t), await createUser(t)];
  });
  afterAll(async () => {
    await t.close();
  });

  it('24 clients that announce 10 MB and send 4 bytes stall neither /health/ready nor the list routes', async () => {
    const user = users[0];
    const projectId = await createProject(t, user.auth, 'slow');
    const kept = expectSuccess(
      await t.http().post(`${API}/file/kept/upload`).set('Authorization', user.auth).set('Content-Type', 'text/csv').send('a,b\n1,2\n'),
    );
    const slow = await Promise.all(
      Array.from({ length: 24 }, (_, i) => slowUpload(port, users[i % 2], i ? `slow${i}` : 'kept', 10_000_000)),
    );
    await until(async () => (await uploadingRows(t)) === 24);

    for (let round = 0; round < 3; round++) {
      const ready = await timed(() => t.http().get(`${API}/health/ready`));
      expect(ready.value.status).toBe(200);
      expect(ready.ms).toBeLessThan(500);
      const files = await timed(() => t.http().get(`${API}/files/0/100`).set('Authorization', user.auth));
      expect(expectSuccess(files.value).data.map((f: { fileId: string }) => f.fileId)).toEqual(['kept']);
      expect(files.ms).toBeLessThan(500);
      const datasets = await timed(() => t.http().get(`${API}/datasets/${projectId}/0/10`).set('Authorization', user.auth));
      expectSuccess(datasets.value);
      expect(datasets.ms).toBeLessThan(500);
    }

    // the clients give up: nothing half-written stays, and "kept" (also being replaced) is as it was
    for (const s of slow) s.socket.destroy();
    await until(async () => (await uploadingRows(t)) === 0);
    const files = expectSuccess(await t.http().get(`${API}/files/0/100`).set('Authorization', user.auth));
    expect(files.data).toEqual([expect.objectContaining({ fileId: 'kept', sizeInBytes: kept.sizeInBytes })]);
  }, 60_000);
});

describe('upload limits', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({ UPLOAD_IDLE_TIMEOUT_SECONDS: '1', MAX_UPLOADS_PER_USER: '2', USER_STORAGE_QUOTA_BYTES: '1000' });
    port = await listening(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('cuts an upload that sends nothing for UPLOAD_IDLE_TIMEOUT_SECONDS, with badRequest-1-0-8, and keeps the stored file', async () => {
    const user = await createUser(t);
    expectSuccess(await t.http().post(`${API}/file/f1/upload`).set('Authorization', user.auth).send(Buffer.from('x,y\n1,2\n')));
    const started = Date.now();
    const silent = await slowUpload(port, user, 'f1', 500);
    await silent.closed; // the server closes the connection after its answer
    expect(Date.now() - started).toBeLessThan(5000);
    expect(silent.received()).toMatch(/^HTTP\/1\.1 200/);
    expect(silent.received()).toContain('"code":"badRequest-1-0-8"');
    expect(await uploadingRows(t)).toBe(0);
    const files = expectSuccess(await t.http().get(`${API}/files/0/10`).set('Authorization', user.auth));
    expect(files.data).toEqual([expect.objectContaining({ fileId: 'f1', sizeInBytes: 8 })]);
  });

  it('cuts a JSON body that sends nothing for UPLOAD_IDLE_TIMEOUT_SECONDS too (it was held for 5 minutes)', async () => {
    const user = await createUser(t);
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d) => (data += d.toString('utf8')));
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    const started = Date.now();
    socket.write(
      `POST ${API}/createProject HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${user.auth}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`,
    );
    await closed;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(data).toMatch(/^HTTP\/1\.1 200/);
    expect(data).toContain('"code":"badRequest-1-0-8"');
    const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM projects WHERE owner_id = $1', [user.userId]);
    expect(n).toBe(0);
    // a body that keeps coming is not cut, however long it takes in all
    const slow = net.connect(port, '127.0.0.1');
    let answer = '';
    slow.on('data', (d) => (answer += d.toString('utf8')));
    const answered = new Promise<void>((done) => slow.on('close', () => done()));
    const body = '{"name":"slow but steady"}';
    slow.write(
      `POST ${API}/createProject HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${user.auth}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    for (const c of body) {
      slow.write(c);
      await new Promise((r) => setTimeout(r, 100)); // 2.7 s in all, never 1 s silent
    }
    await answered;
    expect(answer).toContain('"status":"success"');
  });

  it('bounds the uploads one user has in progress (tooMany-115-0-2); other users are not affected', async () => {
    const [user, other] = [await createUser(t), await createUser(t)];
    const open = [await slowUpload(port, user, 'a', 100), await slowUpload(port, user, 'b', 100)];
    await until(async () => (await uploadingRows(t)) === 2);
    expectError(await t.http().post(`${API}/file/c/upload`).set('Authorization', user.auth).send(Buffer.from('1,2\n')), 'tooMany-115-0-2');
    expectSuccess(await t.http().post(`${API}/file/c/upload`).set('Authorization', other.auth).send(Buffer.from('1,2\n')));
    for (const s of open) s.socket.destroy();
    await until(async () => (await uploadingRows(t)) === 0);
    // slots come back when uploads end, however they end
    expectSuccess(await t.http().post(`${API}/file/c/upload`).set('Authorization', user.auth).send(Buffer.from('1,2\n')));
  });

  it('bounds them across API processes on one database, image inits included', async () => {
    const second = await createTestApp({ UPLOAD_IDLE_TIMEOUT_SECONDS: '1', MAX_UPLOADS_PER_USER: '2' }, t.databaseUrl);
    try {
      const user = await createUser(t);
      const open = [await slowUpload(port, user, 'a', 100), await slowUpload(await listening(second), user, 'b', 100)];
      await until(async () => (await uploadingRows(t)) === 2);
      const small = (app: TestApp) => app.http().post(`${API}/file/c/upload`).set('Authorization', user.auth).send(Buffer.from('1,2\n'));
      expectError(await small(t), 'tooMany-115-0-2');
      expectError(await small(second), 'tooMany-115-0-2');
      const init = await second
        .http()
        .post(`${API}/image/initUpload`)
        .set('Authorization', user.auth)
        .field('attributes', JSON.stringify({ projectId: 1, name: 'scans' }))
        .attach('file', Buffer.from('sampleId\ns1\n'), 'init.csv');
      expectError(init, 'tooMany-115-0-2');
      for (const s of open) s.socket.destroy();
      await until(async () => (await uploadingRows(t)) === 0);
      expectSuccess(await small(second));
    } finally {
      await second.close();
    }
  });

  it('an image add streams under the upload slots and the idle timeout: one missing its last byte is cut (it stayed open 50 s, the image held in memory); one over 1 MiB goes to a spool file, removed', async () => {
    const user = await createUser(t);
    const projectId = await createProject(t, user.auth, 'stalled-adds');
    const { taskId } = expectSuccess(
      await t
        .http()
        .post(`${API}/image/initUpload`)
        .set('Authorization', user.auth)
        .field('attributes', JSON.stringify({ projectId: Number(projectId), name: 'scans' }))
        .attach('file', Buffer.from('id\ns1\ns2\n'), 'init.csv'),
    );
    const slots = async () => (await t.db.query('SELECT count(*)::int AS n FROM upload_slots WHERE user_id = $1', [user.userId]))[0].n;
    const spool = path.join(t.config.dataDir, 'spool');
    const body = (sampleId: string, image: Buffer) =>
      Buffer.concat([
        Buffer.from(
          `--x\r\nContent-Disposition: form-data; name="sampleId"\r\n\r\n${sampleId}\r\n` +
            `--x\r\nContent-Disposition: form-data; name="file"; filename="${sampleId}.png"\r\nContent-Type: image/png\r\n\r\n`,
        ),
        image,
        Buffer.from('\r\n--x--\r\n'),
      ]);
    const stalledAdd = (sent: Buffer) =>
      new Promise<SlowUpload>((resolve) => {
        const socket = net.connect(port, '127.0.0.1');
        let data = '';
        const closed = new Promise<void>((done) => socket.on('close', () => done()));
        socket.on('data', (d) => (data += d.toString('utf8')));
        socket.on('error', () => undefined);
        socket.on('connect', () => {
          socket.write(
            `POST ${API}/image/${taskId}/add HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${user.auth}\r\n` +
              `Content-Type: multipart/form-data; boundary=x\r\nContent-Length: ${sent.length}\r\n\r\n`,
          );
          socket.write(sent.subarray(0, sent.length - 1), () => resolve({ socket, received: () => data, closed }));
        });
      });
    const started = Date.now();
    // a small image is held in memory as it arrives, one over IN_MEMORY_IMAGE_BYTES (1 MiB) goes to a spool file
    const open = [await stalledAdd(body('s1', pngOfSize(20_000))), await stalledAdd(body('s2', pngOfSize(1_500_000)))];
    await until(async () => (await slots()) === 2 && fs.readdirSync(spool).length === 1);
    // the two adds fill the user's slots: a third upload waits its turn
    expectError(await t.http().post(`${API}/file/c/upload`).set('Authorization', user.auth).send(Buffer.from('1,2\n')), 'tooMany-115-0-2');
    await Promise.all(open.map((o) => o.closed));
    expect(Date.now() - started).toBeLessThan(8000);
    for (const o of open) expect(o.received()).toContain('"code":"badRequest-1-0-8"');
    expect(await slots()).toBe(0);
    const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM image_samples WHERE task_id = $1 AND image IS NOT NULL', [taskId]);
    expect(n).toBe(0);
    expect(fs.readdirSync(spool)).toEqual([]);
  });

  it('refuses an upload that would exceed USER_STORAGE_QUOTA_BYTES (badRequest-115-0-3); a replacement counts once', async () => {
    const user = await createUser(t);
    const up = (id: string, n: number) =>
      t.http().post(`${API}/file/${id}/upload`).set('Authorization', user.auth).send(Buffer.alloc(n, 'a'));
    expectSuccess(await up('one', 600));
    expectError(await up('two', 500), 'badRequest-115-0-3');
    expectSuccess(await up('one', 900)); // replaces the 600 bytes
    expectSuccess(await up('two', 100));
    expectError(await up('three', 1), 'badRequest-115-0-3');
    const files = expectSuccess(await t.http().get(`${API}/files/0/10`).set('Authorization', user.auth));
    expect(files.data.map((f: { fileId: string; sizeInBytes: number }) => [f.fileId, f.sizeInBytes])).toEqual([
      ['one', 900],
      ['two', 100],
    ]);
    // a body without Content-Length is counted while it streams: refused as it crosses the quota, nothing kept
    const chunked = await new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      let data = '';
      socket.on('data', (d) => (data += d.toString('utf8')));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(data));
      socket.write(
        `POST ${API}/file/three/upload HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${user.auth}\r\n` +
          `Content-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      const piece = 'a'.repeat(100);
      let sent = 0;
      const timer = setInterval(() => {
        if (socket.destroyed || sent > 50) return clearInterval(timer);
        socket.write(`${piece.length.toString(16)}\r\n${piece}\r\n`);
        sent++;
      }, 5);
    });
    expect(chunked).toContain('"code":"badRequest-115-0-3"');
    expect(await uploadingRows(t)).toBe(0);
    // deleting frees the room
    expectSuccess(await t.http().post(`${API}/file/one/delete`).set('Authorization', user.auth));
    expectSuccess(await up('three', 800));
  });
});

describe('the files routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    // no workers: a dataset creation stays pending, so "in use" is deterministic
    t = await createTestApp({ RUN_WORKERS: 'false' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses a file sent as a form (its envelope was stored as the file), and takes the raw bytes under any other type', async () => {
    const user = await createUser(t);
    const upload = (id: string) => t.http().post(`${API}/file/${id}/upload`).set('Authorization', user.auth);
    const form = await upload('form').attach('file', Buffer.from('a,b\n1,2\n'), 'rows.csv');
    expectError(form, 'badRequest-1-0-4');
    expect(form.body.message).toBe("send the file's bytes as the body (curl --data-binary @file.csv), not a form");
    expectError(await upload('urlencoded').type('form').send('a=1'), 'badRequest-1-0-4');
    for (const type of ['text/csv', 'application/octet-stream', 'text/plain']) {
      expect(expectSuccess(await upload('raw').set('Content-Type', type).send(Buffer.from('a,b\n1,2\n'))).sizeInBytes).toBe(8);
    }
    const files = expectSuccess(await t.http().get(`${API}/files/0/10`).set('Authorization', user.auth));
    expect(files.data.map((f: { fileId: string }) => f.fileId)).toEqual(['raw']);
  });

  it('lists the caller’s files only, with size, creation time and use; deletes them (owner only)', async () => {
    const [user, other] = [await createUser(t), await createUser(t)];
    const projectId = await createProject(t, user.auth);
    for (const id of ['b.csv', 'a.csv']) {
      expectSuccess(
        await t
          .http()
          .post(`${API}/file/${id}/upload`)
          .set('Authorization', user.auth)
          .send(Buffer.from(`${id}\n1\n`)),
      );
    }
    const page = expectSuccess(await t.http().get(`${API}/files/0/10`).set('Authorization', user.auth));
    expect(page).toEqual({
      offset: 0,
      totalCount: 2,
      data: [
        { fileId: 'b.csv', sizeInBytes: 8, created: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), usedByDataset: false, inUse: false },
        { fileId: 'a.csv', sizeInBytes: 8, created: expect.any(String), usedByDataset: false, inUse: false },
      ],
    });
    expect(expectSuccess(await t.http().get(`${API}/files/1/1`).set('Authorization', user.auth)).data).toEqual([
      expect.objectContaining({ fileId: 'a.csv' }),
    ]);
    expectError(await t.http().get(`${API}/files/0/101`).set('Authorization', user.auth), 'badRequest-1-0-1');
    expect(expectSuccess(await t.http().get(`${API}/files/0/10`).set('Authorization', other.auth))).toEqual({
      offset: 0,
      totalCount: 0,
      data: [],
    });
    expect((await t.http().get(`${API}/files/0/10`)).status).toBe(403); // no token

    // a dataset being created from a file: it shows, and the file cannot be deleted
    expectSuccess(
      await t
        .http()
        .post(`${API}/file/a.csv/createDataset`)
        .set('Authorization', user.auth)
        .send({ projectId, name: 'from a', fileSizeInBytes: 8 }),
    );
    const listed = expectSuccess(await t.http().get(`${API}/files/0/10`).set('Authorization', user.auth));
    expect(listed.data[1]).toMatchObject({ fileId: 'a.csv', inUse: true });
    expectError(await t.http().post(`${API}/file/a.csv/delete`).set('Authorization', user.auth), 'conflict-115-5-1');

    // only the owner: another user's delete finds nothing
    expectError(await t.http().post(`${API}/file/b.csv/delete`).set('Authorization', other.auth), 'notFound-115-1-1');
    expect(expectSuccess(await t.http().post(`${API}/file/b.csv/delete`).set('Authorization', user.auth))).toEqual({
      fileId: 'b.csv',
      sizeInBytes: 8,
    });
    expectError(await t.http().post(`${API}/file/b.csv/delete`).set('Authorization', user.auth), 'notFound-115-1-1');
    expectError(await t.http().post(`${API}/file/b%20c/delete`).set('Authorization', user.auth), 'badRequest-115-0-1');
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM file_chunks c JOIN files f ON f.id = c.file_pk WHERE f.file_id = 'b.csv'`,
    );
    expect(n).toBe(0);
  });

  it('a user’s files go with the user', async () => {
    const user = await createUser(t);
    expectSuccess(await t.http().post(`${API}/file/x/upload`).set('Authorization', user.auth).send(Buffer.from('1\n')));
    await t.db.query('DELETE FROM users WHERE id = $1', [user.userId]);
    const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM files WHERE user_id = $1', [user.userId]);
    expect(n).toBe(0);
  });
});

describe('files used by datasets', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('shows usedByDataset once the dataset exists, and the file can then be deleted (the dataset keeps its data)', async () => {
    const user = await createUser(t);
    const projectId = await createProject(t, user.auth);
    const csv = Buffer.from('a,b\n1,2\n3,4\n5,6\n');
    expectSuccess(await t.http().post(`${API}/file/d/upload`).set('Authorization', user.auth).send(csv));
    const { taskId } = expectSuccess(
      await t
        .http()
        .post(`${API}/file/d/createDataset`)
        .set('Authorization', user.auth)
        .send({ projectId, name: 'from d', fileSizeInBytes: csv.length }),
    );
    const task = await pollUntil<{ state: string; datasetId?: string }>(
      t,
      user.auth,
      `/task/${taskId}/status`,
      (p) => p.state === 'finished',
    );
    const files = expectSuccess(await t.http().get(`${API}/files/0/10`).set('Authorization', user.auth));
    expect(files.data).toEqual([expect.objectContaining({ fileId: 'd', usedByDataset: true, inUse: false })]);
    expectSuccess(await t.http().post(`${API}/file/d/delete`).set('Authorization', user.auth));
    expectSuccess(await t.http().get(`${API}/dataset/${task.datasetId}`).set('Authorization', user.auth));
  });
});

describe('database pool wait', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ DB_POOL_SIZE: '2', DB_POOL_WAIT_MS: '200', RUN_WORKERS: 'false' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers unavailable-1-0-1 (service busy) when no connection comes free in DB_POOL_WAIT_MS, instead of hanging', async () => {
    const user = await createUser(t);
    const held = [t.db.createQueryRunner(), t.db.createQueryRunner()];
    for (const r of held) await r.connect();
    try {
      const res = await timed(() => t.http().get(`${API}/projects/owned/0/10`).set('Authorization', user.auth));
      expectError(res.value, 'unavailable-1-0-1');
      expect(res.ms).toBeLessThan(2000);
    } finally {
      for (const r of held) await r.release();
    }
    expectSuccess(await t.http().get(`${API}/projects/owned/0/10`).set('Authorization', user.auth));
  });
});

describe('image initUpload: early refusal, bounded memory', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({ MAX_UPLOADS_PER_USER: '20' });
    port = await listening(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const MB = 1024 * 1024;
  const piece = Buffer.alloc(MB, 'x');

  /**
   * A multipart init of `fileMb` MiB, attributes first (or the file first). The client waits up to
   * `pauseMs` after the first MiB of the file for an early answer, then sends the rest (with
   * backpressure: the client never queues much in this process). Gives the answer and the file MiB
   * sent before it came.
   */
  function init(user: User, attributes: object, fileMb: number, opts: { fileFirst?: boolean; pauseMs?: number } = {}) {
    return new Promise<{ status: number; body: string; sentMb: number; ms: number }>((resolve, reject) => {
      const boundary = 'xxBOUNDARYxx';
      const attrPart = `--${boundary}\r\nContent-Disposition: form-data; name="attributes"\r\n\r\n${JSON.stringify(attributes)}\r\n`;
      const fileHead = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="labels.csv"\r\nContent-Type: text/csv\r\n\r\n`;
      const started = Date.now();
      let sentMb = 0;
      let answered = false;
      const req = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `${API}/image/initUpload`,
        headers: {
          Authorization: user.auth,
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          'Content-Length': String(
            Buffer.byteLength(attrPart) + Buffer.byteLength(fileHead) + fileMb * MB + 2 + Buffer.byteLength(`--${boundary}--\r\n`),
          ),
        },
      });
      req.on('error', () => undefined); // the server closes after an early answer: writes then fail
      req.on('response', (res) => {
        answered = true;
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, sentMb, ms: Date.now() - started }));
        res.on('error', reject);
      });
      // on to the next write once the request drains or closes (the listener of the other event removed, or one
      // 'close' listener would pile up per write that waited)
      const write = async (b: Buffer | string) => {
        if (!req.write(b)) await drainedOrClosed(req);
      };
      void (async () => {
        if (!opts.fileFirst) await write(attrPart);
        await write(fileHead);
        for (let i = 0; i < fileMb && !answered && !req.destroyed; i++) {
          await write(piece);
          sentMb++;
          if (i === 0 && opts.pauseMs) {
            const end = Date.now() + opts.pauseMs;
            while (!answered && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
          }
        }
        if (answered || req.destroyed) return;
        await write('\r\n');
        if (opts.fileFirst) await write(attrPart);
        req.end(`--${boundary}--\r\n`);
      })();
    });
  }

  it('eight 45 MB bodies naming a project the caller cannot write are refused before the file is read, in bounded memory', async () => {
    const [owner, stranger] = [await createUser(t), await createUser(t)];
    const projectId = await createProject(t, owner.auth, 'not yours');
    const rssBefore = process.memoryUsage().rss;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => init(stranger, { projectId: Number(projectId), name: 'scans' }, 45, { pauseMs: 3000 })),
    );
    const grown = process.memoryUsage().rss - rssBefore;
    for (const a of answers) {
      expect({ status: a.status, body: JSON.parse(a.body) }).toEqual({ status: 403, body: { statusCode: 403, message: 'Forbidden' } });
      expect(a.sentMb).toBe(1); // answered while the client paused after its first MiB
      expect(a.ms).toBeLessThan(2500);
    }
    expect(grown).toBeLessThan(100 * MB); // multer held all 8 x 45 MB
    const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM tasks');
    expect(n).toBe(0);
  }, 60_000);

  it('a file sent before the attributes is spooled to disk, not memory, then refused; the spool is emptied', async () => {
    const [owner, stranger] = [await createUser(t), await createUser(t)];
    const projectId = await createProject(t, owner.auth, 'not yours either');
    const rssBefore = process.memoryUsage().rss;
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => init(stranger, { projectId: Number(projectId), name: 'scans' }, 45, { fileFirst: true })),
    );
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(100 * MB);
    for (const a of answers)
      expect({ status: a.status, body: JSON.parse(a.body) }).toEqual({ status: 403, body: { statusCode: 403, message: 'Forbidden' } });
    expect(fs.readdirSync(path.join(t.config.dataDir, 'spool'))).toEqual([]);
  }, 60_000);

  it('the owner’s init still works, attributes first or last', async () => {
    const owner = await createUser(t);
    const projectId = await createProject(t, owner.auth, 'mine');
    const ok = await t
      .http()
      .post(`${API}/image/initUpload`)
      .set('Authorization', owner.auth)
      .attach('file', Buffer.from('id,label\ns1,a\ns2,b\n'), 'labels.csv')
      .field('attributes', JSON.stringify({ projectId: Number(projectId), name: 'file first' }));
    expect(expectSuccess(ok)).toEqual({ taskId: expect.any(String) });
    expect(fs.readdirSync(path.join(t.config.dataDir, 'spool'))).toEqual([]);
  });
});

describe('MAX_CONNECTIONS', () => {
  it('closes connections beyond it at once (idle sockets by the ten thousand exhausted the file descriptors), and takes new ones as they end', async () => {
    const t = await createTestApp({ MAX_CONNECTIONS: '3' });
    try {
      const port = await listening(t);
      const idle = await Promise.all(
        Array.from(
          { length: 3 },
          () =>
            new Promise<net.Socket>((resolve) => {
              const s = net.connect(port, '127.0.0.1', () => resolve(s));
            }),
        ),
      );
      await new Promise((r) => setTimeout(r, 100));
      const refused = await new Promise<string>((resolve) => {
        http
          .get({ host: '127.0.0.1', port, path: `${API}/health/live` }, (res) => resolve(String(res.statusCode)))
          .on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      });
      expect(refused).toMatch(/ECONNRESET|socket hang up/);
      for (const s of idle) s.destroy();
      await new Promise((r) => setTimeout(r, 100));
      expect((await t.http().get(`${API}/health/live`)).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('the storage quota counts datasets and images too', () => {
  const QUOTA = 8000;
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ USER_STORAGE_QUOTA_BYTES: String(QUOTA) });
  });
  afterAll(async () => {
    await t.close();
  });

  /** A new user's image upload of `ids`, and an add to it of a sound PNG padded to `size` bytes (every byte counts). */
  async function openUpload(name: string, ids: string[]) {
    const user = await createUser(t);
    const projectId = await createProject(t, user.auth, name);
    const init = await t
      .http()
      .post(`${API}/image/initUpload`)
      .set('Authorization', user.auth)
      .field('attributes', JSON.stringify({ projectId: Number(projectId), name }))
      .attach('file', Buffer.from(`sampleId\n${ids.join('\n')}\n`), 'init.csv');
    const { taskId } = expectSuccess<{ taskId: string }>(init);
    const add = (sampleId: string, size: number) =>
      t
        .http()
        .post(`${API}/image/${taskId}/add`)
        .set('Authorization', user.auth)
        .field('sampleId', sampleId)
        .attach('file', pngOfSize(size), 'x.png');
    return { user, taskId, add };
  }

  it('refuses a dataset that would take the user over USER_STORAGE_QUOTA_BYTES (one upload made into copies without end)', async () => {
    const user = await createUser(t);
    const projectId = await createProject(t, user.auth, 'copies');
    // random numbers: the stored columns are about as large as the text (constant ones would pack to a few bytes)
    const csv = Buffer.from('a,b\n' + Array.from({ length: 100 }, () => `${Math.random()},${Math.random()}\n`).join(''));
    expectSuccess(await t.http().post(`${API}/file/rows/upload`).set('Authorization', user.auth).send(csv));
    const create = (name: string) =>
      t
        .http()
        .post(`${API}/file/rows/createDataset`)
        .set('Authorization', user.auth)
        .send({ projectId: Number(projectId), name, fileSizeInBytes: csv.length });
    // datasets are made one by one until the next would not fit: the file, each dataset's stored size and the
    // dataset to come (counted at the file's size until it is built) must stay within the quota
    let kept = csv.length;
    const made: { id: string; size: number }[] = [];
    for (let i = 0; ; i++) {
      expect(i).toBeLessThan(10);
      const res = await create(`copy ${i}`);
      if (kept + csv.length > QUOTA) {
        expectError(res, 'badRequest-115-0-3');
        expect(res.body.message).toMatch(/^a dataset of this file would take you over your storage quota of 8000 bytes/);
        break;
      }
      const { taskId } = expectSuccess(res);
      const task = await pollUntil(
        t,
        user.auth,
        `/task/${taskId}/status`,
        (p: { state: string; datasetId?: string }) => p.state === 'finished',
      );
      const size = expectSuccess(await t.http().get(`${API}/dataset/${task.datasetId}`).set('Authorization', user.auth)).sizeInBytes;
      made.push({ id: task.datasetId as string, size });
      kept += size;
    }
    expect(made.length).toBeGreaterThan(0);
    // the room left is what an upload under another id may take; deleting a dataset gives its size back
    const upload = (n: number) => t.http().post(`${API}/file/other/upload`).set('Authorization', user.auth).send(Buffer.alloc(n, 'a'));
    expectError(await upload(QUOTA - kept + 1), 'badRequest-115-0-3');
    expectSuccess(await t.http().post(`${API}/dataset/${made[0].id}/delete`).set('Authorization', user.auth));
    expectError(await upload(QUOTA - kept + made[0].size + 1), 'badRequest-115-0-3');
    expectSuccess(await upload(QUOTA - kept + made[0].size));
  }, 60_000);

  it("refuses an image that would take the upload's owner over the quota", async () => {
    const { add } = await openUpload('scans', ['s1', 's2', 's3']);
    expectSuccess(await add('s1', 6000));
    const refused = await add('s2', 2500);
    expectError(refused, 'badRequest-115-0-3');
    expect(refused.body.message).toMatch(/^this image would take you over your storage quota of 8000 bytes \(6000 kept/);
    expectSuccess(await add('s2', 1500));
  });

  it("an add reserves its room under the owner's files lock, the one file uploads and dataset builds take", async () => {
    const { user, add: addImage } = await openUpload('locked scans', ['a']);
    const runner = t.db.createQueryRunner();
    await runner.startTransaction();
    let answered = false;
    try {
      // the lock as createDataset takes it (datasets.service.ts)
      await runner.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`files:${user.userId}`]);
      const add = addImage('a', 500).then((res) => {
        answered = true;
        return res;
      });
      // the add waits for that lock, and answers once it is free
      await until(
        async () => (await t.db.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`))[0].n === 1,
      );
      expect(answered).toBe(false);
      await runner.commitTransaction();
      expectSuccess(await add);
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.release();
    }
  });

  it('lets exactly as many images in as fit when adds race (each reserves its room before it writes, with no lock held)', async () => {
    const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const { user, taskId, add: addImage } = await openUpload('racing scans', ids);
    const add = (sampleId: string) => addImage(sampleId, 2500);
    // 8000 bytes hold three images of 2500: of eight sent four at a time (MAX_UPLOADS_PER_USER), three are kept
    const outcomes: string[] = [];
    for (let i = 0; i < ids.length; i += 4) {
      const answers = await Promise.all(ids.slice(i, i + 4).map(add));
      for (const res of answers) outcomes.push(res.body.status === 'success' ? 'added' : res.body.code);
    }
    expect(outcomes.filter((o) => o === 'added')).toHaveLength(3);
    expect(outcomes.filter((o) => o !== 'added')).toEqual(Array(5).fill('badRequest-115-0-3'));
    // the add's own counters say what is stored, and no reservation is left behind
    const [kept] = await t.db.query(
      `SELECT (SELECT sum(octet_length(image))::int FROM image_samples WHERE task_id = $1) AS images,
              (SELECT sum(bytes)::int FROM image_upload_bytes WHERE task_id = $1) AS counted,
              (SELECT count(*)::int FROM upload_slots WHERE user_id = $2) AS slots`,
      [taskId, user.userId],
    );
    expect(kept).toEqual({ images: 7500, counted: 7500, slots: 0 });
  });
});
