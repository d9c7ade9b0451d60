#!/usr/bin/env node
// Writes test/data/many-scans.jpg: a valid progressive JPEG of 7000 x 7000 pixels (a smooth gradient at quality 20,
// ~200 KB) with 757 scans, each a legal step of the progression (the DC scan, then every AC coefficient of every
// component alone: a first scan at bit 3 and three refinements). Every scan is a pass of a decoder over all the
// coefficients: libvips takes seconds on it where the same image with libjpeg's 10 scans takes ~25 ms. The API
// refuses it at add (MAX_JPEG_SCANS); the attacks bench sends it. Needs sharp (a dependency) and jpegtran
// (Debian: libjpeg-turbo-progs), which takes at most 100 scans a script: the scans are made 97 at a time from the same
// coefficients and spliced (each keeps the Huffman tables written before it).
//   node tools/make-many-scans-jpeg.js
const { Buffer } = require('node:buffer');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const sharp = require('sharp');

const SIDE = 7000;
const FIRST_BIT = 3;

/** The marker segments of a JPEG (a scan with its entropy-coded data), up to EOI. */
function segments(b) {
  const out = [];
  for (let i = 2; i < b.length;) {
    const marker = b[i + 1];
    if (marker === 0xd9) return out;
    let end = i + 2 + b.readUInt16BE(i + 2);
    if (marker === 0xda) while (!(b[end] === 0xff && b[end + 1] !== 0 && !(b[end + 1] >= 0xd0 && b[end + 1] <= 0xd7))) end++;
    out.push({ marker, start: i, end });
    i = end;
  }
  return out;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scans-'));
  const raw = Buffer.alloc(SIDE * SIDE * 3);
  for (let y = 0; y < SIDE; y++) for (let x = 0; x < SIDE; x++) raw.set([(x * 255) / SIDE, (y * 255) / SIDE, 128], (y * SIDE + x) * 3);
  const base = path.join(dir, 'base.jpg');
  await sharp(raw, { raw: { width: SIDE, height: SIDE, channels: 3 } })
    .jpeg({ quality: 20 })
    .toFile(base);
  const bands = [];
  for (let c = 0; c < 3; c++)
    for (let k = 1; k < 64; k++) {
      const band = [`${c}: ${k}-${k}, 0, ${FIRST_BIT};`];
      for (let a = FIRST_BIT; a > 0; a--) band.push(`${c}: ${k}-${k}, ${a}, ${a - 1};`);
      bands.push(band);
    }
  const perFile = Math.floor(99 / (FIRST_BIT + 1));
  const parts = [];
  for (let i = 0; i < bands.length; i += perFile) {
    const script = path.join(dir, 'scans.txt');
    fs.writeFileSync(script, ['0,1,2: 0-0, 0, 0;', ...bands.slice(i, i + perFile).flat()].join('\n') + '\n');
    const out = path.join(dir, `part${parts.length}.jpg`);
    execFileSync('jpegtran', ['-scans', script, '-outfile', out, base]);
    const b = fs.readFileSync(out);
    const s = segments(b);
    const dc = s.findIndex((x) => x.marker === 0xda);
    // the first file gives the headers and the DC scan; every file its AC scans (with their Huffman tables)
    if (!parts.length) parts.push(b.subarray(0, s[dc].end));
    parts.push(b.subarray(s[dc].end, s[s.length - 1].end));
  }
  parts.push(Buffer.from([0xff, 0xd9]));
  const file = Buffer.concat(parts);
  const target = path.join(__dirname, '..', 'test', 'data', 'many-scans.jpg');
  fs.writeFileSync(target, file);
  fs.rmSync(dir, { recursive: true, force: true });
  const scans = segments(file).filter((x) => x.marker === 0xda).length;
  process.stdout.write(`${target}: ${file.length} bytes, ${scans} scans\n`);
}

main().catch((e) => {
  process.stderr.write(`${e.stack}\n`);
  process.exit(1);
});
