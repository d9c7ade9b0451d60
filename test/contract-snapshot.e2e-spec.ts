import * as fs from 'node:fs';
import * as path from 'node:path';
import { API, createProject, createTestApp, createUser, expectSuccess, TestApp, uploadDataset } from './utils';

/**
 * The wire contract as it was before the API's declarations moved to one source per payload (issue 42): the
 * served OpenAPI document byte for byte, and the bytes of representative answers (ids, times, tokens and states
 * masked). A change to either is a change of the API: it must be meant, and the snapshot is then rewritten in a
 * commit of its own that says which addition it takes in:
 *   UPDATE_CONTRACT_SNAPSHOT=1 npx jest test/contract-snapshot.e2e-spec.ts
 */
const SNAPSHOTS = path.join(__dirname, 'snapshots');
const DOCUMENT = path.join(SNAPSHOTS, 'openapi.json');
const ANSWERS = path.join(SNAPSHOTS, 'answers.json');
const UPDATE = process.env.UPDATE_CONTRACT_SNAPSHOT === '1';

/** Values that differ from run to run, by key: replaced by a mark that keeps their JSON type. */
const MASKED = /^(\w+Id|token|created|startTime|executionTimeInSeconds|progress|state|version)$/;
function mask(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => mask(v));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mask(v, k)]));
  if (MASKED.test(key) && value !== undefined) return `<${typeof value} ${key}>`;
  return value;
}

/** The snapshot's text as the service writes it (the file is indented for review; JSON.parse keeps the key order). */
const compact = (file: string) => JSON.stringify(JSON.parse(fs.readFileSync(file, 'utf8')));

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ WORKER_CORES: '2' });
});
afterAll(() => t.close());

it('serves the OpenAPI document of the snapshot, byte for byte', async () => {
  const res = await t.http().get(`${API}/openapi.json`);
  expect(res.status).toBe(200);
  if (UPDATE) fs.writeFileSync(DOCUMENT, JSON.stringify(JSON.parse(res.text), null, 2) + '\n');
  expect(res.text).toBe(compact(DOCUMENT));
});

it('answers representative requests with the bytes of the snapshot', async () => {
  const user = await createUser(t, 'snapshot');
  const answers: { request: string; answer: unknown }[] = [];
  const ids: Record<string, string> = {};
  /** `route` names its ids (`/project/:projectId`), filled in from `ids`; the snapshot keeps the names. */
  const call = async (method: 'get' | 'post', route: string, body?: object) => {
    let req = t
      .http()
      [method](API + route.replace(/:(\w+)/g, (_, name: string) => ids[name]))
      .set('Authorization', user.auth);
    if (body) req = req.send(body);
    const res = await req;
    // the bytes of the body: the key order of every object, then its masked values
    answers.push({ request: `${method.toUpperCase()} ${route}`, answer: mask(JSON.parse(res.text)) });
    return res;
  };
  await call('post', '/login', { usernameOrEmail: 'snapshot', password: 'wrong' });
  ids.projectId = expectSuccess(await call('post', '/createProject', { name: 'snapshot', description: 'answers' })).projectId as string;
  await call('post', '/createProject', {});
  await call('post', '/createProject', { name: 5, colour: 'red' });
  await call('get', '/project/:projectId');
  await call('get', '/projects/owned/0/10');
  await call('get', '/projects/owned/0/101');
  ids.otherProjectId = await createProject(t, user.auth, 'other');
  const csv =
    'id,x,y,group,label\n' +
    Array.from({ length: 30 }, (_, i) => `s${i},${i % 7},${(i * 3) % 11},g${i % 5},${i % 2 ? 'a' : 'b'}`).join('\n');
  ids.datasetId = await uploadDataset(t, user.auth, ids.otherProjectId, csv, { name: 'snapshot', hasSampleHeaders: true });
  await call('get', '/dataset/:datasetId');
  await call('get', '/dataset/:datasetId/features');
  await call('get', '/datasets/:otherProjectId/0/10');
  await call('get', '/files/0/10');
  await call('post', '/check/dataset/:datasetId/analyze', {
    outcome: { classification: 'x' },
    thoroughness: 'thorough',
    modelsConsidered: 'some',
    featureSelection: null,
    coreCount: 0,
    maxSignatureSize: 1001,
    maxVisualizedSignatureCount: '5',
    name: ' ',
    groupingFeature: 'nope',
  });
  const analyze = { outcome: { classification: 'label' }, thoroughness: 'preliminary', coreCount: 1, name: 'n' };
  await call('post', '/check/dataset/:datasetId/analyze', analyze);
  ids.analysisId = expectSuccess(await call('post', '/dataset/:datasetId/analyze', analyze)).analysisId as string;
  await call('get', '/analysis/:analysisId');
  await call('post', '/analysis/:analysisId/predict/:datasetId', { modelKey: 'best', signatureIndex: -1, times: [] });
  await call('post', '/analysis/:analysisId/delete');
  await call('get', '/analysis/:analysisId');
  await call('post', '/project/:projectId/share', { username: 'nobody', permissions: ['read', 'own'] });
  await call('post', '/project/:projectId/share', { username: 'snapshot', permissions: ['read'] });
  await call('post', '/project/:projectId/delete');
  const text = JSON.stringify(answers, null, 1) + '\n';
  if (UPDATE) fs.writeFileSync(ANSWERS, text);
  expect(text).toBe(fs.readFileSync(ANSWERS, 'utf8'));
}, 60_000);
