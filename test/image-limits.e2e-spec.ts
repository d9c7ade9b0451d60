import sharp from 'sharp';
import { liveEngineProcesses } from '../src/common/engine-process';
import {
  emptyChunksIn,
  jpegWithComments,
  manyScansJpeg,
  pngWithEmptyChunks,
  rleBombBmp,
  tiffWithDuplicateWidth,
  truncatedBmp,
} from '../bench/hostile-images';
import { API, createProject, createTestApp, createUser, expectError, expectSuccess, pollUntil, TestApp } from './utils';

/**
 * Issue 41, findings 1, 6, 9 and 14: crafted images whose structure makes a checker or a decoder work or allocate
 * far beyond their size are refused at add by documented bounds (checked on a thread, never the event loop), and the
 * decoding of what was stored is bounded in time per image and per task, its failures told in our words.
 */

type User = Awaited<ReturnType<typeof createUser>>;

interface Status {
  taskId: string;
  state: string;
  datasetId?: string;
  error?: { code: string; message: string };
}

async function openTask(app: TestApp, user: User, samples: string[]): Promise<string> {
  const projectId = await createProject(app, user.auth, 'limits');
  const csv = `id,label\n${samples.map((s, i) => `${s},${i % 2 ? 'a' : 'b'}`).join('\n')}\n`;
  const res = await app
    .http()
    .post(`${API}/image/initUpload`)
    .set('Authorization', user.auth)
    .field('attributes', JSON.stringify({ projectId: Number(projectId), name: `limits ${Math.random().toString(36).slice(2, 8)}` }))
    .attach('file', Buffer.from(csv), 'labels.csv');
  return expectSuccess<{ taskId: string }>(res).taskId;
}

function add(app: TestApp, user: User, taskId: string, sampleId: string, file: Buffer, name: string) {
  return app
    .http()
    .post(`${API}/image/${taskId}/add`)
    .set('Authorization', user.auth)
    .field('sampleId', sampleId)
    .attach('file', file, name);
}

