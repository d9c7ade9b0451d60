import { API, createProject, createTestApp, createUser, expectSuccess, pollUntil, TestApp, uploadDataset } from './utils';

/**
 * Jobs that wait in the queue while things change. A job that no worker can run: an analysis queued with coreCount 2 before a restart with WORKER_CORES=1 waited for
 * ever, shown running with a frozen progress, and kept its user's cores. It fails after JOB_STRANDED_SECONDS with
 * the reason, and a queued job shows pending. An analysis whose outcome was retyped while it waited fails when it starts.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ WORKER_CORES: '2', RUN_WORKERS: 'false' });
});
afterAll(async () => {
  await t.close();
});

it('a queued job shows pending; one needing more cores than the workers have fails after JOB_STRANDED_SECONDS and frees the cores', async () => {
  const user = await createUser(t, undefined, 2);
  const projectId = await createProject(t, user.auth, 'stranded');
  const csv = 'x,z,label\n' + Array.from({ length: 60 }, (_, i) => `${i},${(i * 7) % 11},${i % 2 ? 'a' : 'b'}`).join('\n') + '\n';
  // the dataset is built by a process with workers; t runs none (the analysis stays queued)
  const builder = await createTestApp({ WORKER_CORES: '2' }, t.databaseUrl);
  const datasetId = await uploadDataset(builder, user.auth, projectId, csv).finally(() => builder.close());
  const body = { outcome: { classification: 'label' }, thoroughness: 'preliminary', coreCount: 2, name: 'two cores' };
  const { analysisId } = expectSuccess(
    await t.http().post(`${API}/dataset/${datasetId}/analyze`).set('Authorization', user.auth).send(body),
  );
  // as after a start and a hand-back at a shutdown: the analysis ran (progress 0.4), its job waits in the queue again
  await t.db.query(`UPDATE analyses SET state = 'running', start_time = now(), progress = 0.4 WHERE id = $1`, [analysisId]);
  const waiting = expectSuccess(await t.http().get(`${API}/analysis/${analysisId}/status`).set('Authorization', user.auth));
  expect({ state: waiting.state, progress: waiting.progress }).toEqual({ state: 'pending', progress: undefined });
  const listed = expectSuccess(await t.http().get(`${API}/analyses/all/${projectId}/0/10`).set('Authorization', user.auth));
  expect(listed.data.map((a: { state: string }) => a.state)).toEqual(['pending']);

  // the service restarts with one core
  const small = await createTestApp({ WORKER_CORES: '1', JOB_STRANDED_SECONDS: '1', JOB_POLL_MS: '100' }, t.databaseUrl);
  try {
    const failed = await pollUntil(t, user.auth, `/analysis/${analysisId}/status`, (s) => s.state !== 'pending', 20_000);
    expect(failed.state).toBe('failed');
    expect(failed.error.code).toBe('internal-120-4-1');
    expect(failed.error.message).toMatch(/^no worker can run it: it needs 2 cores and the workers have 1 \(WORKER_CORES\)/);
    // the user's two cores are free again
    const check = expectSuccess(
      await t.http().post(`${API}/check/dataset/${datasetId}/analyze`).set('Authorization', user.auth).send(body),
    );
    expect(check.errors).toEqual([]);
  } finally {
    await small.close();
  }
});

it('an analysis whose outcome was retyped to identifier while it waited fails when its job starts, with the type code', async () => {
  const user = await createUser(t, undefined, 2);
  const projectId = await createProject(t, user.auth, 'retyped');
  const csv = 'x,z,label\n' + Array.from({ length: 60 }, (_, i) => `${i},${(i * 7) % 11},${i % 2 ? 'a' : 'b'}`).join('\n') + '\n';
  const builder = await createTestApp({ WORKER_CORES: '2' }, t.databaseUrl);
  const datasetId = await uploadDataset(builder, user.auth, projectId, csv).finally(() => builder.close());
  const body = { outcome: { classification: 'label' }, thoroughness: 'preliminary', coreCount: 1, name: 'retyped' };
  const { analysisId } = expectSuccess(
    await t.http().post(`${API}/dataset/${datasetId}/analyze`).set('Authorization', user.auth).send(body),
  );
  expectSuccess(
    await t
      .http()
      .post(`${API}/dataset/${datasetId}/changeFeatureTypes`)
      .set('Authorization', user.auth)
      .send({ featureTypes: { label: 'identifier' } }),
  );
  const worker = await createTestApp({ WORKER_CORES: '1', JOB_POLL_MS: '100' }, t.databaseUrl);
  try {
    const done = await pollUntil(
      t,
      user.auth,
      `/analysis/${analysisId}/status`,
      (s) => s.state === 'finished' || s.state === 'failed',
      30_000,
    );
    expect(done.state).toBe('failed');
    expect(done.error).toEqual({
      code: 'badRequest-120-0-3',
      message:
        'the classification outcome "label" is identifier; it must be categorical (the feature types changed after the analysis was queued)',
    });
  } finally {
    await worker.close();
  }
});
