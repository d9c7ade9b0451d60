import * as querystring from 'node:querystring';
import { ApiError } from './api-error';
import { Codes } from './error-codes';

/**
 * The one rule every string from a client meets, whatever the field: no NUL (PostgreSQL refuses it
 * in text and jsonb), no lone UTF-16 surrogate (it cannot be stored or echoed as UTF-8), and at most
 * MAX_TEXT_LENGTH characters. Fields with a tighter limit (names, descriptions) say so in their DTO;
 * this cap is for the fields that have none (feature names as map keys, sample ids, passwords).
 */
export const MAX_TEXT_LENGTH = 10_000;

/** JSON nesting deeper than this is refused before parsing: no request body needs more than ~4. */
export const MAX_JSON_DEPTH = 32;

// NUL or any surrogate: rare, and cheap to look for; only then the exact test below runs.
// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const SUSPECT = /[\u0000\uD800-\uDFFF]/;
// A high surrogate not followed by a low one, or a low one not preceded by a high one.
// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const BAD_CHAR = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `s` breaks the text rule, or undefined when it meets it. */
export function textProblem(s: string, maxLength = MAX_TEXT_LENGTH): string | undefined {
  if (s.length > maxLength) return `longer than ${maxLength} characters`;
  if (!SUSPECT.test(s)) return undefined;
  const m = BAD_CHAR.exec(s);
  if (!m) return undefined;
  return m[0] === '\u0000' ? 'contains a NUL character' : 'is not valid Unicode (lone surrogate)';
}

/** Throws badRequest-1-0-6 when `s` breaks the text rule; `field` names it in the message. */
export function assertText(s: string, field: string, maxLength = MAX_TEXT_LENGTH): void {
  const problem = textProblem(s, maxLength);
  if (problem) throw new ApiError(Codes.WrongType, `${field} ${problem}`);
}

/**
 * Checks every string (keys too) of a parsed JSON value against the text rule and throws
 * badRequest-1-0-6 naming the first one that breaks it; a `__proto__` key anywhere is a field no
 * request defines (badRequest-1-0-7): JSON.parse makes it an own key, which a later merge or
 * Object.assign would turn into a prototype. Iterative, so a value of any shape is safe.
 */
export function assertSafeJson(value: unknown, root = 'body'): void {
  // Values only on the stack, each with the key it is under: the message names that key (a path
  // string built for every value would cost more than the check itself on a large body).
  const values: unknown[] = [value];
  const keys: string[] = [root];
  while (values.length) {
    const v = values.pop();
    const key = keys.pop()!;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) throw new ApiError(Codes.WrongType, `${key === root ? root : `the value of "${key.slice(0, 40)}"`} ${problem}`);
    } else if (Array.isArray(v)) {
      for (const item of v) {
        values.push(item);
        keys.push(key);
      }
    } else if (v !== null && typeof v === 'object') {
      for (const k of Object.keys(v)) {
        if (k === '__proto__') throw new ApiError(Codes.UnknownField, `${root} has a __proto__ key`);
        const problem = textProblem(k);
        if (problem) throw new ApiError(Codes.WrongType, `a key in ${root} ${problem}`);
        values.push((v as Record<string, unknown>)[k]);
        keys.push(k);
      }
    }
  }
}

/**
 * The deepest nesting of `[` / `{` in JSON text, counted without parsing (strings skipped), stopping
 * as soon as it passes `limit`. One pass over the bytes: cheap enough for every body.
 */
export function jsonDepthExceeds(buf: Uint8Array, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/**
 * The first key given twice in one object of JSON text, found without parsing (one pass; a key with escapes is
 * decoded to be compared). JSON.parse keeps the last of them silently: `{"modelKey":"best","modelKey":"x"}` was
 * validated as one value and meant by its sender as another (issue 41, finding 13). Undefined when every object's
 * keys differ (or the text is not JSON: the parser says so).
 */
export function duplicateJsonKey(buf: Uint8Array): string | undefined {
  // the keys of each open object, undefined for an open array
  const open: (Set<string> | undefined)[] = [];
  let expectKey = false;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (c === 0x22) {
      const start = i;
      let escaped = false;
      for (i++; i < buf.length && buf[i] !== 0x22; i++) {
        if (buf[i] === 0x5c) {
          i++;
          escaped = true;
        }
      }
      const keys = open[open.length - 1];
      if (!expectKey || !keys) continue;
      const raw = Buffer.from(buf.buffer, buf.byteOffset + start, i + 1 - start).toString('utf8');
      const key = escaped ? decodeJsonString(raw) : raw.slice(1, -1);
      if (key === undefined) return undefined;
      if (keys.has(key)) return key;
      keys.add(key);
      expectKey = false;
    } else if (c === 0x7b) {
      open.push(new Set());
      expectKey = true;
    } else if (c === 0x5b) {
      open.push(undefined);
    } else if (c === 0x7d || c === 0x5d) {
      open.pop();
      expectKey = false;
    } else if (c === 0x2c) {
      expectKey = open[open.length - 1] !== undefined;
    }
  }
  return undefined;
}

function decodeJsonString(raw: string): string | undefined {
  try {
    return JSON.parse(raw) as string;
  } catch {
    return undefined;
  }
}

/** The message of a key given twice, as a client reads it. */
export function duplicateKeyMessage(where: string, key: string): string {
  return `${where} gives the key ${JSON.stringify(key.slice(0, 60))} twice in one object`;
}

/** Parses JSON text from a client (a multipart field): too deep or a key twice -> badRequest-1-0-4, bad strings -> -1-0-6. */
export function parseClientJson(text: string, field: string): unknown {
  const bytes = Buffer.from(text, 'utf8');
  if (jsonDepthExceeds(bytes)) {
    throw new ApiError(Codes.MalformedBody, `${field} is nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  const twice = duplicateJsonKey(bytes);
  if (twice !== undefined) throw new ApiError(Codes.MalformedBody, duplicateKeyMessage(field, twice));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError(Codes.MalformedBody, `${field} is not valid JSON`);
  }
  assertSafeJson(value, field);
  return value;
}

/**
 * The query string as Express's 'simple' parser reads it (querystring: `+` is a space, a repeated name gives an
 * array), except that percent-encoding that is not UTF-8 (`%C0%AF`, a lone surrogate's `%ED%A0%80`) is refused
 * with badRequest-1-0-6 instead of becoming U+FFFD.
 */
export function parseQueryString(text: string): Record<string, string | string[]> {
  let bad = false;
  const decode = (s: string): string => {
    try {
      return decodeURIComponent(s);
    } catch {
      bad = true;
      return s;
    }
  };
  const parsed = querystring.parse(text, '&', '=', { decodeURIComponent: decode });
  if (bad) throw new ApiError(Codes.WrongType, 'the query string is not valid UTF-8 percent-encoding');
  return parsed as Record<string, string | string[]>;
}
