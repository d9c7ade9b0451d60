import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import { Client } from 'pg';
import { JobEnded, JobRunner, RESERVE_AFTER_SECONDS } from '../src/jobs/job-runner';
import { JobsService } from '../src/jobs/jobs.service';
import {
  API,
  createProject,
  createTestApp,
  createUser,
  expectError,
  expectSuccess,
  pollUntil,
  TEST_DATA,
  TestApp,
  uploadDataset,
} from './utils';

/**
 * The life of jobs through the API. Deleting the subject of a running job (a project for dataset builds
 * and image tasks, an analysis, a prediction) stops the job: its runner aborts it, its job row goes with
 * the subject, and nothing of its result is written. Job rows never outlive their subject. A failure keeps
 * the code it was raised with.
 */

let t: TestApp;
let owner: Awaited<ReturnType<typeof createUser>>;
const IRIS = fs.readFileSync(path.join(TEST_DATA, 'iris.csv'));
const CANCER = fs.readFileSync(path.join(TEST_DATA, 'breast_cancer.csv'));

beforeAll(async () => {
  t = await createTestApp({ WORKER_CORES: '2' });
  owner = await createUser(t, undefined, 100);
});
afterAll(async () => {
  await t.close();
});

/** Resolves with how the next run of `kind`'s job for the subject ends in `app`'s runner (listen before deleting). */
function endOf(app: TestApp, kind: string, subjectId: () => string | undefined): Promise<JobEnded> {
  return new Promise((resolve) => {
    const stop = app.app.get(JobRunner).onJobEnded((e) => {
      if (e.kind === kind && e.subjectId === subjectId()) {
        stop();
        resolve(e);
      }
    });
  });
}

async function jobRowsOf(app: TestApp, column: 'task_id' | 'analysis_id' | 'prediction_id', id: string): Promise<number> {
  const [{ n }] = await app.db.query(`SELECT count(*)::int AS n FROM jobs WHERE ${column} = $1`, [id]);
  return n;
}

/** Takes an exclusive lock on `table` from another connection: a job that reads the table waits there until released. */
async function lockTable(app: TestApp, table: string): Promise<() => Promise<void>> {
  const client = new Client({ connectionString: app.databaseUrl });
  await client.connect();
  await client.query('BEGIN');
  await client.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  return async () => {
    await client.query('ROLLBACK');
    await client.end();
  };
}

