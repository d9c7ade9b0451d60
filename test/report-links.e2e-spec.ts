import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium } from 'playwright-core';
import { freePort } from './free-port';
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
 * Report links (POST /analysis/:analysisId/reportLink): a URL that opens the report without a bearer header, and
 * that opens nothing (the same page, HTTP 404, no data) once withdrawn, expired, after the analysis is deleted, after
 * its maker's access is gone, or when guessed or altered.
 */
let t: TestApp;
let base: string;
let owner: Awaited<ReturnType<typeof createUser>>;
let bob: Awaited<ReturnType<typeof createUser>>;
let projectId: string;
let datasetId: string;
let analysisId: string;

const ANALYSIS_NAME = 'iris for the lab meeting';
const REFUSED = 'This link does not open a report';

beforeAll(async () => {
  t = await createTestApp({ ANALYSIS_SEED: '7' });
  const port = await freePort();
  await t.app.listen(port, '127.0.0.1');
  base = `http://127.0.0.1:${port}`;
  owner = await createUser(t);
  bob = await createUser(t);
  projectId = await createProject(t, owner.auth, 'links');
  datasetId = await uploadDataset(t, owner.auth, projectId, fs.readFileSync(path.join(TEST_DATA, 'iris.csv')));
  const body = { outcome: { classification: 'species' }, thoroughness: 'preliminary', coreCount: 1, name: ANALYSIS_NAME };
  analysisId = expectSuccess(
    await t.http().post(`${API}/dataset/${datasetId}/analyze`).set('Authorization', owner.auth).send(body),
  ).analysisId;
  await pollUntil(t, owner.auth, `/analysis/${analysisId}/status`, (p: { state: string }) => p.state === 'finished', 300_000);
  expectSuccess(await share(bob.username));
}, 360_000);
afterAll(() => t?.close());

function share(username: string) {
  return t
    .http()
    .post(`${API}/project/${projectId}/share`)
    .set('Authorization', owner.auth)
    .send({ username, permissions: ['read'] });
}

async function makeLink(auth: string, id = analysisId, body: object = {}): Promise<{ linkId: string; url: string; expiresAt: string }> {
  return expectSuccess(await t.http().post(`${API}/analysis/${id}/reportLink`).set('Authorization', auth).send(body));
}

/** Opens a link as a browser would (no Authorization header): its status and page. */
async function open(url: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url);
  return { status: res.status, text: await res.text() };
}

async function expectRefused(url: string) {
  const { status, text } = await open(url);
  expect(status).toBe(404);
  expect(text).toContain(REFUSED);
  expect(text).not.toContain(ANALYSIS_NAME);
  expect(text).not.toContain('species');
}

