/**
 * Charts drawn on the server as inline SVG, for any plot of the plot registry: horizontal bars with intervals, lines
 * with bands, step curves, scatter plots (all on one x-y frame), box plots and a heat-map table. Each returns the SVG
 * with every mark classed `mark` and titled with its values, and a table of the same values for people who cannot
 * see the chart (the report puts it under the chart). Every text goes through `markup`, so names from users' files
 * stay text. They are drawn on chart-frame.ts's axes, scales and frame.
 */
import {
  Axis,
  c,
  ChartParts,
  colorOf,
  dataTable,
  fitText,
  labelLines,
  legend,
  linear,
  niceDomain,
  PALETTE,
  Scale,
  svgFrame,
  tick,
  tickLabel,
  ticks,
  valueText,
} from './chart-frame';
import { Content, markup, Markup } from './html';
import { pct } from './format';

// ---- bars with intervals ------------------------------------------------------------------------------------

export interface Bar {
  label: string;
  value: number;
  cis?: readonly [number, number];
}

export interface BarChartOptions {
  title: string;
  bars: readonly Bar[];
  axis: Axis;
  /** where the bars start (default 0) */
  base?: number;
  /** a vertical reference line (0 for a difference, 1 for the whole) */
  reference?: number;
  /** heading of the label column in the table */
  labelHeader: string;
  color?: string;
}

/** Width of the bar and box charts: at 1:1 on a desktop, and still ~10 px text when a phone scales it to its width. */
const ROWS_WIDTH = 460;
/** Height of one bar or box row: its label and value on a line, the mark under them. */
const ROW = 40;

/** The label and value line above a bar or box, the label cut to leave room for the value. */
function rowText(y: number, label: string, value: Content, valueChars: number): Markup {
  const room = Math.max(90, ROWS_WIDTH - 16 - 8 - valueChars * 7.3);
  return markup`<text class="label" x="8" y="${y + 14}">${fitText(label, room)}</text
    ><text class="value" x="${ROWS_WIDTH - 8}" y="${y + 14}" text-anchor="end">${value}</text>`;
}

/** Characters of a bold axis label that fit across the bar and box charts; a longer one wraps. */
const AXIS_LABEL_CHARS = Math.floor((ROWS_WIDTH - 16) / 7.4);
const AXIS_LINE = 15;

/** Height under the rows of a bar or box chart: the tick labels and the axis label's lines. */
function rowsAxisHeight(axis: Axis): number {
  return 44 + (labelLines(axis.label, AXIS_LABEL_CHARS).length - 1) * AXIS_LINE;
}

/** Grid lines and tick labels of a horizontal value axis under rows, and its label (wrapped when long). */
function rowsAxis(x: Scale, domain: [number, number], top: number, bottom: number, axis: Axis): Markup {
  const lines = labelLines(axis.label, AXIS_LABEL_CHARS);
  return markup`${ticks(...domain).map((t) =>
    tick([x(t), top, x(t), bottom], [x(t), bottom + 14, 'middle'], tickLabel(t, axis.percent)),
  )}<text class="axis-label" x="${ROWS_WIDTH / 2}" y="${bottom + 34}" text-anchor="middle">${lines.map(
    (line, i) => markup`<tspan x="${ROWS_WIDTH / 2}" dy="${i ? AXIS_LINE : 0}">${line}</tspan>`,
  )}</text>`;
}

