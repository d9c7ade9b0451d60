import { createHash } from 'node:crypto';

/**
 * The report's one stylesheet, inline: screen (a column that narrows to a phone's width), and print (no navigation
 * or value tables, each model from a new page, figures kept whole). Charts are styled by class: the SVG carries only
 * presentation attributes, so the Content-Security-Policy can allow this stylesheet alone, by its hash.
 */
export const REPORT_CSS = `
:root { --ink: #1b1f24; --muted: #56606b; --line: #d8dee4; --accent: #0072b2; --soft: #f4f6f8; --good: #009e73; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: #fff; }
main { max-width: 62rem; margin: 0 auto; padding: 1rem 1.25rem 3rem; }
header.top { border-bottom: 3px solid var(--accent); padding-bottom: .5rem; margin-bottom: 1rem; }
.kicker { text-transform: uppercase; letter-spacing: .06em; font-size: .78rem; color: var(--muted); margin: 0; }
h1 { font-size: 1.7rem; line-height: 1.2; margin: .2rem 0; overflow-wrap: anywhere; }
h2 { font-size: 1.35rem; margin: 2.2rem 0 .6rem; padding-bottom: .2rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.1rem; margin: 1.6rem 0 .5rem; }
h4 { font-size: 1rem; margin: 0 0 .4rem; }
p, li, dd, figcaption, h1, h2, h3, h4 { overflow-wrap: anywhere; }
td, th { overflow-wrap: anywhere; }
thead th { min-width: 5rem; }
.subtitle { color: var(--muted); margin: .2rem 0 0; }
nav.toc ol { display: flex; flex-wrap: wrap; gap: .2rem 1.2rem; padding: 0; margin: .5rem 0 0; list-style: none; font-size: .92rem; }
a { color: var(--accent); }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(20rem, 100%), 1fr)); gap: .75rem; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: .7rem .9rem; background: var(--soft); }
.card h3 { margin: 0 0 .3rem; font-size: .8rem; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); }
.card .big { font-size: 1.45rem; font-weight: 650; line-height: 1.25; margin: 0; }
.card p { margin: .25rem 0 0; }
.lead { font-size: 1.05rem; }
.note { color: var(--muted); font-size: .9rem; }
.badge { display: inline-block; font-size: .72rem; font-weight: 600; padding: .05rem .45rem; border-radius: .7rem; background: var(--accent); color: #fff; vertical-align: middle; }
.badge.alt { background: var(--good); }
dl.facts { display: grid; grid-template-columns: minmax(8rem, 13rem) 1fr; gap: .25rem 1rem; margin: .5rem 0; }
dl.facts dt { font-weight: 600; color: var(--muted); }
dl.facts dd { margin: 0; }
.table-wrap { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; margin: .4rem 0; }
caption { text-align: left; font-weight: 600; padding: .2rem 0 .3rem; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
thead th { border-bottom: 2px solid var(--line); font-size: .82rem; color: var(--muted); }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.chosen { background: #eef6fb; }
ul.features { margin: .3rem 0; padding-left: 1.2rem; }
figure.plot { margin: 1rem 0 1.4rem; padding: .8rem; border: 1px solid var(--line); border-radius: 8px; }
@media screen and (min-width: 66rem) {
  figure.plot:not([data-wide]) { display: inline-block; vertical-align: top; box-sizing: border-box; width: calc(50% - .6rem); margin-right: .5rem; }
}
.chart-wrap { overflow-x: auto; }
svg.chart { display: block; max-width: 100%; height: auto; }
svg.chart text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; font-size: 13px; fill: var(--ink); }
svg.chart .tick { font-size: 11.5px; fill: var(--muted); }
svg.chart .point-label { font-size: 10.5px; fill: var(--muted); }
svg.chart .axis-label, svg.chart .group { font-weight: 600; }
svg.chart .cis { fill: var(--muted); }
svg.chart .count { font-weight: 600; }
svg.chart .count.dark { fill: #fff; }
svg .grid { stroke: #e7eaee; stroke-width: 1; }
svg .frame { fill: none; stroke: #a3acb5; }
svg .reference { stroke: #8a949e; stroke-dasharray: 4 3; }
svg .whisker { stroke: var(--ink); stroke-width: 1.4; fill: none; }
svg .errorbar { stroke-width: 1.4; opacity: .6; fill: none; }
svg .line { fill: none; stroke-width: 2.2; }
svg .band { fill-opacity: .16; stroke: none; }
svg .fit { stroke-width: 1.8; }
svg .box { fill-opacity: .55; stroke: var(--ink); stroke-width: 1; }
svg .median { stroke: var(--ink); stroke-width: 2; }
svg .mean { fill: #fff; stroke: var(--ink); stroke-width: 1.2; }
svg .point { fill-opacity: .5; }
svg .strip-range { stroke: var(--accent); stroke-width: 4; stroke-linecap: round; opacity: .35; }
svg .strip-axis { stroke: #c4cbd2; stroke-width: 1; }
svg .strip-point { fill: var(--accent); }
svg.strip { width: 7.5rem; height: .9rem; vertical-align: middle; }
ul.legend { list-style: none; padding: 0; margin: .4rem 0; display: flex; flex-wrap: wrap; gap: .2rem 1.1rem; font-size: .88rem; }
svg.swatch { width: 1.3rem; height: .7rem; vertical-align: middle; margin-right: .35rem; }
figcaption { font-size: .9rem; color: var(--muted); margin-top: .4rem; }
details { margin-top: .4rem; }
summary { cursor: pointer; color: var(--accent); font-size: .9rem; }
pre { background: #f6f8fa; border: 1px solid var(--line); border-radius: 6px; padding: .7rem; overflow-x: auto; font-size: .8rem; line-height: 1.45; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
footer { margin-top: 3rem; border-top: 1px solid var(--line); padding-top: .6rem; color: var(--muted); font-size: .85rem; }
@media (max-width: 40rem) {
  body { font-size: 14px; }
  main { padding: .7rem .7rem 2rem; }
  h1 { font-size: 1.35rem; }
  h2 { font-size: 1.2rem; }
  dl.facts { grid-template-columns: 1fr; gap: 0; }
  dl.facts dd { margin-bottom: .4rem; }
  th, td { padding: .25rem .3rem; }
  figure.plot { padding: .5rem; margin-left: -.2rem; margin-right: -.2rem; }
}
@media print {
  @page { margin: 14mm 12mm; }
  body { font-size: 10pt; }
  main { max-width: none; padding: 0; }
  nav.toc, details, summary { display: none; }
  a { color: inherit; text-decoration: none; }
  section.model { break-before: page; }
  h2, h3, h4 { break-after: avoid; }
  figure.plot, .card, pre, dl.facts { break-inside: avoid; }
  .table-wrap, .chart-wrap { overflow: visible; }
  tr.chosen { background: none; font-weight: 600; }
}
`.trim();

/** The Content-Security-Policy source of the stylesheet: its SHA-256, so no other style can apply. */
export const REPORT_CSS_HASH = `'sha256-${createHash('sha256').update(REPORT_CSS, 'utf8').digest('base64')}'`;

/**
 * What the report may load: nothing but its own stylesheet (and inline SVG, which is part of the document). No
 * script, image, font, frame, form target or base URL from anywhere. The header adds frame-ancestors, which a
 * meta element cannot carry.
 */
export const REPORT_CSP = `default-src 'none'; style-src ${REPORT_CSS_HASH}; img-src data:; base-uri 'none'; form-action 'none'`;
export const REPORT_CSP_HEADER = `${REPORT_CSP}; frame-ancestors 'none'`;
