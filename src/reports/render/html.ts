/**
 * HTML built so that nothing from a user's data can become markup: `markup` is a tagged template whose every
 * interpolated value is escaped, unless it is itself `Markup` made by `markup` (or a chart function built on it).
 * Feature names, class labels, analysis and dataset names all come from users' files and requests.
 */

/** A piece of HTML (or SVG) that is safe to insert as it is. */
export class Markup {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

/** What a template may interpolate: text (escaped), numbers, markup, lists of these, nothing. */
export type Content = Markup | string | number | boolean | null | undefined | readonly Content[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Unicode's explicit direction controls: embeddings and overrides (U+202A-U+202E) and isolates (U+2066-U+2069). One in a
 * class label or a feature name turned the text after it around, the service's own numbers included ("AUC 0.859"
 * read backwards: issue 41, finding 7); each is shown as its code point instead, so that names read as they are
 * stored and nothing beyond them moves. (Letters of right-to-left scripts keep their direction: they reorder only
 * themselves.)
 */
const DIRECTION_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;

/** Text for an element's content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text
    .replace(/[&<>"']/g, (c) => ESCAPES[c])
    .replace(DIRECTION_CONTROLS, (c) => `[U+${c.charCodeAt(0).toString(16).toUpperCase()}]`);
}

function render(value: Content): string {
  if (value instanceof Markup) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * The static parts of a template with each line break and the indentation around it made one space: the source's
 * layout does not reach the page (whitespace between tags or words reads the same). Kept per call site.
 */
const compacted = new WeakMap<TemplateStringsArray, string[]>();
function compact(strings: TemplateStringsArray): string[] {
  let parts = compacted.get(strings);
  if (!parts) {
    parts = strings.map((s) => s.replace(/[ \t]*\n\s*/g, ' '));
    compacted.set(strings, parts);
  }
  return parts;
}

/** `markup\`<td>${name}</td>\``: the markup of the template with every interpolation escaped (markup kept as it is). */
export function markup(strings: TemplateStringsArray, ...values: Content[]): Markup {
  const parts = compact(strings);
  let out = parts[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + parts[i + 1];
  return new Markup(out);
}

/** Markup of a list, joined by a separator (escaped when text). */
export function join(items: readonly Content[], separator: Content = ''): Markup {
  return new Markup(items.map(render).join(render(separator)));
}

/** An id for an element (anchors, aria references) from any text: letters, digits and dashes only. */
export function slug(...parts: (string | number)[]): string {
  return parts
    .map((p) =>
      String(p)
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, ''),
    )
    .filter(Boolean)
    .join('-');
}