/** Horizontal bars from the base (0) to each value, the 95% interval as a whisker; each bar's label and value above it. */
export function barChart(o: BarChartOptions): ChartParts {
  const top = 4;
  const plotH = Math.max(1, o.bars.length) * ROW;
  const height = top + plotH + rowsAxisHeight(o.axis);
  const base = o.base ?? 0;
  const values = o.bars.flatMap((b) => [b.value, ...(b.cis ?? [])]);
  const domain = o.axis.domain ?? niceDomain(values, [base, ...(o.reference !== undefined ? [o.reference] : [])]);
  const x = linear(domain, [20, ROWS_WIDTH - 20]);
  const color = o.color ?? PALETTE[0];
  const texts = o.bars.map((b) => `${valueText(b.value, o.axis.percent)}${b.cis ? ` (${intervalText(b.cis, o.axis.percent)})` : ''}`);
  const valueChars = Math.max(0, ...texts.map((t) => t.length));
  const bars = o.bars.map((b, i) => {
    const y = top + i * ROW;
    const x0 = x(Math.max(domain[0], Math.min(base, domain[1])));
    const x1 = x(b.value);
    const mid = y + 27;
    const whisker = b.cis
      ? markup`<path
          class="mark whisker"
          d="M${c(x(b.cis[0]))} ${mid}H${c(x(b.cis[1]))}M${c(x(b.cis[0]))} ${mid - 5}V${mid + 5}M${c(x(b.cis[1]))} ${mid - 5}V${mid + 5}"
        />`
      : '';
    const value = markup`${valueText(b.value, o.axis.percent)}${b.cis ? markup`<tspan class="cis"> (${intervalText(b.cis, o.axis.percent)})</tspan>` : ''}`;
    return markup`<g
      ><title>${b.label}: ${texts[i]}${b.cis ? ' (95% interval)' : ''}</title>${rowText(y, b.label, value, valueChars)}<rect
        class="mark bar"
        x="${c(Math.min(x0, x1))}"
        y="${y + 20}"
        width="${c(Math.max(0.5, Math.abs(x1 - x0)))}"
        height="14"
        fill="${color}"
      />${whisker}</g
    >`;
  });
  const ref =
    o.reference !== undefined
      ? markup`<line class="reference" x1="${c(x(o.reference))}" x2="${c(x(o.reference))}" y1="${top + 18}" y2="${top + plotH}" />`
      : '';
  const svg = svgFrame(ROWS_WIDTH, height, o.title, markup`${rowsAxis(x, domain, top + 18, top + plotH, o.axis)}${ref}${bars}`);
  const withCis = o.bars.some((b) => b.cis);
  const table = dataTable(
    o.title,
    [o.labelHeader, o.axis.label, ...(withCis ? ['95% interval'] : [])],
    o.bars.map((b) => [
      b.label,
      valueText(b.value, o.axis.percent),
      ...(withCis ? [b.cis ? intervalText(b.cis, o.axis.percent) : 'n/a'] : []),
    ]),
  );
  return { svg, table, width: ROWS_WIDTH };
}

const intervalText = (cis: readonly [number, number], percent?: boolean): string =>
  `${valueText(cis[0], percent)}\u2013${valueText(cis[1], percent)}`;

// ---- lines, steps, bands and scatter on one x-y frame ------------------------------------------------------------

export interface XyPoint {
  x: number;
  y: number;
  /** a vertical 95% interval drawn as a whisker */
  cis?: readonly [number, number];
  /** what the point's title says (default: x and y) */
  title?: string;
  /** a short text drawn beside the point (a bin's sample count) */
  label?: string;
}

export interface Series {
  name: string;
  points: readonly XyPoint[];
  /** a 95% band: the lower and upper value at each x (drawn as a shaded area; a missing interval breaks it) */
  band?: readonly { x: number; cis?: readonly [number, number] }[];
  color?: string;
  /** joined by a line (default), or drawn as steps that hold each value until the next x (survival curves) */
  shape?: 'line' | 'step' | 'points';
  /** mark each point with a dot (with its whisker when it has an interval) */
  markers?: boolean;
  dashed?: boolean;
}

export interface XyChartOptions {
  title: string;
  series: readonly Series[];
  x: Axis;
  y: Axis;
  /** the identity line y = x (ROC, calibration, predicted vs actual) */
  diagonal?: boolean;
  /** straight lines y = intercept + slope x drawn across the frame */
  lines?: readonly { name: string; intercept: number; slope: number; color?: string; dashed?: boolean }[];
  /** table of values: its headers and rows (the chart function cannot know what matters in each plot) */
  table: { headers: readonly string[]; rows: readonly (readonly Content[])[] };
  /** square frame (both axes the same units) */
  square?: boolean;
}

/** Path of a polyline or of steps through points sorted by x. */
function pathOf(points: readonly { x: number; y: number }[], sx: Scale, sy: Scale, step: boolean): string {
  let d = '';
  points.forEach((p, i) => {
    if (i === 0) d += `M${c(sx(p.x))} ${c(sy(p.y))}`;
    else if (step) d += `H${c(sx(p.x))}V${c(sy(p.y))}`;
    else d += `L${c(sx(p.x))} ${c(sy(p.y))}`;
  });
  return d;
}