describe('report links', () => {
  it('opens the report without a bearer header, for 7 days by default, from a URL of 256 random bits', async () => {
    const before = Date.now();
    const link = await makeLink(owner.auth);
    expect(link).toEqual({ linkId: expect.stringMatching(/^\d+$/), analysisId, url: expect.any(String), expiresAt: expect.any(String) });
    const url = new URL(link.url);
    expect(url.origin).toBe(base);
    const token = /^\/api\/public\/v1\/sharedReport\/([A-Za-z0-9_-]{43})$/.exec(url.pathname)?.[1];
    expect(token).toBeDefined();
    const days = (Date.parse(link.expiresAt) - before) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThan(7.01);

    const res = await fetch(link.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await res.text();
    expect(page).toContain(ANALYSIS_NAME);

    // only the token's SHA-256 is kept
    const rows = await t.db.query<Record<string, unknown>[]>('SELECT * FROM report_links WHERE id = $1', [link.linkId]);
    expect((rows[0].token_hash as Buffer).equals(createHash('sha256').update(token!).digest())).toBe(true);
    expect(JSON.stringify(rows)).not.toContain(token);

    // in a real browser, without a token
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-chromium-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    try {
      const tab = await context.newPage();
      const answer = await tab.goto(link.url);
      expect(answer?.status()).toBe(200);
      expect(await tab.locator('body').innerText()).toContain(ANALYSIS_NAME);
      expect(await tab.locator('svg').count()).toBeGreaterThan(0);
    } finally {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    }
  }, 120_000);

  it('refuses a guessed, altered or malformed link with the same page and no data', async () => {
    const { url } = await makeLink(owner.auth);
    const token = url.slice(url.lastIndexOf('/') + 1);
    const flip = (c: string) => (c === 'A' ? 'B' : 'A');
    await expectRefused(`${base}${API}/sharedReport/${randomBytes(32).toString('base64url')}`);
    await expectRefused(`${base}${API}/sharedReport/${flip(token[0])}${token.slice(1)}`);
    await expectRefused(`${base}${API}/sharedReport/${token.slice(0, -1)}`);
    await expectRefused(`${base}${API}/sharedReport/${token}x`);
    await expectRefused(`${base}${API}/sharedReport/${analysisId}`);
    // the real one still opens
    expect((await open(url)).status).toBe(200);
  });

  it('lasts validForDays (1 to 90), and opens nothing once expired', async () => {
    const link = await makeLink(owner.auth, analysisId, { validForDays: 90 });
    expect((Date.parse(link.expiresAt) - Date.now()) / 86_400_000).toBeGreaterThan(89.99);
    for (const validForDays of [0, 91, 2.5, '7', -1, null]) {
      const res = await t.http().post(`${API}/analysis/${analysisId}/reportLink`).set('Authorization', owner.auth).send({ validForDays });
      if (validForDays === null) expectSuccess(res);
      else expectError(res, 'badRequest-120-7-1');
    }
    expectError(
      await t.http().post(`${API}/analysis/${analysisId}/reportLink`).set('Authorization', owner.auth).send({ days: 3 }),
      'badRequest-1-0-7',
    );
    await t.db.query(`UPDATE report_links SET expires_at = now() - interval '1 second' WHERE id = $1`, [link.linkId]);
    await expectRefused(link.url);
  });

  it('needs read permission to make, the owner to withdraw; others list their own links only', async () => {
    const eve = await createUser(t);
    expect((await t.http().post(`${API}/analysis/${analysisId}/reportLink`).set('Authorization', eve.auth).send({})).status).toBe(403);
    expect((await t.http().post(`${API}/analysis/${analysisId}/reportLink`).send({})).status).toBe(403);

    const bobs = await makeLink(bob.auth);
    expect((await open(bobs.url)).status).toBe(200);
    const listed = (auth: string) =>
      t
        .http()
        .get(`${API}/analysis/${analysisId}/reportLinks/0/100`)
        .set('Authorization', auth)
        .then((r) => expectSuccess<{ analysisId: string; totalCount: number; data: { linkId: string; username: string }[] }>(r));
    const bobSees = await listed(bob.auth);
    expect(bobSees.data).toEqual([expect.objectContaining({ linkId: bobs.linkId, username: bob.username, analysisId })]);
    const ownerSees = await listed(owner.auth);
    expect(ownerSees.totalCount).toBeGreaterThan(1);
    expect(ownerSees.data.map((l) => l.linkId)).toContain(bobs.linkId);
    expect(JSON.stringify(ownerSees)).not.toContain('sharedReport');

    // bob may not withdraw, even his own; the owner may
    expect(
      (await t.http().post(`${API}/analysis/${analysisId}/reportLink/${bobs.linkId}/delete`).set('Authorization', bob.auth)).status,
    ).toBe(403);
    const withdrawn = expectSuccess(
      await t.http().post(`${API}/analysis/${analysisId}/reportLink/${bobs.linkId}/delete`).set('Authorization', owner.auth),
    );
    expect(withdrawn).toEqual(expect.objectContaining({ linkId: bobs.linkId, username: bob.username }));
    await expectRefused(bobs.url);
    expectError(
      await t.http().post(`${API}/analysis/${analysisId}/reportLink/${bobs.linkId}/delete`).set('Authorization', owner.auth),
      'notFound-120-7-2',
    );
    expectError(
      await t.http().post(`${API}/analysis/${analysisId}/reportLink/x/delete`).set('Authorization', owner.auth),
      'badRequest-1-0-2',
    );
  });

  it("closes a user's links when the project is unshared from them, and sharing again does not reopen them", async () => {
    const bobs = await makeLink(bob.auth);
    const owners = await makeLink(owner.auth);
    expectSuccess(
      await t.http().post(`${API}/project/${projectId}/unshare`).set('Authorization', owner.auth).send({ username: bob.username }),
    );
    await expectRefused(bobs.url);
    expect((await open(owners.url)).status).toBe(200);
    expectSuccess(await share(bob.username));
    await expectRefused(bobs.url);
    // a link made after the new share opens
    expect((await open((await makeLink(bob.auth)).url)).status).toBe(200);
  });

  it('refuses to link an unfinished analysis, and every link of a deleted analysis opens nothing', async () => {
    const body = { outcome: { classification: 'species' }, thoroughness: 'preliminary', coreCount: 1, name: 'second' };
    const second = expectSuccess(
      await t.http().post(`${API}/dataset/${datasetId}/analyze`).set('Authorization', owner.auth).send(body),
    ).analysisId;
    expectError(await t.http().post(`${API}/analysis/${second}/reportLink`).set('Authorization', owner.auth).send({}), 'notFound-120-2-3');
    expectSuccess(await t.http().post(`${API}/analysis/${second}/delete`).set('Authorization', owner.auth));

    const links = [await makeLink(owner.auth), await makeLink(bob.auth)];
    expectSuccess(await t.http().post(`${API}/analysis/${analysisId}/delete`).set('Authorization', owner.auth));
    for (const link of links) await expectRefused(link.url);
    expect(await t.db.query('SELECT count(*)::int AS n FROM report_links WHERE analysis_id = $1', [analysisId])).toEqual([{ n: 0 }]);
  });
});
