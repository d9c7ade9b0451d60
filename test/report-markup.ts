import type { Markup } from '../src/reports/render/html';

/** What the report's tests (src/reports/render/*.spec.ts) check its markup with. */

/** Names as users' files can hold them: markup, quotes, an event handler. */
export const SCRIPT = '<script>alert("x")</script>';
export const QUOTES = `o'neil "quoted"`;
export const ONERROR = '<img src=x onerror=alert(1)>';
export const HOSTILE = [SCRIPT, QUOTES, ONERROR];

/** Every tag of a page that could run code or load something: such elements, event handlers, sources, outside links. */
export function activeParts(page: string): string[] {
  const out: string[] = [];
  for (const [tag] of page.matchAll(/<[A-Za-z/][^>]*>/g)) {
    // attribute values are text: what matters is the tag's own names
    const bare = tag.replace(/"[^"]*"/g, '""');
    const name = /^<\/?([A-Za-z]+)/.exec(bare)?.[1].toLowerCase() ?? '';
    const hrefs = [...tag.matchAll(/\shref="([^"]*)"/g)].map((m) => m[1]);
    if (
      ['script', 'img', 'iframe', 'object', 'embed', 'base', 'form', 'frame'].includes(name) ||
      /\s(on\w+|src|srcset|action|formaction|xlink:href)\s*=/i.test(bare) ||
      hrefs.some((h) => !h.startsWith('#') && !(name === 'link' && h === 'data:,'))
    )
      out.push(tag);
  }
  return out;
}

/** Markup with its whitespace made single spaces and none between tags: what tests compare (the layout is not the point). */
export const flat = (m: Markup | string): string =>
  String(m)
    .replace(/\s+/g, ' ')
    .replace(/ ?> ?</g, '><')
    .replace(/ \/>/g, '/>')
    .replace(/ >/g, '>');

/** Marks of one figure: the elements a chart draws its data with. */
export const marksOf = (svg: string) => [...svg.matchAll(/class="mark\b/g)].length;