/** The shaded areas of a band, one per run of points with an interval (a point without one breaks the band). */
function bandPaths(band: NonNullable<Series['band']>, sx: Scale, sy: Scale, step: boolean): string[] {
  const runs: { x: number; lo: number; hi: number }[][] = [];
  let run: { x: number; lo: number; hi: number }[] = [];
  for (const b of band) {
    if (b.cis && Number.isFinite(b.cis[0]) && Number.isFinite(b.cis[1])) run.push({ x: b.x, lo: b.cis[0], hi: b.cis[1] });
    else if (run.length) {
      runs.push(run);
      run = [];
    }
  }
  if (run.length) runs.push(run);
  return runs.map((r) => {
    const upper = pathOf(
      r.map((p) => ({ x: p.x, y: p.hi })),
      sx,
      sy,
      step,
    );
    // back along the lower edge, from the last point to the first (as steps: each value held until the next x)
    const last = r[r.length - 1];
    let lower = `L${c(sx(last.x))} ${c(sy(last.lo))}`;
    for (let i = r.length - 2; i >= 0; i--) {
      lower += step ? `V${c(sy(r[i].lo))}H${c(sx(r[i].x))}` : `L${c(sx(r[i].x))} ${c(sy(r[i].lo))}`;
    }
    return `${upper}${lower}Z`;
  });
}

/** Lines, steps or points (with bands and whiskers) of several series on one pair of axes. */
export function xyChart(o: XyChartOptions): ChartParts {
  const width = o.square ? 440 : 500;
  const height = o.square ? 420 : 330;
  const m = { left: 56, right: 14, top: 12, bottom: 46 };
  const xs = o.series.flatMap((s) => [...s.points.map((p) => p.x), ...(s.band ?? []).map((b) => b.x)]);
  const ys = o.series.flatMap((s) => [
    ...s.points.flatMap((p) => [p.y, ...(p.cis ?? [])]),
    ...(s.band ?? []).flatMap((b) => (b.cis ? [...b.cis] : [])),
  ]);
  const xDomain = o.x.domain ?? niceDomain(xs);
  const yDomain = o.y.domain ?? niceDomain(ys);
  const sx = linear(xDomain, [m.left, width - m.right]);
  const sy = linear(yDomain, [height - m.bottom, m.top]);
  const grid = markup`${ticks(...xDomain).map((t) =>
    tick([sx(t), m.top, sx(t), height - m.bottom], [sx(t), height - m.bottom + 15, 'middle'], tickLabel(t, o.x.percent)),
  )}${ticks(...yDomain).map((t) =>
    tick([m.left, sy(t), width - m.right, sy(t)], [m.left - 6, sy(t) + 4, 'end'], tickLabel(t, o.y.percent)),
  )}<rect class="frame" x="${m.left}" y="${m.top}" width="${width - m.left - m.right}" height="${height - m.top - m.bottom}" />`;
  const lo = Math.max(xDomain[0], yDomain[0]);
  const hi = Math.min(xDomain[1], yDomain[1]);
  const diagonal =
    o.diagonal && hi > lo ? markup`<line class="reference" x1="${c(sx(lo))}" y1="${c(sy(lo))}" x2="${c(sx(hi))}" y2="${c(sy(hi))}" />` : '';
  const clip = (v: number, [a, b]: [number, number]) => Math.max(a, Math.min(b, v));
  const straight = (o.lines ?? []).map((l, i) => {
    // drawn between the frame's left and right edges, cut to its height
    const x0 = xDomain[0];
    const x1 = xDomain[1];
    const y0 = clip(l.intercept + l.slope * x0, yDomain);
    const y1 = clip(l.intercept + l.slope * x1, yDomain);
    return markup`<line
      class="mark fit"
      x1="${c(sx(x0))}"
      y1="${c(sy(y0))}"
      x2="${c(sx(x1))}"
      y2="${c(sy(y1))}"
      stroke="${l.color ?? colorOf(o.series.length + i)}"
      ${l.dashed ? markup` stroke-dasharray="6 4"` : ''}
      ><title>${l.name}</title></line
    >`;
  });
  const series = o.series.map((s, i) => {
    const color = s.color ?? colorOf(i);
    const shape = s.shape ?? 'line';
    const sorted = shape === 'points' ? s.points : [...s.points].sort((a, b) => a.x - b.x);
    const band = s.band?.length
      ? bandPaths(s.band, sx, sy, shape === 'step').map((d) => markup`<path class="mark band" d="${d}" fill="${color}" />`)
      : [];
    const line =
      shape !== 'points' && sorted.length > 0
        ? markup`<path
            class="mark line"
            d="${pathOf(sorted, sx, sy, shape === 'step')}"
            stroke="${color}"
            ${s.dashed ? markup` stroke-dasharray="6 4"` : ''}
            ><title>${s.name}</title></path
          >`
        : '';
    const dots =
      s.markers || shape === 'points'
        ? sorted.map(
            (p) =>
              markup`${p.cis ? markup`<path class="mark errorbar" d="M${c(sx(p.x))} ${c(sy(p.cis[0]))}V${c(sy(p.cis[1]))}" stroke="${color}" />` : ''}<circle
                  class="mark ${shape === 'points' ? 'point' : 'dot'}"
                  cx="${c(sx(p.x))}"
                  cy="${c(sy(p.y))}"
                  r="${shape === 'points' ? 2.6 : 3.5}"
                  fill="${color}"
                  ><title>
                    ${p.title ?? `${s.name}: ${o.x.label} ${valueText(p.x, o.x.percent)}, ${o.y.label} ${valueText(p.y, o.y.percent)}`}
                  </title></circle
                >${p.label ? markup`<text class="point-label" x="${c(sx(p.x) + 6)}" y="${c(sy(p.y) - 6)}">${p.label}</text>` : ''}`,
          )
        : [];
    return markup`<g>${band}${line}${dots}</g>`;
  });
  const axes = markup`<text class="axis-label" x="${c((m.left + width - m.right) / 2)}" y="${height - 8}" text-anchor="middle"
      >${o.x.label}</text
    ><text class="axis-label" transform="translate(14 ${c((m.top + height - m.bottom) / 2)}) rotate(-90)" text-anchor="middle"
      >${o.y.label}</text
    >`;
  const svg = svgFrame(width, height, o.title, markup`${grid}${diagonal}${series}${straight}${axes}`);
  const items = [
    ...o.series.map((s, i) => ({ name: s.name, color: s.color ?? colorOf(i), dashed: s.dashed, dot: s.shape === 'points' })),
    ...(o.lines ?? []).map((l, i) => ({ name: l.name, color: l.color ?? colorOf(o.series.length + i), dashed: l.dashed })),
    ...(o.diagonal ? [{ name: 'y = x', color: '#999999', dashed: true }] : []),
  ];
  return { svg, table: dataTable(o.title, o.table.headers, o.table.rows), legend: legend(items), width };
}

