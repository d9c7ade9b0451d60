import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { interval, num, pct } from '../src/reports/render/format';
import { REPORT_SECTIONS } from '../src/reports/render/report-page';
import { freePort } from './free-port';
import { pdfText } from './pdf-text';
import { API, createProject, createTestApp, createUser, expectError, expectSuccess, TEST_DATA, TestApp, uploadDataset } from './utils';

/**
 * The analysis report (GET /analysis/:analysisId/report) of a classification, a regression and a survival analysis,
 * opened from the running app in a real headless browser: Debian's chromium driven by playwright-core (no browser is
 * downloaded). Nothing may leave the page, nothing may fail in it, every plot the result lists is drawn, the numbers
 * shown are the result's, names holding markup show as text, and the printed PDF has every section. Screenshots at
 * desktop and phone widths, and the PDFs, are written to test-output/report for a person to look at.
 */
const CHROMIUM = '/usr/bin/chromium';
const OUT = path.resolve(__dirname, '..', 'test-output', 'report');

/** Names as users' files can hold them (the classification's features and classes). */
const FEATURES: Record<string, string> = {
  petal_length_cm: '<script>alert("feature")</script>',
  petal_width_cm: '<img src=x onerror=alert(1)>',
  sepal_width_cm: `sepal "width" o'neil`,
  sepal_length_cm: 'sepal length',
};
const CLASSES: Record<string, string> = {
  setosa: '<script>alert(2)</script>',
  versicolor: `"versi" 'color'`,
  virginica: '<b onmouseover="alert(3)">virginica</b>',
};
const HOSTILE = [...Object.values(FEATURES), ...Object.values(CLASSES)].filter((n) => /[<"']/.test(n));

/** A CSV field: quoted when it holds a comma, a quote or a line break. */
const field = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** iris with hostile feature names and class labels. */
function hostileIris(): string {
  const [header, ...rows] = fs.readFileSync(path.join(TEST_DATA, 'iris.csv'), 'utf8').trim().split('\n');
  const names = header.split(',').map((h) => FEATURES[h] ?? h);
  return [
    names.map(field).join(','),
    ...rows.map((r) =>
      r
        .split(',')
        .map((v) => field(CLASSES[v] ?? v))
        .join(','),
    ),
  ].join('\n');
}

/** The first `n` samples of a dataset of test/data (a small analysis stays fast). */
function head(name: string, n: number): string {
  return fs
    .readFileSync(path.join(TEST_DATA, name), 'utf8')
    .trim()
    .split('\n')
    .slice(0, n + 1)
    .join('\n');
}

const CASES = {
  classification: { csv: hostileIris, outcome: { classification: 'species' } },
  regression: { csv: () => head('diabetes.csv', 150), outcome: { regression: 'progression' } },
  survival: { csv: () => head('lung.csv', 228), outcome: { survival: { event: 'status', timeToEvent: 'time' } } },
} as const;
type Case = keyof typeof CASES;

let t: TestApp;
let base: string;
let owner: Awaited<ReturnType<typeof createUser>>;
let context: BrowserContext;
let profile: string;
const analyses = {} as Record<Case, string>;

beforeAll(async () => {
  // the three analyses run at once (and a fourth waits for cores while it is asked for its report)
  t = await createTestApp({ WORKER_CORES: '3', ANALYSIS_SEED: '25' });
  const port = await freePort();
  await t.app.listen(port, '127.0.0.1');
  base = `http://127.0.0.1:${port}`;
  owner = await createUser(t, undefined, 4);
  const projectId = await createProject(t, owner.auth, 'reports');
  for (const name of Object.keys(CASES) as Case[]) {
    const featureTypes = name === 'survival' ? { status: 'event', time: 'timeToEvent' } : undefined;
    const datasetId = await uploadDataset(t, owner.auth, projectId, CASES[name].csv(), { name: `${name} data`, featureTypes });
    const body = { outcome: CASES[name].outcome, thoroughness: 'preliminary', coreCount: 1, name: `${name} <report> "test"` };
    analyses[name] = expectSuccess(await t.http().post(`${API}/dataset/${datasetId}/analyze`).set('Authorization', owner.auth).send(body))
      .analysisId as string;
  }
  fs.mkdirSync(OUT, { recursive: true });
  profile = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 120_000);
afterAll(async () => {
  await context?.close();
  if (profile) fs.rmSync(profile, { recursive: true, force: true });
  await t?.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the result as the API answers it
const get = async (p: string): Promise<any> =>
  expectSuccess(
    await t
      .http()
      .get(API + p)
      .set('Authorization', owner.auth),
  );

/** The analysis's status once it has ended (polled every half second: the analyses take tens of seconds). */
async function finished(name: Case): Promise<{ state: string }> {
  for (const end = Date.now() + 300_000; ; await new Promise((r) => setTimeout(r, 500))) {
    const status = await get(`/analysis/${analyses[name]}/status`);
    if (status.state === 'finished' || status.state === 'failed' || Date.now() > end) return status;
  }
}

describe('the report route', () => {
  it('answers the error envelopes of the result route while there is no result, and for unknown or malformed ids', async () => {
    // a fourth analysis waits: the three above hold the worker's cores
    const pending = expectSuccess(
      await t
        .http()
        .post(`${API}/dataset/${(await get(`/analysis/${analyses.regression}`)).parameters.datasetId}/analyze`)
        .set('Authorization', owner.auth)
        .send({ outcome: { regression: 'progression' }, thoroughness: 'preliminary', coreCount: 1, name: 'waiting' }),
    ).analysisId as string;
    const report = await t.http().get(`${API}/analysis/${pending}/report`).set('Authorization', owner.auth);
    const result = await t.http().get(`${API}/analysis/${pending}/result`).set('Authorization', owner.auth);
    expectError(report, 'notFound-120-2-3');
    // the same envelope; it may have started between the two requests (one of the three above may have ended)
    const noResult = {
      status: 'error',
      code: 'notFound-120-2-3',
      message: expect.stringMatching(/^the analysis is (pending|running): it has no result$/),
    };
    expect(report.body).toEqual(noResult);
    expect(result.body).toEqual(noResult);
    expect(report.headers['content-type']).toMatch(/^application\/json/);
    expectSuccess(await t.http().post(`${API}/analysis/${pending}/delete`).set('Authorization', owner.auth));
    expectError(await t.http().get(`${API}/analysis/987654321/report`).set('Authorization', owner.auth), 'notFound-120-2-1');
    expectError(await t.http().get(`${API}/analysis/x1/report`).set('Authorization', owner.auth), 'badRequest-1-0-2');
  });

  it('answers one HTML document naming its file, that may load nothing from anywhere', async () => {
    await finished('regression');
    const id = analyses.regression;
    const res = await t.http().get(`${API}/analysis/${id}/report`).set('Authorization', owner.auth);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`inline; filename="analysis-${id}-report.html"`);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const csp = res.headers['content-security-policy'];
    expect(csp).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/,
    );
    const page = res.text;
    expect(page.startsWith('<!DOCTYPE html>')).toBe(true);
    // the same policy in the page, for the saved file opened from disk
    expect(page).toContain(
      `<meta http-equiv="Content-Security-Policy" content="${csp.replace(/; frame-ancestors 'none'$/, '').replace(/'/g, '&#39;')}"`,
    );
    expect(page).not.toMatch(/<script|<link(?! rel="icon" href="data:,")|<img|\ssrc=|https?:\/\/(?!127\.0\.0\.1)/);
  }, 320_000);
});

/** Opens the report of an analysis as a browser would, through the app; what the page tried and what it said. */
async function open(name: Case, page: Page) {
  const url = `${base}${API}/analysis/${analyses[name]}/report`;
  const requests: string[] = [];
  const refused: string[] = [];
  const problems: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  // the report itself (with the token, as a client sends it); anything else the page asked for is refused and counted
  await page.route('**/*', async (route) => {
    if (route.request().url() === url) await route.continue({ headers: { ...route.request().headers(), authorization: owner.auth } });
    else {
      refused.push(route.request().url());
      await route.abort();
    }
  });
  await page.setViewportSize({ width: 1280, height: 900 });
  const response = await page.goto(url, { waitUntil: 'load' });
  expect(response?.status()).toBe(200);
  return { requests, refused, problems };
}

describe.each(Object.keys(CASES) as Case[])('the report of a %s analysis, in chromium', (name) => {
  it('loads nothing, fails nothing, draws every plot, shows the result, fits a phone and prints every section', async () => {
    expect((await finished(name)).state).toBe('finished');
    const id = analyses[name];
    const result = await get(`/analysis/${id}/result`);
    const board = await get(`/analysis/${id}/configurations/0/20`);
    const page = await context.newPage();
    try {
      const seen = await open(name, page);

      // every plot the result lists for each model is a figure whose chart has marks with an extent
      const keys = Object.keys(result.models);
      const plotNames = new Set<string>();
      for (const key of keys) {
        const listed: string[] = (await get(`/analysis/${id}/availablePlots?modelKey=${key}`)).plots;
        listed.forEach((p) => plotNames.add(p));
        const drawn = await page.$$eval(`figure[data-model="${key}"]`, (figures) =>
          figures.map((f) => ({
            plot: f.getAttribute('data-plot'),
            marks: [...f.querySelectorAll('svg.chart .mark')].filter((m) => {
              const box = (m as unknown as { getBBox(): { width: number; height: number } }).getBBox();
              return box.width > 0 || box.height > 0;
            }).length,
          })),
        );
        expect(drawn.map((d) => d.plot)).toEqual(listed);
        expect(drawn.filter((d) => d.marks === 0)).toEqual([]);
        expect(listed.length).toBeGreaterThanOrEqual(4);

        // every metric with its estimate and interval, as the result has them
        const metrics = await page.$$eval(`section[data-model="${key}"] tr[data-metric]`, (rows) =>
          rows.map((r) => {
            const [value, cis] = r.querySelectorAll('td.num');
            return {
              metric: r.getAttribute('data-metric') as string,
              value: Number(value.getAttribute('data-value')),
              shown: value.textContent,
              cis: (cis.getAttribute('data-cis') as string).split(' ').map(Number),
              shownCis: cis.textContent,
            };
          }),
        );
        const model = result.models[key];
        expect(metrics.map((m) => m.metric).sort()).toEqual(Object.keys(model.performance).sort());
        for (const m of metrics) {
          expect(m).toEqual({
            metric: m.metric,
            value: model.performance[m.metric],
            shown: num(model.performance[m.metric]),
            cis: model.performanceCis[m.metric],
            shownCis: interval(model.performanceCis[m.metric]),
          });
        }
        // the reference signature, each feature with its stability, and the equivalents of the signatures shown
        const signature = await page.$$eval(`section[data-model="${key}"] tr[data-feature]`, (rows) =>
          rows.map((r) => ({ feature: r.getAttribute('data-feature'), stability: r.querySelector('td.num')?.textContent?.trim() ?? '' })),
        );
        expect(signature.map((s) => s.feature)).toEqual(model.signatures[0]);
        for (const s of signature) expect(s.stability).toBe(pct(model.stability[s.feature as string], 0));
        const equivalents = await page.$$eval(`section[data-model="${key}"] [data-equivalent]`, (els) =>
          els.map((e) => e.getAttribute('data-equivalent')),
        );
        expect(new Set(equivalents)).toEqual(
          new Set((model.signatures as string[][]).flat().filter((f) => !model.signatures[0].includes(f))),
        );
      }

      // the leaderboard's top, as the configurations route lists it
      const rows = await page.$$eval('tr[data-rank]', (trs) =>
        trs.map((r) => ({
          rank: Number(r.getAttribute('data-rank')),
          key: r.getAttribute('data-model-key'),
          value: r.querySelector('td[data-value]')?.getAttribute('data-value'),
        })),
      );
      expect(rows.slice(0, board.data.length)).toEqual(
        board.data.map((r: { rank: number; modelKey?: string; value: number | null }) => ({
          rank: r.rank,
          key: r.modelKey ?? null,
          value: r.value === null ? '' : String(r.value),
        })),
      );
      // then the result's models that rank below the top 20, each once
      const inTop = board.data.map((r: { modelKey?: string }) => r.modelKey).filter(Boolean);
      const below = rows.slice(board.data.length);
      expect(below.map((r) => r.key).sort()).toEqual(keys.filter((k) => !inTop.includes(k)).sort());
      for (const r of below) expect(r.rank).toBeGreaterThan(board.data.length);
      expect(await page.textContent('#predict')).toContain(`/analysis/${id}/predict/`);

      // names from the data are text, never markup: no element or handler came from them, and each reads as written
      const active = await page.$$eval('script, img, iframe, object, embed, [onerror], [onmouseover], [onload]', (els) => els.length);
      expect(active).toBe(0);
      const text = await page.innerText('body');
      expect(text).toContain(`${name} <report> "test"`);
      if (name === 'classification')
        for (const hostile of HOSTILE) expect({ hostile, shown: text.includes(hostile) }).toEqual({ hostile, shown: true });

      await page.screenshot({ path: path.join(OUT, `${name}-desktop.png`), fullPage: true });
      // a phone: nothing wider than the screen (tables and charts scroll or shrink within it)
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await page.screenshot({ path: path.join(OUT, `${name}-phone.png`), fullPage: true });

      // print: every section shows, the navigation does not; the PDF's text has every section's heading
      await page.emulateMedia({ media: 'print' });
      const headings = await page.$$eval('section > h2', (hs) =>
        hs.map((h) => ({ text: h.textContent, shown: h.getBoundingClientRect().height > 0 })),
      );
      const expected: string[] = [
        REPORT_SECTIONS.summary,
        REPORT_SECTIONS.analysis,
        ...keys.map((k) => (k === 'best' ? 'Best model' : 'Interpretable model')),
      ];
      expected.push(REPORT_SECTIONS.leaderboard, REPORT_SECTIONS.predict, REPORT_SECTIONS.reading);
      expect(headings).toEqual(expected.map((h) => ({ text: h, shown: true })));
      expect(await page.evaluate("getComputedStyle(document.querySelector('nav.toc')).display")).toBe('none');
      const pdf = await page.pdf({ format: 'A4', printBackground: true });
      fs.writeFileSync(path.join(OUT, `${name}.pdf`), pdf);
      const printed = pdfText(pdf).join(' ').normalize('NFKC').replace(/\s+/g, '');
      for (const h of [...expected, ...plotNames])
        expect({ h, printed: printed.includes(h.replace(/\s+/g, '')) }).toEqual({ h, printed: true });

      // after all that: one request (the report), nothing refused, nothing said in the console
      expect(seen).toEqual({ requests: [`${base}${API}/analysis/${id}/report`], refused: [], problems: [] });
    } finally {
      await page.close();
    }
    for (const file of [`${name}-desktop.png`, `${name}-phone.png`]) expect(fs.statSync(path.join(OUT, file)).size).toBeGreaterThan(20_000);
  }, 320_000);
});