describe('adds of crafted images (checked on a thread, with bounds on their structure)', () => {
  let t: TestApp;
  let user: User;
  beforeAll(async () => {
    t = await createTestApp();
    user = await createUser(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('are refused with badRequest-130-2-2 naming the bound, and store nothing; a sound image is taken after them', async () => {
    const taskId = await openTask(t, user, ['s1', 's2']);
    const refused: [Buffer, string, RegExp][] = [
      // the review's 50 MB PNG: an 8 x 8 image and 4.4 million empty IDAT chunks (HTTP 500 once, the event loop held 4.5-14.5 s)
      [
        pngWithEmptyChunks(emptyChunksIn(50 * 1048576)),
        'idat.png',
        /^"idat.png": it cannot be decoded safely: it has more than 100000 chunks$/,
      ],
      [pngWithEmptyChunks(200_000, 'tEXt'), 'text.png', /more than 100000 chunks$/],
      [jpegWithComments(3_000_000), 'comments.jpg', /more than 2000 marker segments$/],
      [manyScansJpeg(), 'scans.jpg', /more than 100 scans/],
      [rleBombBmp(), 'rle.bmp', /claims 7000 x 7000 pixels \(at most 128 pixels a byte are accepted\)$/],
      [truncatedBmp(40, 40, 100), 'cut.bmp', /it is truncated: its rows need 4854 bytes and the file has 154$/],
      [tiffWithDuplicateWidth(), 'twice.tif', /its first directory gives tag 256 twice$/],
    ];
    for (const [file, name, message] of refused) {
      const body = expectError(await add(t, user, taskId, 's1', file, name), 'badRequest-130-2-2');
      expect(body.message).toMatch(message);
    }
    const [{ stored }] = await t.db.query(`SELECT count(image)::int AS stored FROM image_samples WHERE task_id = $1`, [taskId]);
    expect(stored).toBe(0);
    const sound = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#abc' } })
      .png()
      .toBuffer();
    expect(expectSuccess(await add(t, user, taskId, 's1', sound, 'sound.png'))).toEqual({ taskId });
    expect((await t.http().get(`${API}/health/live`)).status).toBe(200);
  }, 120_000);
});

/** Stores `image` as the image of `sampleId` as an add would, without add's checks (bytes that passed an older version's). */
async function storeDirectly(app: TestApp, taskId: string, sampleId: string, image: Buffer, mime: string): Promise<void> {
  await app.db.query(`UPDATE image_samples SET image = $3, mime = $4, added_at = now() WHERE task_id = $1 AND sample_id = $2`, [
    taskId,
    sampleId,
    image,
    mime,
  ]);
}

async function commitAndWait(app: TestApp, user: User, taskId: string): Promise<Status> {
  expectSuccess(await app.http().get(`${API}/image/${taskId}/commit`).set('Authorization', user.auth));
  return pollUntil<Status>(app, user.auth, `/image/${taskId}/status`, (s) => s.state === 'finished' || s.state === 'failed', 120_000);
}

describe('the decoding of stored images', () => {
  let t: TestApp;
  let user: User;
  afterEach(async () => {
    await t.close();
  });

  it('fails the task naming the sample when one image takes longer than IMAGE_DECODE_TIMEOUT_SECONDS', async () => {
    t = await createTestApp({ IMAGE_DECODE_TIMEOUT_SECONDS: '1' });
    user = await createUser(t);
    const taskId = await openTask(t, user, ['s1', 's2']);
    const sound = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#abc' } })
      .png()
      .toBuffer();
    expectSuccess(await add(t, user, taskId, 's1', sound, 's1.png'));
    // 757 scans: seconds to decode (refused at add since, as above)
    await storeDirectly(t, taskId, 's2', manyScansJpeg(), 'image/jpeg');
    const status = await commitAndWait(t, user, taskId);
    expect(status).toEqual({
      taskId,
      state: 'failed',
      error: {
        code: 'badRequest-130-4-1',
        message: 'the image of sample "s2" could not be decoded: it took longer than 1 s to decode (IMAGE_DECODE_TIMEOUT_SECONDS)',
      },
    });
  }, 120_000);

  it('fails the task when its images take longer than IMAGE_TASK_DECODE_SECONDS in all', async () => {
    t = await createTestApp({ IMAGE_TASK_DECODE_SECONDS: '1' });
    user = await createUser(t);
    const taskId = await openTask(t, user, ['s1', 's2']);
    await storeDirectly(t, taskId, 's1', manyScansJpeg(), 'image/jpeg');
    await storeDirectly(t, taskId, 's2', manyScansJpeg(), 'image/jpeg');
    const status = await commitAndWait(t, user, taskId);
    expect(status).toEqual({
      taskId,
      state: 'failed',
      error: { code: 'badRequest-130-4-3', message: 'the images took longer than 1 s to decode (IMAGE_TASK_DECODE_SECONDS)' },
    });
    // its engine process was killed (a native decode cannot be stopped otherwise), and its images dropped
    expect(liveEngineProcesses()).toEqual([]);
    const [{ images }] = await t.db.query(`SELECT count(image)::int AS images FROM image_samples WHERE task_id = $1`, [taskId]);
    expect(images).toBe(0);
  }, 120_000);

  it('tells a decoder failure in its own words, never the library message (a truncated BMP stored by an older version)', async () => {
    t = await createTestApp();
    user = await createUser(t);
    const taskId = await openTask(t, user, ['s1']);
    await storeDirectly(t, taskId, 's1', truncatedBmp(40, 40, 100), 'image/bmp');
    const status = await commitAndWait(t, user, taskId);
    expect(status.error).toEqual({
      code: 'badRequest-130-4-1',
      message:
        'the image of sample "s1" could not be decoded: its BMP data is damaged, truncated or of a kind of BMP the decoder does not read',
    });
  }, 120_000);
});
