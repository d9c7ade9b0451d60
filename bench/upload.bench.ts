/**
 * Tabular upload end to end (issue 3: >= 20 MB/s, server memory < 1 GB for 200,000 x 200 ~ 500 MB).
 *   npm run build && node dist/bench/upload.bench.js [--rows 200000] [--cols 200] [--transposed]
 * --transposed writes samples in columns (each line a feature, as omics files often are): try --rows 100 --cols 50000.
 * Writes a CSV to a temp file, streams it over HTTP to the real service (its own embedded PostgreSQL,
 * 127.0.0.1 only), runs createDataset, then loads the dataset as the engine does.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ColumnStore } from '../src/datasets/column-store';
import { call, DatasetInfo, rssSampler, startServer, TaskStatus, uploadFile } from './server';

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};

/** The same kind of table with samples in columns: a line of sample names, then one line per feature. */
async function writeTransposedCsv(file: string, rows: number, cols: number): Promise<number> {
  const out = fs.createWriteStream(file);
  out.write(`feature,${Array.from({ length: rows }, (_, i) => `s${i + 1}`).join(',')}\n`);
  let seed = 12345;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff;
  for (let j = 0; j < cols; j++) {
    const cells = Array.from({ length: rows }, () => (j % 20 === 19 ? `c${Math.floor(rnd() * 5)}` : (rnd() * 1000).toPrecision(10)));
    if (!out.write(`f${j},${cells.join(',')}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r) => out.end(() => r()));
  return fs.statSync(file).size;
}

/** rows x cols (200,000 x 200 is ~480 MB): numbers with 10 significant digits, every 20th column a category, and a class label. */
async function writeCsv(file: string, rows: number, cols: number): Promise<number> {
  const out = fs.createWriteStream(file);
  const header = Array.from({ length: cols }, (_, j) => (j === cols - 1 ? 'label' : `f${j}`)).join(',') + '\n';
  out.write(header);
  let seed = 12345;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff; // exact 32-bit LCG
  const lines: string[] = [];
  for (let i = 0; i < rows; i++) {
    const cells = new Array<string>(cols);
    for (let j = 0; j < cols - 1; j++) cells[j] = j % 20 === 19 ? `c${Math.floor(rnd() * 5)}` : (rnd() * 1000).toPrecision(10);
    cells[cols - 1] = rnd() < 0.5 ? 'yes' : 'no';
    lines.push(cells.join(','));
    if (lines.length === 1000) {
      if (!out.write(lines.join('\n') + '\n')) await new Promise<void>((r) => out.once('drain', () => r()));
      lines.length = 0;
    }
  }
  if (lines.length) out.write(lines.join('\n') + '\n');
  await new Promise<void>((r) => out.end(() => r()));
  return fs.statSync(file).size;
}

async function main() {
  const rows = arg('rows', 200_000);
  const cols = arg('cols', 200);
  const transposed = process.argv.includes('--transposed');
  const file = path.join(os.tmpdir(), `signet-upload-${rows}x${cols}${transposed ? '-transposed' : ''}.csv`);
  let t0 = Date.now();
  const write = transposed ? writeTransposedCsv : writeCsv;
  const bytes = fs.existsSync(file) ? fs.statSync(file).size : await write(file, rows, cols);
  const mb = bytes / 1048576;
  const layout = transposed ? ', samples in columns' : '';
  process.stdout.write(`file: ${rows} x ${cols}${layout}, ${mb.toFixed(1)} MB (written in ${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);

  const s = await startServer({ WORKER_CORES: '2', MAX_TABULAR_FILE_BYTES: String(2 * 1024 ** 3) });
  const rss = rssSampler();
  try {
    const { projectId } = await call<{ projectId: string }>(s, 'POST', '/createProject', { name: 'bench' });
    t0 = Date.now();
    const up = await uploadFile(s.base, s.auth, 'big', file);
    const uploadS = (Date.now() - t0) / 1000;
    const t1 = Date.now();
    const options = transposed ? { hasSamplesInRows: false, hasSampleHeaders: true } : {};
    const { taskId } = await call<{ taskId: string }>(s, 'POST', '/file/big/createDataset', {
      projectId,
      name: 'big',
      fileSizeInBytes: up.sizeInBytes,
      ...options,
    });
    let task: TaskStatus;
    do {
      await new Promise((r) => setTimeout(r, 200));
      task = await call<TaskStatus>(s, 'GET', `/task/${taskId}/status`);
    } while (task.state !== 'finished' && task.state !== 'failed');
    const parseS = (Date.now() - t1) / 1000;
    if (task.state !== 'finished' || !task.datasetId) throw new Error(`task failed: ${JSON.stringify(task.error)}`);
    const ds = await call<DatasetInfo>(s, 'GET', `/dataset/${task.datasetId}`);
    const creationPeak = rss.peak();
    const loadStart = Math.round(process.memoryUsage().rss / 1048576);
    const loadRss = rssSampler();
    const t2 = Date.now();
    const data = await s.app.get(ColumnStore).loadForEngine(task.datasetId);
    const loadS = (Date.now() - t2) / 1000;
    loadRss.stop();
    const total = uploadS + parseS;
    process.stdout.write(
      [
        `upload:          ${uploadS.toFixed(1)} s, ${(mb / uploadS).toFixed(1)} MB/s`,
        `parse + store:   ${parseS.toFixed(1)} s, ${(mb / parseS).toFixed(1)} MB/s (${ds.sampleCount} x ${ds.featureCount}, stored ${(ds.sizeInBytes / 1048576).toFixed(1)} MB)`,
        `end to end:      ${total.toFixed(1)} s, ${(mb / total).toFixed(1)} MB/s (target >= 20 MB/s: ${mb / total >= 20 ? 'met' : 'MISSED'})`,
        `loadForEngine:   ${loadS.toFixed(2)} s (${data.columns.length} columns), RSS ${loadStart} -> peak ${loadRss.peak()} MB while loading`,
        `peak RSS:        ${creationPeak} MB during upload and creation (target < 1024 MB: ${creationPeak < 1024 ? 'met' : 'MISSED'})`,
        '                 (one process: the HTTP client, the service and its PostgreSQL client; PostgreSQL itself runs apart)',
      ].join('\n') + '\n',
    );
  } finally {
    rss.stop();
    await s.stop();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exit(1);
  },
);
