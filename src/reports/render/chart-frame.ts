/**
 * What every chart of the report is drawn in and with: the palette (Okabe and Ito's, told apart by people with
 * colour-vision deficiencies), axes with round ticks, linear scales, grid lines, the `<svg>` element, legends, the
 * tables of values and the figure that holds a chart. charts.ts draws the kinds of chart on them.
 */
import { Content, markup, Markup } from './html';
import { num, pct } from './format';

export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#7F7F7F', '#000000'];

export const colorOf = (i: number): string => PALETTE[i % PALETTE.length];

/** What a chart function returns: the drawing and the table of its values. */
export interface ChartParts {
  svg: Markup;
  table: Markup;
  /** the drawing's width in CSS pixels: one of up to HALF_COLUMN sits beside another on a wide screen */
  width?: number;
  /** the series' names beside their colours, under the chart (HTML text stays readable on a phone) */
  legend?: Markup;
}

export interface Axis {
  label: string;
  /** the values' range; by default that of the data, widened to round ticks */
  domain?: [number, number];
  /** values are fractions shown as percentages */
  percent?: boolean;
}

/** Coordinates to one decimal: enough on a 500-unit canvas, and half the bytes. */
export const c = (v: number): string => (Math.round(v * 10) / 10).toString();

/** Round tick values (1, 2 or 5 times a power of ten) covering [lo, hi]. */
export function ticks(lo: number, hi: number, target = 5): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const r = raw / mag;
  const step = (r < 1.5 ? 1 : r < 3 ? 2 : r < 7 ? 5 : 10) * mag;
  const out: number[] = [];
  for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k++) out.push(Number((k * step).toPrecision(12)));
  return out;
}

/** A domain that holds every value, widened to the round ticks around it (a flat one gets some room). */
export function niceDomain(values: readonly number[], include: readonly number[] = []): [number, number] {
  const finite = [...values, ...include].filter(Number.isFinite);
  if (finite.length === 0) return [0, 1];
  let lo = Math.min(...finite);
  let hi = Math.max(...finite);
  if (hi === lo) {
    const pad = Math.abs(lo) > 0 ? Math.abs(lo) * 0.1 : 1;
    lo -= pad;
    hi += pad;
  }
  const t = ticks(lo, hi);
  const step = t.length > 1 ? t[1] - t[0] : hi - lo;
  const round = (v: number) => Number(v.toPrecision(12));
  return [Math.min(lo, round(Math.floor(lo / step + 1e-9) * step)), Math.max(hi, round(Math.ceil(hi / step - 1e-9) * step))];
}

export function tickLabel(v: number, percent?: boolean): string {
  if (percent) return `${Number((v * 100).toPrecision(6))}%`;
  return num(v)
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');
}

export const valueText = (v: number, percent?: boolean): string => (percent ? pct(v) : num(v));

export type Scale = (v: number) => number;
export const linear =
  ([d0, d1]: [number, number], [r0, r1]: [number, number]): Scale =>
  (v) =>
    r0 + ((v - d0) / (d1 - d0 || 1)) * (r1 - r0);

/** A grid line across the frame and its tick label. */
export function tick([x1, y1, x2, y2]: number[], [tx, ty, anchor]: [number, number, 'middle' | 'end'], label: string): Markup {
  return markup`<line class="grid" x1="${c(x1)}" y1="${c(y1)}" x2="${c(x2)}" y2="${c(y2)}"/><text class="tick" x="${c(tx)}" y="${c(ty)}" text-anchor="${anchor}">${label}</text>`;
}

/**
 * The width of a character in ems of the charts' sans-serif face, estimated on the wide side so that text cut to a
 * width never runs past it: East Asian wide and full-width characters and emoji 1, capitals (W and M widest) up to
 * 0.95, narrow letters and punctuation 0.32, the rest 0.6. A name without spaces of 200 capitals or ideographs was cut by
 * its count of characters, and drawn over the values beside it (issue 41, finding 8).
 */
function charEms(code: number): number {
  if (
    code >= 0x1100 &&
    (code <= 0x115f ||
      (code >= 0x2e80 && code <= 0xa4cf) ||
      (code >= 0xac00 && code <= 0xd7a3) ||
      (code >= 0xf900 && code <= 0xfaff) ||
      (code >= 0xfe30 && code <= 0xfe4f) ||
      (code >= 0xff00 && code <= 0xff60) ||
      (code >= 0xffe0 && code <= 0xffe6) ||
      code >= 0x1f000)
  )
    return 1;
  if (code === 0x57 || code === 0x4d || code === 0x6d || code === 0x77 || code === 0x40) return 0.95; // W M m w @
  if (code >= 0x41 && code <= 0x5a) return 0.75;
  if (" iljtfr.,:;'!|()[]".includes(String.fromCodePoint(code))) return 0.32;
  return 0.6;
}

