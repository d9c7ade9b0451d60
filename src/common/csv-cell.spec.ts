import { csvCell } from './csv-cell';

describe('csvCell', () => {
  it('prefixes a single quote to text a spreadsheet would run as a formula (OWASP)', () => {
    expect(csvCell('=cmd|calc!A1')).toBe("'=cmd|calc!A1");
    expect(csvCell('+1+1')).toBe("'+1+1");
    expect(csvCell('-1+cmd')).toBe("'-1+cmd");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\tx')).toBe("'\tx");
    expect(csvCell('\rx')).toBe(`"'\rx"`);
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
  });

  it('leaves numbers, numeric text and ordinary text as they are, and quotes per RFC 4180', () => {
    expect(csvCell(-0.25)).toBe('-0.25');
    expect(csvCell(1e-7)).toBe('1e-7');
    expect(csvCell('-12.5')).toBe('-12.5');
    expect(csvCell('+3')).toBe("'+3");
    expect(csvCell('s1')).toBe('s1');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell(null)).toBe('');
  });
});
