import type { ModelPlots } from '../../engine/types';
import { fitText } from './chart-frame';
import { barChart } from './charts';
import { escapeHtml, markup } from './html';
import { largestClasses, MAX_CHART_CLASSES, summarisedMatrix } from './many-classes';
import { PLOT_RENDERERS, PlotRenderContext } from './plot-charts';

/**
 * Issue 41, findings 2, 7 and 8: charts of many classes are summarised past MAX_CHART_CLASSES, labels never run over
 * the values beside them, and a name's direction controls do not turn the text after it around.
 */

/** A class label of 200 characters (the longest the engine keeps), unique by its number. */
const label = (k: number) => `class ${k} ${'x'.repeat(190)}`.slice(0, 200);

/** The class-by-class plots of a K-class outcome, class k having 2 + k samples, shaped as the engine stores them. */
function plots(K: number): Required<Pick<ModelPlots, 'ROC Curve' | 'Confusion Matrix' | 'Probabilities'>> {
  const classes = Array.from({ length: K }, (_, k) => label(k));
  const count = (k: number) => 2 + k;
  const band = Array.from({ length: 51 }, (_, j) => ({ fpr: j / 50, tpr: Math.sqrt(j / 50), cis: [0, 1] as [number, number] }));
  const points = Array.from({ length: 201 }, (_, i) => ({ fpr: i / 200, tpr: Math.sqrt(i / 200), threshold: 1 - i / 200 }));
  return {
    'ROC Curve': classes.map((c) => ({ class: c, auc: 0.8, cis: [0.7, 0.9], points, band })),
    'Confusion Matrix': {
      classes,
      counts: classes.map((_, t) => classes.map((__, p) => (t === p ? count(t) - 1 : p === (t + 1) % K ? 1 : 0))),
      perClass: classes.map((c, k) => ({ class: c, count: count(k), sensitivity: 0.5, sensitivityCis: [0.2, 0.8] })),
    },
    Probabilities: classes.map((trueClass, t) => ({
      trueClass,
      count: count(t),
      probabilities: classes.map((c) => ({ class: c, mean: 0.1, min: 0, q1: 0.05, median: 0.1, q3: 0.15, max: 0.3, values: [0.1] })),
    })),
  };
}

function context(K: number): PlotRenderContext {
  return {
    primaryMetric: 'Area Under the ROC Curve',
    outcome: 'y',
    classSizes: Object.fromEntries(Array.from({ length: K }, (_, k) => [label(k), 2 + k])),
  };
}

/** The bytes of the three charts whose size grows with the square of the classes, and their marks. */
function drawn(K: number) {
  const p = plots(K);
  const ctx = context(K);
  const roc = PLOT_RENDERERS['ROC Curve'](p['ROC Curve'], ctx);
  const matrix = PLOT_RENDERERS['Confusion Matrix'](p['Confusion Matrix'], ctx);
  const boxes = PLOT_RENDERERS.Probabilities(p.Probabilities, ctx);
  const html = [roc, matrix, boxes].map((r) => `${String(r.parts.svg)}${String(r.parts.table)}${String(r.caption)}`).join('');
  return {
    bytes: Buffer.byteLength(html),
    curves: (String(roc.parts.svg).match(/class="mark line"/g) ?? []).length,
    cells: (String(matrix.parts.svg).match(/class="mark cell"/g) ?? []).length,
    boxes: (String(boxes.parts.svg).match(/class="mark box"/g) ?? []).length,
    captions: [roc, matrix, boxes].map((r) => String(r.caption)),
  };
}

describe('charts of many classes', () => {
  it(`show the ${MAX_CHART_CLASSES} largest classes past ${MAX_CHART_CLASSES}, the rest as "other": their size stops growing with the classes`, () => {
    const few = drawn(MAX_CHART_CLASSES);
    expect({ curves: few.curves, cells: few.cells, boxes: few.boxes }).toEqual({ curves: 20, cells: 400, boxes: 400 });
    const many = drawn(100);
    // 20 curves, a 21 x 21 matrix (the 80 smaller classes summed as one), one box per shown class (its own probability)
    expect({ curves: many.curves, cells: many.cells, boxes: many.boxes }).toEqual({ curves: 20, cells: 441, boxes: 20 });
    expect(many.captions[0]).toContain('Of 100 classes, the 20 largest are shown');
    expect(many.captions[1]).toContain('the others are summed as &quot;other (80 classes)&quot;');
    expect(many.captions[2]).toContain('each with the probability of its own class');
    // a 100-class outcome draws about what a 20-class one does (drawn whole: 5 times the classes, 25 times the cells)
    expect(many.bytes / few.bytes).toBeLessThan(1.5);
    expect(drawn(60).bytes).toBeLessThan(few.bytes * 1.5);
  });

  it('keep the largest classes, and sum every count of the others into "other" (the totals stay)', () => {
    const classes = ['a', 'b', 'c'];
    expect([...largestClasses(classes, (c) => ({ a: 1, b: 3, c: 2 })[c] ?? 0, 2)]).toEqual(['b', 'c']);
    const counts = Array.from({ length: 25 }, (_, t) => Array.from({ length: 25 }, (__, p) => (t === p ? 10 + t : 1)));
    const m = summarisedMatrix(
      Array.from({ length: 25 }, (_, k) => `k${k}`),
      counts,
    );
    expect(m.labels).toHaveLength(21);
    expect(m.labels[0]).toBe('k5'); // the five smallest (k0..k4) gathered
    expect(m.labels[20]).toBe('other (5 classes)');
    const total = (rows: number[][]) => rows.flat().reduce((a, b) => a + b, 0);
    expect(total(m.counts)).toBe(total(counts));
    // other x other: the 5 diagonal cells (10..14) and the 20 off-diagonal ones among them
    expect(m.counts[20][20]).toBe(10 + 11 + 12 + 13 + 14 + 20);
  });
});

describe('labels of charts', () => {
  it('are cut to the width they have, whatever their characters, never running over the value beside them', () => {
    const widths = { W: 0.95, x: 0.6, 中: 1 } as const;
    for (const [ch, ems] of Object.entries(widths)) {
      const cut = fitText(ch.repeat(200), 300);
      // the kept characters and the ellipsis fit in 300 px at 13 px an em
      expect(([...cut].length - 1) * ems * 13 + 13).toBeLessThanOrEqual(300);
      expect(cut.endsWith('\u2026')).toBe(true);
    }
    expect(fitText('short', 300)).toBe('short');
    const chart = String(
      barChart({
        title: 't',
        bars: [{ label: 'W'.repeat(200), value: 0.5, cis: [0.4, 0.6] }],
        axis: { label: 'a', percent: true },
        labelHeader: 'feature',
      }).svg,
    );
    const shown = /<text class="label" x="8"[^>]*>([^<]*)</.exec(chart)?.[1] ?? '';
    // on a chart 460 wide, the value (about 20 characters) keeps its room at the right
    expect(shown.length).toBeLessThan(30);
  });
});

describe("a name's direction controls", () => {
  it('are shown as their code points, so that the text after the name keeps its order', () => {
    const name = 'ab\u202Ecd\u2067ef\u2069';
    expect(escapeHtml(name)).toBe('ab[U+202E]cd[U+2067]ef[U+2069]');
    expect(String(markup`<p>${name}: AUC 0.859</p>`)).toBe('<p>ab[U+202E]cd[U+2067]ef[U+2069]: AUC 0.859</p>');
    // the letters of right-to-left scripts are kept as they are
    expect(escapeHtml('שלום')).toBe('שלום');
  });
});
