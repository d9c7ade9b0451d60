import { activeParts, flat, marksOf, ONERROR, QUOTES, SCRIPT } from '../../../test/report-markup';
import { labelLines, niceDomain, ticks } from './chart-frame';
import { barChart, boxChart, heatMap, scatterChart, stepChart, xyChart } from './charts';
import { duration, interval, num, pct, pValue } from './format';
import { escapeHtml, join, markup, Markup } from './html';

/** The report's pieces: markup, numbers in words, charts (report.spec.ts: the page of each kind of outcome). */

describe('html', () => {
  it('escapes the five characters of markup in text and attribute values', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });

  it('escapes every interpolated value, keeps markup as it is, joins lists and drops nothing-values', () => {
    const cell = markup`<td title="${QUOTES}">${SCRIPT}</td>`;
    expect(cell.value).toBe('<td title="o&#39;neil &quot;quoted&quot;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</td>');
    expect(markup`<tr>${[cell, ONERROR, 3, null, undefined, false]}</tr>`.value).toBe(
      `<tr>${cell.value}&lt;img src=x onerror=alert(1)&gt;3</tr>`,
    );
    // the template's own line breaks and indentation are one space
    expect(
      markup`<p>
        one
        ${'two'}</p
      >`.value,
    ).toBe('<p> one two</p >');
    expect(join(['a<', new Markup('<b>'), 'c'], ', ').value).toBe('a&lt;, <b>, c');
  });
});

describe('format', () => {
  it('writes numbers to about three decimals, percentages, intervals, p-values and durations', () => {
    expect([num(0.98623), num(12.3456), num(123.456), num(55036.7), num(-0.2), num(-0.0001), num(0), num(NaN), num(null)]).toEqual([
      '0.986',
      '12.35',
      '123.5',
      '55037',
      '\u22120.200',
      '\u22121.00e-4',
      '0',
      'n/a',
      'n/a',
    ]);
    expect([pct(0.9731), pct(1), pct(-0.00001)]).toEqual(['97.3%', '100.0%', '0.0%']);
    expect(interval([0.951, 0.989])).toBe('0.951\u20130.989');
    expect(interval(undefined)).toBe('n/a');
    expect([pValue(0.0004), pValue(0.0312)]).toEqual(['< 0.001', '0.031']);
    expect([duration(4.25), duration(75.4), duration(3 * 3600 + 300)]).toEqual(['4.3 s', '1 min 15 s', '3 h 05 min']);
  });
});

