import { Codes, ERROR_CODES } from './error-codes';

describe('the error catalogue', () => {
  it('gives every name its own code, in the API format, with a condition', () => {
    const codes = Object.values(Codes);
    expect(new Set(codes).size).toBe(codes.length);
    expect(Object.keys(ERROR_CODES)).toEqual(codes);
    for (const code of codes) {
      expect({ code, format: /^[a-z][A-Za-z]*-\d+(-\d+){1,2}$/.test(code) }).toEqual({ code, format: true });
      expect(ERROR_CODES[code].length).toBeGreaterThan(10);
    }
  });
});
