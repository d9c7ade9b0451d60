import { inflateSync } from 'node:zlib';

/**
 * The text of a PDF as Chromium prints one (page.pdf): fonts of type 0 with a ToUnicode map, text shown by hex
 * strings (Tj, TJ) in Flate-compressed content streams. Enough to check what a printed page says, one line per text
 * object; not a general PDF reader (no literal strings, encryption or object streams).
 */
export function pdfText(pdf: Buffer): string[] {
  const source = pdf.toString('latin1');
  const objects = new Map<number, { dict: string; stream?: string }>();
  // objects in file order; a stream's bytes are skipped by its /Length (a font's bytes may hold any word)
  const header = /(\d+) 0 obj\b/g;
  for (let m = header.exec(source); m; m = header.exec(source)) {
    const start = m.index + m[0].length;
    const end = source.indexOf('endobj', start);
    const streamAt = source.indexOf('stream', start);
    if (streamAt < 0 || streamAt > end) {
      objects.set(Number(m[1]), { dict: source.slice(start, end) });
      continue;
    }
    const dict = source.slice(start, streamAt);
    const length = /\/Length (\d+)( 0 R)?/.exec(dict);
    if (!length) throw new Error(`PDF object ${m[1]}: a stream without /Length`);
    // a length given as a reference is the integer object it names
    const bytes = Number(length[2] ? new RegExp(`(?:^|\\s)${length[1]} 0 obj\\s*(\\d+)\\s*endobj`).exec(source)?.[1] : length[1]);
    const dataStart = streamAt + 'stream'.length + (source[streamAt + 6] === '\r' ? 2 : 1);
    const raw = pdf.subarray(dataStart, dataStart + bytes);
    objects.set(Number(m[1]), { dict, stream: (/\/FlateDecode/.test(dict) ? inflateSync(raw) : raw).toString('latin1') });
    header.lastIndex = dataStart + bytes;
  }
  const ref = (text: string, key: string): number | undefined => {
    const m = new RegExp(`/${key}\\s+(\\d+) 0 R`).exec(text);
    return m ? Number(m[1]) : undefined;
  };
  const toUnicode = new Map<number, Map<string, string>>();
  const cmapOf = (font: number): Map<string, string> => {
    const cached = toUnicode.get(font);
    if (cached) return cached;
    const map = new Map<string, string>();
    const cmap = objects.get(ref(objects.get(font)?.dict ?? '', 'ToUnicode') ?? -1)?.stream ?? '';
    const utf16 = (hex: string) => Buffer.from(hex, 'hex').swap16().toString('utf16le');
    for (const block of cmap.matchAll(/beginbfchar([\s\S]*?)endbfchar/g))
      for (const p of block[1].matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g)) map.set(p[1].toUpperCase(), utf16(p[2]));
    for (const block of cmap.matchAll(/beginbfrange([\s\S]*?)endbfrange/g))
      for (const p of block[1].matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g)) {
        const [lo, hi, dst] = [parseInt(p[1], 16), parseInt(p[2], 16), parseInt(p[3], 16)];
        for (let code = lo; code <= hi; code++) {
          const key = code.toString(16).toUpperCase().padStart(p[1].length, '0');
          map.set(key, utf16((dst + code - lo).toString(16).padStart(p[3].length, '0')));
        }
      }
    toUnicode.set(font, map);
    return map;
  };
  const lines: string[] = [];
  for (const [, page] of objects) {
    if (!/\/Type\s*\/Page\b/.test(page.dict)) continue;
    const resourcesRef = ref(page.dict, 'Resources');
    const resources = resourcesRef !== undefined ? (objects.get(resourcesRef)?.dict ?? '') : page.dict;
    const fontDict = /\/Font\s*<<([\s\S]*?)>>/.exec(resources)?.[1] ?? '';
    const fonts = new Map([...fontDict.matchAll(/\/(\w+)\s+(\d+) 0 R/g)].map((m) => [m[1], Number(m[2])]));
    const contents = /\/Contents\s*\[([^\]]*)\]/.exec(page.dict)?.[1] ?? /\/Contents\s+(\d+ 0 R)/.exec(page.dict)?.[1] ?? '';
    for (const c of contents.matchAll(/(\d+) 0 R/g)) {
      const ops = objects.get(Number(c[1]))?.stream ?? '';
      let font: Map<string, string> = new Map();
      let line = '';
      for (const t of ops.matchAll(/\/(\w+)\s+[\d.]+\s+Tf|BT|ET|\[((?:[^\]])*)\]\s*TJ|<([0-9A-Fa-f]*)>\s*Tj/g)) {
        if (t[1]) font = cmapOf(fonts.get(t[1]) ?? -1);
        else if (t[0] === 'BT') line = '';
        else if (t[0] === 'ET') {
          if (line.trim()) lines.push(line);
        } else {
          const hexes = t[2] !== undefined ? [...t[2].matchAll(/<([0-9A-Fa-f]*)>/g)].map((h) => h[1]) : [t[3]];
          for (const hex of hexes) for (let i = 0; i + 4 <= hex.length; i += 4) line += font.get(hex.slice(i, i + 4).toUpperCase()) ?? '';
        }
      }
    }
  }
  return lines;
}
