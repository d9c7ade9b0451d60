import { ApiError } from './api-error';
import { assertSafeJson, jsonDepthExceeds, MAX_JSON_DEPTH, MAX_TEXT_LENGTH, parseClientJson, textProblem } from './text';

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    return e instanceof ApiError ? e.code : `not an ApiError: ${String(e)}`;
  }
}

describe('the text rule', () => {
  it('accepts ordinary text, accents, emoji (surrogate pairs) and the length limit itself', () => {
    for (const s of ['', 'iris', 'Déjà vu', '数据集', 'a 😀 b', '\t\n', 'x'.repeat(MAX_TEXT_LENGTH)]) {
      expect({ s: s.slice(0, 20), problem: textProblem(s) }).toEqual({ s: s.slice(0, 20), problem: undefined });
    }
  });

  it('refuses NUL, lone high and low surrogates, reversed pairs, and text over the limit', () => {
    expect(textProblem('a\u0000b')).toMatch(/NUL/);
    expect(textProblem('a\uD800')).toMatch(/surrogate/);
    expect(textProblem('\uD800b')).toMatch(/surrogate/);
    expect(textProblem('a\uDC00')).toMatch(/surrogate/);
    expect(textProblem('\uDE00\uD83D')).toMatch(/surrogate/);
    expect(textProblem('x'.repeat(MAX_TEXT_LENGTH + 1))).toMatch(/longer than/);
    expect(textProblem('abcd', 3)).toMatch(/longer than 3/);
  });

  it('walks every string and key of a parsed body, at any depth', () => {
    expect(codeOf(() => assertSafeJson({ a: [1, { b: 'ok' }], c: null, d: true }))).toBeUndefined();
    expect(codeOf(() => assertSafeJson({ a: [1, { b: 'x\u0000' }] }))).toBe('badRequest-1-0-6');
    expect(codeOf(() => assertSafeJson({ ['k\u0000']: 1 }))).toBe('badRequest-1-0-6');
    expect(codeOf(() => assertSafeJson(['\uDFFF']))).toBe('badRequest-1-0-6');
    expect(codeOf(() => assertSafeJson(JSON.parse('{"a":[{"__proto__":{"admin":true}}]}')))).toBe('badRequest-1-0-7');
    expect(codeOf(() => assertSafeJson({ constructor: 'a feature may be called so' }))).toBeUndefined();
    let deep: unknown = 'a\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(codeOf(() => assertSafeJson(deep))).toBe('badRequest-1-0-6');
  });
});

describe('the JSON depth limit', () => {
  const depth = (n: number) => '['.repeat(n) + ']'.repeat(n);
  it('counts nesting of arrays and objects, not brackets inside strings', () => {
    expect(jsonDepthExceeds(Buffer.from(depth(MAX_JSON_DEPTH)))).toBe(false);
    expect(jsonDepthExceeds(Buffer.from(depth(MAX_JSON_DEPTH + 1)))).toBe(true);
    expect(jsonDepthExceeds(Buffer.from(`{"a":"${'['.repeat(1000)}","b":{"c":[1]}}`))).toBe(false);
    // an escaped quote does not end the string
    expect(jsonDepthExceeds(Buffer.from(`{"a":"\\"${'{'.repeat(1000)}"}`))).toBe(false);
    expect(jsonDepthExceeds(Buffer.from('{"a":'.repeat(50_000)))).toBe(true);
  });

  it('parses a multipart JSON field under the same rules', () => {
    expect(parseClientJson('{"projectId":1,"name":"scans"}', 'attributes')).toEqual({ projectId: 1, name: 'scans' });
    expect(codeOf(() => parseClientJson(depth(50_000), 'attributes'))).toBe('badRequest-1-0-4');
    expect(codeOf(() => parseClientJson('{"name":', 'attributes'))).toBe('badRequest-1-0-4');
    expect(codeOf(() => parseClientJson('{"name":"a\\u0000b"}', 'attributes'))).toBe('badRequest-1-0-6');
  });
});
