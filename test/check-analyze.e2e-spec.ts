/**
 * POST /check/dataset/:id/analyze reports, without starting anything, the data problems that would make the
 * analysis fail later: the engine's own validation of the outcome (a single class, too few samples, no events).
 */
import * as dataCheck from '../src/analyses/data-check';
import { ColumnStore } from '../src/datasets/column-store';
import { API, createProject, createTestApp, createUser, expectSuccess, TestApp, uploadDataset } from './utils';

let t: TestApp;
let auth: string;
let projectId: string;

beforeAll(async () => {
  t = await createTestApp();
  auth = (await createUser(t)).auth;
  projectId = await createProject(t, auth, 'check');
});
afterAll(async () => {
  await t.close();
});

const rows = (n: number, line: (i: number) => string): string => Array.from({ length: n }, (_, i) => line(i)).join('\n');

async function check(csv: string, body: Record<string, unknown>, featureTypes?: Record<string, string>) {
  const datasetId = await uploadDataset(t, auth, projectId, csv, { featureTypes });
  const res = await t
    .http()
    .post(`${API}/check/dataset/${datasetId}/analyze`)
    .set('Authorization', auth)
    .send({ thoroughness: 'preliminary', coreCount: 1, name: 'checked', ...body });
  const out = expectSuccess<{ errors: { code: string; message: string }[]; warnings: { code: string; message: string }[] }>(res);
  const listed = expectSuccess(await t.http().get(`${API}/analyses/all/${projectId}/0/10`).set('Authorization', auth));
  return { ...out, listed };
}