/** Lines through points, each series with its 95% band (ROC curves, calibration). */
export const lineChart = (o: XyChartOptions): ChartParts => xyChart(o);

/** Step curves, each value held until the next time, with their bands (Kaplan-Meier curves). */
export const stepChart = (o: XyChartOptions): ChartParts =>
  xyChart({ ...o, series: o.series.map((s) => ({ ...s, shape: 'step' as const })) });

/** Points (and straight lines through them: identity, least squares). */
export const scatterChart = (o: XyChartOptions): ChartParts =>
  xyChart({ ...o, series: o.series.map((s) => ({ ...s, shape: 'points' as const })) });

// ---- boxes ---------------------------------------------------------------------------------------------------

export interface Box {
  label: string;
  /** a heading row above this box (e.g. the true class of a group of boxes) */
  group?: string;
  min: number;
  q1: number;
  median: number;
  q3: number;
  max: number;
  mean: number;
  color?: string;
}

/** Horizontal box plots: the box from the first to the third quartile, the median, whiskers to min and max, the mean as a dot. */
export function boxChart(o: { title: string; boxes: readonly Box[]; axis: Axis; labelHeader: string }): ChartParts {
  const top = 4;
  let y = top;
  const rows: Markup[] = [];
  const domain = o.axis.domain ?? niceDomain(o.boxes.flatMap((b) => [b.min, b.max]));
  const x = linear(domain, [20, ROWS_WIDTH - 20]);
  const f = (v: number) => valueText(v, o.axis.percent);
  o.boxes.forEach((b, i) => {
    if (b.group !== undefined && (i === 0 || o.boxes[i - 1].group !== b.group)) {
      rows.push(markup`<text class="group" x="8" y="${y + 18}">${fitText(b.group, ROWS_WIDTH - 16)}</text>`);
      y += 26;
    }
    const mid = y + 27;
    const color = b.color ?? colorOf(i);
    const text = `${b.group ? `${b.group}, ` : ''}${b.label}: median ${f(b.median)}, quartiles ${f(b.q1)}\u2013${f(b.q3)}, range ${f(b.min)}\u2013${f(b.max)}, mean ${f(b.mean)}`;
    rows.push(
      markup`<g
        ><title>${text}</title>${rowText(y, b.label, `median ${f(b.median)}`, 13)}<path
          class="mark whisker"
          d="M${c(x(b.min))} ${mid}H${c(x(b.q1))}M${c(x(b.q3))} ${mid}H${c(x(b.max))}M${c(x(b.min))} ${mid - 5}V${mid + 5}M${c(x(b.max))} ${mid - 5}V${mid + 5}" /><rect
          class="mark box"
          x="${c(x(b.q1))}"
          y="${y + 20}"
          width="${c(Math.max(1, x(b.q3) - x(b.q1)))}"
          height="14"
          fill="${color}" /><path class="mark median" d="M${c(x(b.median))} ${y + 18}V${y + 36}" /><circle
          class="mark mean"
          cx="${c(x(b.mean))}"
          cy="${mid}"
          r="2.8"
      /></g>`,
    );
    y += ROW;
  });
  const height = y + rowsAxisHeight(o.axis);
  const svg = svgFrame(ROWS_WIDTH, height, o.title, markup`${rowsAxis(x, domain, top + 18, y, o.axis)}${rows}`);
  const table = dataTable(
    o.title,
    [o.labelHeader, 'minimum', 'first quartile', 'median', 'third quartile', 'maximum', 'mean'],
    o.boxes.map((b) => [
      b.group !== undefined ? `${b.group}: ${b.label}` : b.label,
      f(b.min),
      f(b.q1),
      f(b.median),
      f(b.q3),
      f(b.max),
      f(b.mean),
    ]),
  );
  return { svg, table, width: ROWS_WIDTH };
}