describe('charts', () => {
  it('puts round ticks over a domain widened to them', () => {
    expect(ticks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(ticks(-0.47, 1.2)).toEqual([0, 0.5, 1]);
    expect(ticks(-0.5, 1.2)).toEqual([-0.5, 0, 0.5, 1]);
    expect(niceDomain([0.13, 0.87])).toEqual([0.1, 0.9]);
    expect(niceDomain([0.13, 0.87], [0])).toEqual([0, 1]);
    expect(niceDomain([5, 5])).toEqual([4.4, 5.6]);
    expect(niceDomain([])).toEqual([0, 1]);
  });

  it('draws one bar per value with its whisker, titled with its values, and tables them', () => {
    const parts = barChart({
      title: 'Importance',
      bars: [
        { label: SCRIPT, value: 0.25, cis: [0.1, 0.4] },
        { label: 'b', value: -0.05, cis: [-0.1, 0.02] },
        { label: 'c', value: 0.1 },
      ],
      axis: { label: 'drop', percent: true },
      reference: 0,
      labelHeader: 'feature',
    });
    const svg = flat(parts.svg);
    const table = flat(parts.table);
    expect([...svg.matchAll(/class="mark bar"/g)]).toHaveLength(3);
    expect([...svg.matchAll(/class="mark whisker"/g)]).toHaveLength(2);
    expect(svg).toContain('<title>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;: 25.0% (10.0%\u201340.0%) (95% interval)</title>');
    expect(activeParts(svg + table)).toEqual([]);
    // the negative bar starts at 0 and goes left: its x plus width is the x of 0
    const rects = [...svg.matchAll(/<rect class="mark bar" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/g)].map((m) => [
      Number(m[1]),
      Number(m[2]),
    ]);
    expect(rects[1][0] + rects[1][1]).toBeCloseTo(rects[0][0], 0);
    expect(table).toContain('<td>\u22125.0%</td><td>\u221210.0%\u20132.0%</td>');
    expect(table).toContain('<td>10.0%</td><td>n/a</td>');
  });

  it('wraps an axis label too long for the chart at spaces, and makes room for its lines', () => {
    const chart = (label: string) =>
      flat(barChart({ title: 'I', bars: [{ label: 'a', value: 0.2 }], axis: { label }, labelHeader: 'f' }).svg);
    const height = (svg: string) => Number(/height="(\d+)"/.exec(svg)?.[1]);
    const long = 'Relative drop of Mean Area Under the ROC Curve without the feature';
    const lines = [...chart(long).matchAll(/<tspan[^>]*>([^<]*)<\/tspan>/g)].map((m) => m[1]);
    expect(lines).toEqual(['Relative drop of Mean Area Under the ROC Curve without the', 'feature']);
    expect(height(chart(long)) - height(chart('drop'))).toBe(15);
    expect(labelLines('a bb ccc', 4)).toEqual(['a bb', 'ccc']);
    expect(labelLines('averyveryverylongword x', 5)).toEqual(['averyveryverylongword', 'x']);
  });

  it('draws steps that hold each value until the next time, with a band closed back along its lower edge', () => {
    const step = stepChart({
      title: 'KM',
      x: { label: 'time', domain: [0, 10] },
      y: { label: 'survival', domain: [0, 1] },
      series: [
        {
          name: 'low',
          points: [
            { x: 0, y: 1 },
            { x: 5, y: 0.5 },
            { x: 10, y: 0.25 },
          ],
          band: [{ x: 0, cis: [1, 1] }, { x: 5, cis: [0.3, 0.7] }, { x: 10 }],
        },
      ],
      table: { headers: ['t'], rows: [] },
    });
    const svg = flat(step.svg);
    // frame 500 x 330, margins 56/14/12/46: x(5) = 56 + 5/10 * 430 = 271, y(0.5) = 284 - 0.5 * 272 = 148
    expect(svg).toContain('d="M56 12H271V148H486V216"');
    // the band runs while intervals exist (0 and 5) and comes back along the lower edge as steps
    expect(svg).toContain('d="M56 12H271V93.6L271 202.4V12H56Z"');
    expect(flat(step.legend ?? '')).toContain('low');
  });

  it('draws points, the identity line and fitted lines in a square frame', () => {
    const scatter = scatterChart({
      title: 'PvA',
      square: true,
      diagonal: true,
      x: { label: 'predicted', domain: [0, 10] },
      y: { label: 'actual', domain: [0, 10] },
      series: [{ name: 'samples', points: [1, 2, 3].map((v) => ({ x: v, y: v + 1 })) }],
      lines: [{ name: 'fit', intercept: 1, slope: 1 }],
      table: { headers: ['x', 'y'], rows: [['1', '2']] },
    });
    const svg = flat(scatter.svg);
    expect([...svg.matchAll(/class="mark point"/g)]).toHaveLength(3);
    expect(svg).toContain('class="reference"');
    expect(svg).toContain('class="mark fit"');
    expect(svg).toMatch(/^<svg class="chart" width="440" height="420" viewBox="0 0 440 420"/);
  });

  it('draws lines with markers and whiskers, boxes, and a heat map whose cells hold the counts', () => {
    const xy = xyChart({
      title: 'cal',
      x: { label: 'p' },
      y: { label: 'o' },
      series: [{ name: 's', markers: true, points: [{ x: 0.1, y: 0.2, cis: [0.1, 0.3] }] }],
      table: { headers: ['p'], rows: [] },
    });
    expect([marksOf(flat(flat(xy.svg))), flat(flat(xy.svg)).includes('class="mark errorbar"')]).toEqual([3, true]);
    const box = boxChart({
      title: 'p',
      boxes: [{ label: ONERROR, group: QUOTES, min: 0, q1: 0.2, median: 0.5, q3: 0.7, max: 1, mean: 0.45 }],
      axis: { label: 'probability', domain: [0, 1] },
      labelHeader: 'class',
    });
    expect(flat(box.svg)).toContain('class="mark box"');
    expect(activeParts(flat(box.svg) + flat(box.table))).toEqual([]);
    const heat = heatMap({
      title: 'cm',
      rowLabels: ['a', QUOTES],
      columnLabels: ['a', QUOTES],
      counts: [
        [8, 2],
        [1, 9],
      ],
      rowHeader: 'true',
      columnHeader: 'predicted',
    });
    expect([...flat(heat.svg).matchAll(/class="mark cell"/g)]).toHaveLength(4);
    expect([...flat(heat.svg).matchAll(/<text class="count[^"]*"[^>]*>(\d+)<\/text>/g)].map((m) => m[1])).toEqual(['8', '2', '1', '9']);
    expect(flat(heat.table)).toContain('<th scope="row">o&#39;neil &quot;quoted&quot;</th><td>1</td><td>9</td>');
  });
});