async function analyze(app: TestApp, datasetId: string, body: object): Promise<string> {
  const res = await app.http().post(`${API}/dataset/${datasetId}/analyze`).set('Authorization', owner.auth).send(body);
  return expectSuccess(res).analysisId as string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A `size` x `size` RGB PNG of gradients, written directly (jimp's encoder is very slow under jest):
 * small to send, as costly to decode and measure as any image of its size.
 */
function gradientPng(size: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, no interlace
  const raw = Buffer.alloc(size * (1 + 3 * size));
  for (let y = 0; y < size; y++) {
    const row = y * (1 + 3 * size); // filter byte 0 (none), then the pixels
    for (let x = 0; x < size; x++) raw.set([(x * 40) % 256, y % 256, 128], row + 1 + 3 * x);
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

it("has, for every registered kind of subject, its table and the jobs table's column that refers to it (its migration)", async () => {
  const subjects = t.app.get(JobsService).subjects();
  expect(subjects.map((s) => s.name).sort()).toEqual(['analysis', 'prediction', 'task']);
  const [check] = await t.db.query<{ def: string }[]>(
    `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'jobs_one_subject'`,
  );
  for (const s of subjects) {
    // a foreign key that deletes the job with its subject, and one of the columns of which exactly one is set
    const keys = await t.db.query<{ target: string; on_delete: string }[]>(
      `SELECT c.confrelid::regclass::text AS target, c.confdeltype AS on_delete FROM pg_constraint c
         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY(c.conkey)
        WHERE c.conrelid = 'jobs'::regclass AND c.contype = 'f' AND a.attname = $1`,
      [s.jobColumn],
    );
    expect({ subject: s.name, keys }).toEqual({ subject: s.name, keys: [{ target: s.table, on_delete: 'c' }] });
    expect(check.def).toContain(s.jobColumn);
    const columns = await t.db.query<{ name: string }[]>(
      `SELECT column_name AS name FROM information_schema.columns WHERE table_name = $1`,
      [s.table],
    );
    const wanted = ['id', 'state', 'error', 'user_id'];
    if (s.times) wanted.push('start_time', 'end_time');
    if (s.progress) wanted.push('progress');
    if (s.updatedAt) wanted.push('updated_at');
    if (s.dataset) wanted.push('dataset_id');
    expect(columns.map((c) => c.name)).toEqual(expect.arrayContaining(wanted));
  }
});

it('a dataset build stops when its project is deleted: job row gone, no dataset written', async () => {
  const p = await createProject(t, owner.auth, 'doomed build');
  const fileId = `f${randomBytes(6).toString('hex')}`;
  expectSuccess(
    await t.http().post(`${API}/file/${fileId}/upload`).set('Authorization', owner.auth).set('Content-Type', 'text/csv').send(IRIS),
  );
  // the build waits on the file's chunks until released: it is surely running when the project goes
  const release = await lockTable(t, 'file_chunks');
  let taskId: string | undefined;
  const ended = endOf(t, 'createDataset', () => taskId);
  try {
    const name = `build-${randomBytes(4).toString('hex')}`;
    const created = await t
      .http()
      .post(`${API}/file/${fileId}/createDataset`)
      .set('Authorization', owner.auth)
      .send({ projectId: p, name, fileSizeInBytes: IRIS.length });
    taskId = expectSuccess(created).taskId as string;
    await pollUntil<{ state: string }>(t, owner.auth, `/task/${taskId}/status`, (s) => s.state === 'running');
    expect(await jobRowsOf(t, 'task_id', taskId)).toBe(1);

    expectSuccess(await t.http().post(`${API}/project/${p}/delete`).set('Authorization', owner.auth));
    expect(await jobRowsOf(t, 'task_id', taskId)).toBe(0);
    await sleep(1500); // the runner looks for deleted jobs every second
    await release();
    const start = Date.now();
    expect((await ended).outcome).toBe('cancelled');
    expect(Date.now() - start).toBeLessThan(1000);
    const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM datasets WHERE name = $1', [name]);
    expect(n).toBe(0);
  } finally {
    await release().catch(() => undefined);
  }
}, 60_000);

it('an image task stops within 2 s when its project is deleted: job row gone, no dataset written', async () => {
  const p = await createProject(t, owner.auth, 'doomed images');
  const count = 48;
  const ids = Array.from({ length: count }, (_, i) => `s${i}`);
  const csv = 'id,label\n' + ids.map((id, i) => `${id},${i % 2 ? 'a' : 'b'}`).join('\n') + '\n';
  const name = `scans-${randomBytes(4).toString('hex')}`;
  const init = await t
    .http()
    .post(`${API}/image/initUpload`)
    .set('Authorization', owner.auth)
    .attach('file', Buffer.from(csv), 'labels.csv')
    .field('attributes', JSON.stringify({ projectId: Number(p), name }));
  const taskId = expectSuccess(init).taskId as string;
  // large images that compress well: cheap to send, slow to decode and measure (seconds for all of them)
  const png = gradientPng(1600);
  for (const id of ids) {
    expectSuccess(
      await t.http().post(`${API}/image/${taskId}/add`).set('Authorization', owner.auth).field('sampleId', id).attach('file', png, 'i.png'),
    );
  }
  const runner = t.app.get(JobRunner);
  const ended = endOf(t, 'imageDataset', () => taskId);
  expectSuccess(await t.http().get(`${API}/image/${taskId}/commit`).set('Authorization', owner.auth));
  for (let i = 0; i < 200 && runner.runningCount() === 0; i++) await sleep(25);
  expect(runner.runningCount()).toBe(1);
  expect(await jobRowsOf(t, 'task_id', taskId)).toBe(1);

  expectSuccess(await t.http().post(`${API}/project/${p}/delete`).set('Authorization', owner.auth));
  const start = Date.now();
  expect(await jobRowsOf(t, 'task_id', taskId)).toBe(0);
  // aborted while it measures the images ('cancelled'), or, deleted while its sample table is parsed on the
  // engine's thread, dropped as it finds its rows gone ('discarded'): either way stopped, nothing written
  expect(['cancelled', 'discarded']).toContain((await ended).outcome);
  expect(Date.now() - start).toBeLessThan(2000);
  expect(runner.runningCount()).toBe(0);
  const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM datasets WHERE name = $1', [name]);
  expect(n).toBe(0);
}, 120_000);

it('an analysis stops within 2 s when deleted: job row gone, no result written', async () => {
  const p = await createProject(t, owner.auth, 'analysis');
  const ds = await uploadDataset(t, owner.auth, p, CANCER);
  const analysisId = await analyze(t, ds, {
    outcome: { classification: 'diagnosis' },
    thoroughness: 'extensive',
    coreCount: 1,
    name: 'long',
  });
  await pollUntil<{ state: string }>(t, owner.auth, `/analysis/${analysisId}/status`, (s) => s.state === 'running', 60_000);
  expect(await jobRowsOf(t, 'analysis_id', analysisId)).toBe(1);
  const ended = endOf(t, 'analysis', () => analysisId);

  expect(expectSuccess(await t.http().post(`${API}/analysis/${analysisId}/delete`).set('Authorization', owner.auth)).state).toBe('running');
  const start = Date.now();
  expect(await jobRowsOf(t, 'analysis_id', analysisId)).toBe(0);
  expect((await ended).outcome).toBe('cancelled');
  expect(Date.now() - start).toBeLessThan(2000);
  const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM analysis_results WHERE analysis_id = $1', [analysisId]);
  expect(n).toBe(0);
  expectError(await t.http().get(`${API}/analysis/${analysisId}/status`).set('Authorization', owner.auth), 'notFound-120-1-1');
}, 120_000);

it('a prediction is aborted when deleted while it runs: job row gone, no result written', async () => {
  // A runner driven by hand (no polling), so the prediction can be held at a known point while it runs.
  const m = await createTestApp({ RUN_WORKERS: 'false' });
  try {
    const runner = m.app.get(JobRunner);
    const user = await createUser(m, undefined, 4);
    const run = async () => {
      await runner.tick();
      await runner.drain();
    };
    const p = expectSuccess(
      await m.http().post(`${API}/createProject`).set('Authorization', user.auth).send({ name: 'predict' }),
    ).projectId;
    const fileId = 'iris';
    expectSuccess(
      await m.http().post(`${API}/file/${fileId}/upload`).set('Authorization', user.auth).set('Content-Type', 'text/csv').send(IRIS),
    );
    const { taskId } = expectSuccess(
      await m
        .http()
        .post(`${API}/file/${fileId}/createDataset`)
        .set('Authorization', user.auth)
        .send({ projectId: p, name: 'iris', fileSizeInBytes: IRIS.length }),
    );
    await run();
    const ds = expectSuccess(await m.http().get(`${API}/task/${taskId}/status`).set('Authorization', user.auth)).datasetId as string;
    const { analysisId } = expectSuccess(
      await m
        .http()
        .post(`${API}/dataset/${ds}/analyze`)
        .set('Authorization', user.auth)
        .send({ outcome: { classification: 'species' }, thoroughness: 'preliminary', coreCount: 1, name: 'a' }),
    );
    await run();
    expect(expectSuccess(await m.http().get(`${API}/analysis/${analysisId}/status`).set('Authorization', user.auth)).state).toBe(
      'finished',
    );

    const { predictionId } = expectSuccess(
      await m.http().post(`${API}/analysis/${analysisId}/predict/${ds}`).set('Authorization', user.auth).send({ modelKey: 'best' }),
    );
    expect(await jobRowsOf(m, 'prediction_id', predictionId)).toBe(1);
    // the prediction waits on the dataset's columns until released
    const release = await lockTable(m, 'dataset_columns');
    try {
      const ended = endOf(m, 'prediction', () => predictionId);
      expect(await runner.tick()).toBe(1);
      expect(expectSuccess(await m.http().get(`${API}/prediction/${predictionId}/status`).set('Authorization', user.auth)).state).toBe(
        'running',
      );
      expectSuccess(await m.http().post(`${API}/prediction/${predictionId}/delete`).set('Authorization', user.auth));
      expect(await jobRowsOf(m, 'prediction_id', predictionId)).toBe(0);
      await runner.checkCancelled(); // what the runner's timer does every second
      await release();
      expect((await ended).outcome).toBe('cancelled');
      expect(runner.runningCount()).toBe(0);
      const [{ n }] = await m.db.query('SELECT count(*)::int AS n FROM prediction_results WHERE prediction_id = $1', [predictionId]);
      expect(n).toBe(0);
      expectError(await m.http().get(`${API}/prediction/${predictionId}/status`).set('Authorization', user.auth), 'notFound-150-1-1');
    } finally {
      await release().catch(() => undefined);
    }
  } finally {
    await m.close();
  }
}, 180_000);

it('job rows go with their analysis, prediction or dataset; a finished task keeps its datasetId', async () => {
  const p = await createProject(t, owner.auth, 'stale');
  const fileId = `f${randomBytes(6).toString('hex')}`;
  expectSuccess(
    await t.http().post(`${API}/file/${fileId}/upload`).set('Authorization', owner.auth).set('Content-Type', 'text/csv').send(IRIS),
  );
  const { taskId } = expectSuccess(
    await t
      .http()
      .post(`${API}/file/${fileId}/createDataset`)
      .set('Authorization', owner.auth)
      .send({ projectId: p, name: 'iris', fileSizeInBytes: IRIS.length }),
  );
  const task = await pollUntil<{ state: string; datasetId?: string }>(
    t,
    owner.auth,
    `/task/${taskId}/status`,
    (s) => s.state === 'finished',
  );
  const ds = task.datasetId as string;
  const body = { outcome: { classification: 'species' }, thoroughness: 'preliminary', coreCount: 1, name: 'a' };
  const [a1, a2] = [await analyze(t, ds, body), await analyze(t, ds, body)];
  for (const a of [a1, a2])
    await pollUntil<{ state: string }>(t, owner.auth, `/analysis/${a}/status`, (s) => s.state === 'finished', 120_000);
  const predict = async (a: string) =>
    expectSuccess(await t.http().post(`${API}/analysis/${a}/predict/${ds}`).set('Authorization', owner.auth).send({ modelKey: 'best' }))
      .predictionId as string;
  const [p1, p2] = [await predict(a1), await predict(a2)];
  for (const x of [p1, p2]) await pollUntil<{ state: string }>(t, owner.auth, `/prediction/${x}/status`, (s) => s.state === 'finished');
  const rows = async () => ({
    a1: await jobRowsOf(t, 'analysis_id', a1),
    a2: await jobRowsOf(t, 'analysis_id', a2),
    p1: await jobRowsOf(t, 'prediction_id', p1),
    p2: await jobRowsOf(t, 'prediction_id', p2),
    task: await jobRowsOf(t, 'task_id', taskId),
  });
  expect(await rows()).toEqual({ a1: 1, a2: 1, p1: 1, p2: 1, task: 1 });

  expectSuccess(await t.http().post(`${API}/prediction/${p1}/delete`).set('Authorization', owner.auth));
  expect(await rows()).toEqual({ a1: 1, a2: 1, p1: 0, p2: 1, task: 1 });
  expectSuccess(await t.http().post(`${API}/analysis/${a1}/delete`).set('Authorization', owner.auth));
  expect(await rows()).toEqual({ a1: 0, a2: 1, p1: 0, p2: 1, task: 1 });
  // the dataset takes its analyses and predictions with it, and their jobs
  expectSuccess(await t.http().post(`${API}/dataset/${ds}/delete`).set('Authorization', owner.auth));
  expect(await rows()).toEqual({ a1: 0, a2: 0, p1: 0, p2: 0, task: 1 });

  // api-v1 rule 5: a finished task reports its datasetId, also once that dataset is gone
  expect(expectSuccess(await t.http().get(`${API}/task/${taskId}/status`).set('Authorization', owner.auth))).toEqual({
    taskId,
    state: 'finished',
    datasetId: ds,
  });
  expectError(await t.http().get(`${API}/dataset/${ds}`).set('Authorization', owner.auth), 'notFound-110-1-1');
}, 240_000);

it('a job that fails on its input keeps its own code: attempted once, failed with the reason', async () => {
  const p = await createProject(t, owner.auth, 'failing');
  const ds = await uploadDataset(t, owner.auth, p, IRIS);
  const analysisId = await analyze(t, ds, { outcome: { classification: 'species' }, thoroughness: 'preliminary', coreCount: 1, name: 'a' });
  await pollUntil<{ state: string }>(t, owner.auth, `/analysis/${analysisId}/status`, (s) => s.state === 'finished', 120_000);
  // the same columns, but as categories: the model reads numbers
  const features = ['sepal_length_cm', 'sepal_width_cm', 'petal_length_cm', 'petal_width_cm'];
  const asText = await uploadDataset(t, owner.auth, p, IRIS, { featureTypes: Object.fromEntries(features.map((f) => [f, 'categorical'])) });
  const { predictionId } = expectSuccess(
    await t.http().post(`${API}/analysis/${analysisId}/predict/${asText}`).set('Authorization', owner.auth).send({ modelKey: 'best' }),
  );
  const status = await pollUntil<{ state: string; error?: { code: string; message: string } }>(
    t,
    owner.auth,
    `/prediction/${predictionId}/status`,
    (s) => s.state === 'failed' || s.state === 'finished',
  );
  expect({ state: status.state, code: status.error?.code }).toEqual({ state: 'failed', code: 'badRequest-150-3-2' });
  expect(status.error?.message).toMatch(/must be numerical/);
  const [job] = await t.db.query('SELECT state, attempts FROM jobs WHERE prediction_id = $1', [predictionId]);
  expect(job).toEqual({ state: 'failed', attempts: 1 });
}, 240_000);

type User = Awaited<ReturnType<typeof createUser>>;

/** Queues `n` builds of a tiny dataset for `user` in a project of theirs (with no worker running, they stay queued). */
async function queueBuilds(app: TestApp, user: User, n: number): Promise<string[]> {
  const p = await createProject(app, user.auth, `p-${user.username}`);
  const csv = Buffer.from('a,b\n1,2\n3,4\n');
  expectSuccess(await app.http().post(`${API}/file/rows.csv/upload`).set('Authorization', user.auth).send(csv));
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await app
      .http()
      .post(`${API}/file/rows.csv/createDataset`)
      .set('Authorization', user.auth)
      .send({ projectId: Number(p), name: `rows ${i}`, fileSizeInBytes: csv.length });
    ids.push(expectSuccess(res).taskId);
  }
  return ids;
}

interface TwoQueues {
  queued: TestApp;
  alice: User;
  aliceTasks: string[];
  bobTask: string;
  /** Starts a worker with `cores` on the queue's database; resolves once `enough` holds of the jobs ended, in the order they ended. */
  work: (cores: number, enough: (ended: string[]) => boolean) => Promise<string[]>;
}

/** Six builds of alice's and then one of bob's, queued with no worker running; `test` then starts one. */
async function withTwoQueues(test: (q: TwoQueues) => Promise<void>): Promise<void> {
  const queued = await createTestApp({ RUN_WORKERS: 'false' });
  let worker: TestApp | undefined;
  try {
    const [alice, bob] = [await createUser(queued), await createUser(queued)];
    const aliceTasks = await queueBuilds(queued, alice, 6);
    const [bobTask] = await queueBuilds(queued, bob, 1);
    const work = async (cores: number, enough: (ended: string[]) => boolean) => {
      const ended: string[] = [];
      worker = await createTestApp({ WORKER_CORES: String(cores) }, queued.databaseUrl);
      await new Promise<void>((resolve) =>
        worker!.app.get(JobRunner).onJobEnded((e) => {
          ended.push(e.subjectId);
          if (enough(ended)) resolve();
        }),
      );
      return ended;
    };
    await test({ queued, alice, aliceTasks, bobTask, work });
  } finally {
    await worker?.close();
    await queued.close();
  }
}

it("shares the workers between users: one user's queue does not hold another's job back", async () => {
  await withTwoQueues(async ({ queued, alice, aliceTasks, bobTask, work }) => {
    // alice already has a job running elsewhere (another worker holds its lease)
    await queued.db.query(
      `UPDATE jobs SET state = 'running', lease_owner = 'elsewhere', lease_expires_at = now() + interval '1 hour' WHERE task_id = $1`,
      [aliceTasks[0]],
    );
    // one worker, with one core
    const ended = await work(1, (e) => e.includes(bobTask));
    expect(ended[0]).toBe(bobTask); // before alice's five older queued jobs
    const [{ n }] = await queued.db.query(`SELECT count(*)::int AS n FROM jobs WHERE user_id = $1`, [alice.userId]);
    expect(n).toBe(6); // each job knows its user
  });
}, 60_000);

it('holds cores back for a job that needs more than are free once it has waited RESERVE_AFTER_SECONDS', async () => {
  await withTwoQueues(async ({ queued, alice, aliceTasks, bobTask, work }) => {
    // alice's 1-core jobs are the oldest; bob's job needs both cores and has waited past the reservation
    await queued.db.query(`UPDATE jobs SET run_after = now() - interval '2 minutes' WHERE user_id = $1`, [alice.userId]);
    await queued.db.query(`UPDATE jobs SET cost = 2, run_after = now() - make_interval(secs => $2) WHERE task_id = $1`, [
      bobTask,
      RESERVE_AFTER_SECONDS + 5,
    ]);
    // one worker with two cores
    const ended = await work(2, (e) => e.length === aliceTasks.length + 1);
    // alice's oldest took one core; then bob's job, at the head of the fair order, got both cores before
    // alice's second could fill the free one (and, with both free, bob's turn came before alice's next)
    expect(ended.slice(0, 2)).toEqual([aliceTasks[0], bobTask]);
    expect(ended.slice(2).sort()).toEqual(aliceTasks.slice(1).sort());
  });
}, 60_000);

it('lets a user have at most MAX_QUEUED_JOBS_PER_USER jobs waiting, even when asked all at once', async () => {
  const queued = await createTestApp({ RUN_WORKERS: 'false', MAX_QUEUED_JOBS_PER_USER: '3' });
  try {
    const [alice, bob] = [await createUser(queued), await createUser(queued)];
    const aliceTasks = await queueBuilds(queued, alice, 3);
    const p = await createProject(queued, alice.auth, 'more');
    const build = (user: User, projectId: string, name: string) =>
      queued
        .http()
        .post(`${API}/file/rows.csv/createDataset`)
        .set('Authorization', user.auth)
        .send({ projectId: Number(projectId), name, fileSizeInBytes: 12 });
    const refused = await build(alice, p, 'fourth');
    expectError(refused, 'tooMany-1-0-1');
    expect(refused.body.message).toBe('you have 3 jobs waiting to run (at most 3): retry when some have started');
    // a job that has started no longer waits
    await queued.db.query(
      `UPDATE jobs SET state = 'running', lease_owner = 'elsewhere', lease_expires_at = now() + interval '1 hour' WHERE task_id = $1`,
      [aliceTasks[0]],
    );
    expectSuccess(await build(alice, p, 'fourth'));
    // bob's ten requests at once: three queued, seven refused, nothing half-made
    await queueBuilds(queued, bob, 0); // (uploads bob's rows.csv)
    const bobProject = await createProject(queued, bob.auth, 'burst');
    const burst = await Promise.all(Array.from({ length: 10 }, (_, i) => build(bob, bobProject, `burst ${i}`)));
    const outcomes = burst.map((r) => (r.body.status === 'success' ? 'success' : r.body.code)).sort();
    expect(outcomes).toEqual([...Array(3).fill('success'), ...Array(7).fill('tooMany-1-0-1')]);
    const [{ n }] = await queued.db.query(`SELECT count(*)::int AS n FROM tasks WHERE user_id = $1`, [bob.userId]);
    expect(n).toBe(3);
  } finally {
    await queued.close();
  }
}, 60_000);