/** `label` cut (with an ellipsis) to what fits in `width` pixels of text of `fontPx` (estimated by charEms); the full one is in the mark's title and the table. */
export function fitText(label: string, width: number, fontPx = 13): string {
  const room = width / fontPx;
  const chars = [...label];
  const ems = chars.map((ch) => charEms(ch.codePointAt(0) ?? 0));
  if (ems.reduce((a, b) => a + b, 0) <= room) return label;
  // the longest start that leaves room for the ellipsis (1 em, on the wide side)
  let keep = 0;
  for (let used = 1; keep < chars.length && used + ems[keep] <= room; keep++) used += ems[keep];
  return `${chars.slice(0, keep).join('')}\u2026`;
}

/** `label` in lines of at most `max` characters, broken at spaces (a word longer than a line keeps a line of its own). */
export function labelLines(label: string, max: number): string[] {
  const lines: string[] = [];
  for (const word of label.split(/\s+/).filter((w) => w !== '')) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + 1 + word.length <= max) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  return lines.length ? lines : [''];
}

/** The `<svg>` element of a chart: its size in CSS pixels (the stylesheet narrows it to a small screen), titled (its accessible name). */
export function svgFrame(width: number, height: number, title: string, body: Content): Markup {
  return markup`<svg
    class="chart"
    width="${width}"
    height="${height}"
    viewBox="0 0 ${width} ${height}"
    role="img"
  >
    <title>${title}</title>
    ${body}
  </svg>`;
}

/** A table in its horizontal scroller: a caption, a header row, and body rows already made (`<tr>` markup). */
export function table(className: string, caption: Content, headers: readonly Content[], rows: Content): Markup {
  return markup`<div class="table-wrap"><table class="${className}"><caption>${caption}</caption><thead><tr>${headers.map(
    (h) => markup`<th scope="col">${h}</th>`,
  )}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** A table of values: a header row and data rows (cells are text or markup; the first heads its row). */
export function dataTable(caption: string, headers: readonly string[], rows: readonly (readonly Content[])[]): Markup {
  return table(
    'values',
    caption,
    headers,
    rows.map((r) => markup`<tr>${r.map((cell, i) => (i === 0 ? markup`<th scope="row">${cell}</th>` : markup`<td>${cell}</td>`))}</tr>`),
  );
}

/** A legend: a swatch of each series' colour beside its name. */
export function legend(items: readonly { name: Content; color: string; dashed?: boolean; dot?: boolean }[]): Markup {
  return markup`<ul class="legend">${items.map(
    (i) =>
      markup`<li><svg class="swatch" viewBox="0 0 16 10" aria-hidden="true">${
        i.dot
          ? markup`<circle cx="8" cy="5" r="4" fill="${i.color}"/>`
          : markup`<line x1="0" y1="5" x2="16" y2="5" stroke="${i.color}" stroke-width="3"${i.dashed ? markup` stroke-dasharray="4 3"` : ''}/>`
      }</svg>${i.name}</li>`,
  )}</ul>`;
}

/**
 * Charts at most this wide go two to a row on a screen wide enough for both at their size (styles.ts): one alone
 * took half the report's column.
 */
export const HALF_COLUMN = 500;

/** A chart in its figure: heading, the drawing, its legend, a caption in words, and the values under a disclosure. */
export function figure(o: { title: string; parts: ChartParts; caption?: Content; attributes?: Markup; extra?: Content }): Markup {
  // a chart with a table of its own beside it (the confusion matrix's per class) takes the whole row too
  const wide = (o.parts.width ?? Infinity) > HALF_COLUMN || o.extra !== undefined;
  return markup`<figure class="plot" ${o.attributes ?? ''}${wide ? markup` data-wide=""` : ''}>
    <h4>${o.title}</h4>
    <div class="chart-wrap">${o.parts.svg}</div>
    ${o.parts.legend ?? ''}${o.caption ? markup`<figcaption>${o.caption}</figcaption>` : ''}${o.extra ?? ''}
    <details>
      <summary>Values of the chart</summary>
      ${o.parts.table}
    </details>
  </figure>`;
}

/** At most `max` items, evenly spaced, the first and the last kept (long curves drawn at a few hundred points). */
export function thinEvenly<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  return Array.from({ length: max }, (_, j) => items[Math.round((j * (items.length - 1)) / (max - 1))]);
}