describe('check analyze', () => {
  it('reports an outcome with a single class', async () => {
    const r = await check(`x,y,label\n${rows(60, (i) => `${i},${i % 7},same`)}`, { outcome: { classification: 'label' } });
    expect(r.errors).toEqual([{ code: 'badRequest-120-0-13', message: 'The outcome has a single class' }]);
  });

  it('reports too few samples with an outcome', async () => {
    // 30 samples, the outcome missing for all but 4
    const r = await check(`x,label\n${rows(30, (i) => `${i},${i < 4 ? (i % 2 ? 'a' : 'b') : ''}`)}`, {
      outcome: { classification: 'label' },
    });
    expect(r.errors).toEqual([{ code: 'badRequest-120-0-13', message: 'Too few samples with an outcome: 4 (at least 10 are needed)' }]);
  });

  it('reports a survival outcome without events', async () => {
    const r = await check(
      // the only events are on samples without a time: no usable sample has one
      `x,time,status\n${rows(40, (i) => (i < 3 ? `${i % 5},,1` : `${i % 5},${i + 1},0`))}`,
      { outcome: { survival: { event: 'status', timeToEvent: 'time' } } },
      { time: 'timeToEvent', status: 'event' },
    );
    expect(r.errors.map((e) => e.code)).toContain('badRequest-120-0-13');
    expect(r.errors.map((e) => e.message)).toContain('No sample has an event');
  });

  it('reports an outcome beyond ±1e100, whose squares would overflow into null metrics', async () => {
    const r = await check(`x,y\n${rows(40, (i) => `${i},${i}e160`)}`, { outcome: { regression: 'y' } });
    expect(r.errors).toEqual([
      {
        code: 'badRequest-120-0-13',
        message:
          'The column "y" holds values beyond ±1e100 (such as 1.00e+160): rescale it (the engine squares values, which would overflow)',
      },
    ]);
  });

  it('reports a grouping feature with a single group (every metric of the analysis came out null)', async () => {
    const r = await check(
      `g,x,label\n${rows(40, (i) => `site,${i},${i % 2 ? 'a' : 'b'}`)}`,
      { outcome: { classification: 'label' }, groupingFeature: 'g' },
      { g: 'identifier' },
    );
    expect(r.errors).toEqual([
      {
        code: 'badRequest-120-0-13',
        message: 'The grouping feature "g" has a single group among the samples with an outcome: at least 2 are needed to hold one out',
      },
    ]);
  });

  it('reports nothing for an analysable dataset, and starts nothing', async () => {
    const r = await check(`x,z,label\n${rows(80, (i) => `${i},${(i * 7) % 11},${i % 2 ? 'a' : 'b'}`)}`, {
      outcome: { classification: 'label' },
    });
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    expect(r.listed.data).toEqual([]);
  });

  it('reports a class with fewer samples than the folds need, and survival whose concordance cannot be estimated', async () => {
    // 59 samples of "a" and b, one of "c": AUC 0.25 and Balanced Accuracy 0.83 came out beside Sensitivity 0
    const rare = await check(`x,label\n${rows(60, (i) => `${i},${i === 59 ? 'c' : i % 2 ? 'a' : 'b'}`)}`, {
      outcome: { classification: 'label' },
    });
    expect(rare.errors).toEqual([
      {
        code: 'badRequest-120-0-13',
        message:
          'The class "c" (1) of the outcome has fewer than 2 samples: the cross-validation needs each class in the training and the test data of every fold (merge rare classes, or remove their samples)',
      },
    ]);
    const survival = (line: (i: number) => string) =>
      check(
        `x,time,status\n${rows(40, line)}`,
        { outcome: { survival: { event: 'status', timeToEvent: 'time' } } },
        { time: 'timeToEvent', status: 'event' },
      );
    // a single event: C-index 0.5 [0.5, 0.5]
    const oneEvent = await survival((i) => `${i % 5},${i + 1},${i === 7 ? 1 : 0}`);
    expect(oneEvent.errors.map((e) => e.message)).toEqual([
      'Only 1 sample has an event: the concordance index needs at least 2 (one in the test data of each fold) to be estimated',
    ]);
    // every time 0
    const sameTime = await survival((i) => `${i % 5},0,${i % 2}`);
    expect(sameTime.errors.map((e) => e.message)).toEqual([
      'Every survival time is 0: the concordance index compares samples whose times differ, so it cannot be estimated',
    ]);
  });

  it('reports a regression outcome whose values differ by less than 1e-100 (it failed with a message about classes)', async () => {
    const r = await check(`x,y\n${rows(40, (i) => `${i},${i + 1}e-300`)}`, { outcome: { regression: 'y' } });
    expect(r.errors).toEqual([
      {
        code: 'badRequest-120-0-13',
        message:
          "The outcome's values differ by at most 3.90e-299: rescale it (multiply it by a power of ten; the engine squares differences, which would underflow to 0)",
      },
    ]);
  });

  it('validates the outcome on an engine process: the API never loads the columns (a 40M-row check blocked /health/live 6.8 s)', async () => {
    const load = jest.spyOn(ColumnStore.prototype, 'loadForEngine');
    try {
      const r = await check(
        `g,x,time,status\n${rows(60, (i) => `s${i % 6},${i},${i + 1},${i % 3 ? 0 : 1}`)}`,
        { outcome: { survival: { event: 'status', timeToEvent: 'time' } }, groupingFeature: 'g' },
        { g: 'identifier', time: 'timeToEvent', status: 'event' },
      );
      expect(r.errors).toEqual([]);
      const bad = await check(`x,y\n${rows(40, (i) => `${i},${i}e160`)}`, { outcome: { regression: 'y' } });
      expect(bad.errors.map((e) => e.code)).toEqual(['badRequest-120-0-13']);
      expect(load).not.toHaveBeenCalled();
    } finally {
      load.mockRestore();
    }
  });

  it('streams only the outcome and grouping columns to the engine process, levels included: the API never parses labels', async () => {
    // labels with multi-byte characters and quotes, beside a categorical column of 3,000 distinct labels that the
    // check must not read (each change or check read every column's levels on the event loop)
    const sent = jest.spyOn(dataCheck, 'checkDataInWorker');
    try {
      const r = await check(
        `x,noise,g,cls\n${rows(3000, (i) => `${i % 11},n${i},g${i % 4},${i === 0 ? '"rare é"' : i % 2 ? 'ß-1' : '"ü ""2"""'}`)}`,
        { outcome: { classification: 'cls' }, groupingFeature: 'g' },
        { g: 'identifier' },
      );
      expect(r.errors).toEqual([
        {
          code: 'badRequest-120-0-13',
          message: expect.stringMatching(/^The class "rare é" \(1\) of the outcome has fewer than 2 samples/) as string,
        },
        {
          code: 'badRequest-120-0-13',
          message: expect.stringMatching(/^The class "rare é" of the outcome is found in a single group of "g"/) as string,
        },
      ]);
      expect(sent).toHaveBeenCalledTimes(1);
      const columns = sent.mock.calls[0][2];
      expect(columns.map((c) => c.name).sort()).toEqual(['cls', 'g']);
      expect(columns.every((c) => !('levels' in c))).toBe(true);
    } finally {
      sent.mockRestore();
    }
  });
});