// ---- heat map ------------------------------------------------------------------------------------------------

/** A matrix of counts as shaded cells (shade: the cell's share of its row), rows and columns labelled. */
export function heatMap(o: {
  title: string;
  rowLabels: readonly string[];
  columnLabels: readonly string[];
  counts: readonly (readonly number[])[];
  rowHeader: string;
  columnHeader: string;
}): ChartParts {
  const K = o.columnLabels.length;
  const labelW = 150;
  const headH = 64;
  const cell = Math.max(22, Math.min(64, Math.floor(360 / Math.max(1, K))));
  // room on the right for the last column's slanted label
  const width = labelW + K * cell + 70;
  const height = headH + o.rowLabels.length * cell + 10;
  const cells = o.counts.map((r, i) => {
    const total = r.reduce((s, v) => s + v, 0);
    return r.map((v, j) => {
      const share = total > 0 ? v / total : 0;
      const x = labelW + j * cell;
      const y = headH + i * cell;
      const text = `${o.rowHeader} ${o.rowLabels[i]}, ${o.columnHeader} ${o.columnLabels[j]}: ${v} (${pct(share)} of the row)`;
      return markup`<g
        ><title>${text}</title
        ><rect
          class="mark cell"
          x="${x}"
          y="${y}"
          width="${cell - 2}"
          height="${cell - 2}"
          fill="${i === j ? PALETTE[0] : PALETTE[1]}"
          fill-opacity="${c(0.08 + 0.85 * share)}"
        /><text class="${share > 0.5 ? 'count dark' : 'count'}" x="${x + (cell - 2) / 2}" y="${y + cell / 2 + 3}" text-anchor="middle"
          >${v}</text
        ></g
      >`;
    });
  });
  const rowLabels = o.rowLabels.map(
    (l, i) =>
      markup`<text class="label" x="${labelW - 6}" y="${headH + i * cell + cell / 2 + 3}" text-anchor="end"
        >${fitText(l, labelW - 10)}<title>${l}</title></text
      >`,
  );
  const colLabels = o.columnLabels.map(
    (l, j) =>
      markup`<text class="label" transform="translate(${labelW + j * cell + cell / 2 + 3} ${headH - 6}) rotate(-40)"
        >${fitText(l, 100)}<title>${l}</title></text
      >`,
  );
  const svg = svgFrame(
    width,
    height,
    o.title,
    markup`<text class="axis-label" x="4" y="14">${o.columnHeader} →</text
      ><text class="axis-label" x="4" y="${headH - 6}">${o.rowHeader} ↓</text>${colLabels}${rowLabels}${cells}`,
  );
  const table = dataTable(
    o.title,
    [`${o.rowHeader} \\ ${o.columnHeader}`, ...o.columnLabels],
    o.counts.map((r, i) => [o.rowLabels[i], ...r.map((v) => String(v))]),
  );
  return { svg, table, width };
}
