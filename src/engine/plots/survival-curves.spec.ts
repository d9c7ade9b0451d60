import * as fs from 'node:fs';
import * as path from 'node:path';
import { TEST_DATA, TEST_REFERENCES } from '../../../test/data';
import { datasetFromCsv } from '../../../bench/csv-dataset';
import { kaplanMeier, logRank, riskThirds } from './kaplan-meier';

/** survfit's curves and survdiff's tests on lung, as make-survival-references.R wrote them (R writes a number as [x]). */
interface KaplanMeierReference {
  time: number[];
  atRisk: number[];
  events: number[];
  censored: number[];
  survival: number[];
  lower: (number | null)[];
  upper: (number | null)[];
}
interface LogRankReference {
  chiSquare: number[];
  pValue: number[];
}
const R = JSON.parse(fs.readFileSync(path.join(TEST_REFERENCES, 'survival-references.json'), 'utf8')) as {
  kmAll: KaplanMeierReference;
  kmMale: KaplanMeierReference;
  logRankSex: LogRankReference;
  logRankEcog: LogRankReference;
};
const lung = datasetFromCsv(fs.readFileSync(path.join(TEST_DATA, 'lung.csv'), 'utf8'), { status: 'event', time: 'timeToEvent' });
const col = (name: string): Float64Array => {
  const c = lung.columns.find((x) => x.name === name);
  if (!c || !('values' in c)) throw new Error(name);
  return c.values;
};
const time = col('time');
const status = col('status');

describe('kaplanMeier', () => {
  it('matches a small case computed by hand (ties of an event and a censoring at one time)', () => {
    const km = kaplanMeier([1, 2, 2, 3, 4, 5], [1, 1, 0, 1, 0, 1]);
    expect(km.map((p) => p.time)).toEqual([1, 2, 3, 4, 5]);
    expect(km.map((p) => p.atRisk)).toEqual([6, 5, 3, 2, 1]);
    expect(km.map((p) => [p.events, p.censored])).toEqual([
      [1, 0],
      [1, 1],
      [1, 0],
      [0, 1],
      [1, 0],
    ]);
    const s = [5 / 6, (5 / 6) * (4 / 5), (5 / 6) * (4 / 5) * (2 / 3), (5 / 6) * (4 / 5) * (2 / 3), 0];
    km.forEach((p, j) => expect(p.survival).toBeCloseTo(s[j], 14));
    // Greenwood on the log scale: se(log S(1)) = sqrt(1 / (6 x 5))
    const se = Math.sqrt(1 / 30);
    expect(km[0].cis?.[0]).toBeCloseTo((5 / 6) * Math.exp(-1.959963984540054 * se), 12);
    expect(km[0].cis?.[1]).toBeCloseTo(Math.min(1, (5 / 6) * Math.exp(1.959963984540054 * se)), 12);
    // no interval where the survival reaches 0
    expect(km[4].cis).toBeUndefined();
  });

  it.each([
    ['every sample', 'kmAll', undefined],
    ['the men', 'kmMale', 1],
  ])("matches R's survfit on lung (%s)", (_, key, sex) => {
    const rows = sex === undefined ? undefined : Array.from(col('sex').keys()).filter((i) => col('sex')[i] === sex);
    const km = kaplanMeier(time, status, rows);
    const ref = R[key as 'kmAll' | 'kmMale'];
    expect(km.map((p) => p.time)).toEqual(ref.time);
    expect(km.map((p) => p.atRisk)).toEqual(ref.atRisk);
    expect(km.map((p) => p.events)).toEqual(ref.events);
    expect(km.map((p) => p.censored)).toEqual(ref.censored);
    km.forEach((p, j) => {
      expect(p.survival).toBeCloseTo(ref.survival[j], 9);
      const [lower, upper] = [ref.lower[j], ref.upper[j]];
      if (lower === null || upper === null) expect(p.cis).toBeUndefined();
      else {
        expect(p.cis?.[0]).toBeCloseTo(lower, 9);
        expect(p.cis?.[1]).toBeCloseTo(upper, 9);
      }
    });
  });
});

describe('logRank', () => {
  it("matches R's survdiff on lung: two groups (sex) and three (ph.ecog 0, 1, 2)", () => {
    const sex = col('sex');
    const two = logRank(
      time,
      status,
      Int32Array.from(sex, (s) => s - 1),
    );
    expect(two.chiSquare).toBeCloseTo(R.logRankSex.chiSquare[0], 8);
    expect(two.df).toBe(1);
    expect(two.pValue).toBeCloseTo(R.logRankSex.pValue[0], 10);
    const ecog = col('ph.ecog');
    const rows = Array.from(ecog.keys()).filter((i) => ecog[i] <= 2);
    const three = logRank(
      rows.map((i) => time[i]),
      rows.map((i) => status[i]),
      rows.map((i) => ecog[i]),
    );
    expect(three.chiSquare).toBeCloseTo(R.logRankEcog.chiSquare[0], 8);
    expect(three.df).toBe(2);
    expect(three.pValue).toBeCloseTo(R.logRankEcog.pValue[0], 10);
  });
});

describe('riskThirds', () => {
  it('puts the lowest third of the risks in group 0 and the highest in group 2', () => {
    expect(Array.from(riskThirds([0.5, 0.1, 0.9, 0.3, 0.7, 0.2]))).toEqual([1, 0, 2, 1, 2, 0]);
  });
});
