/**
 * The fifth review's attacks (issue 41), four at a time, against the service as `npm start` runs it, while a process
 * of its own probes `/health/live` (as an orchestrator would) and this one samples the API process's memory:
 *   npm run bench:attacks [-- --rounds 2 --only png-idat,report]
 * Each phase sends four requests at once, `--rounds` times over, and prints the answers (codes, HTTP statuses: a 500 is
 * a failure), the liveness probe's p50 / p99 / max latency during the phase and the API process's peak resident memory
 * (the engine processes are processes of their own, not counted). The target (issue 41): p99 under 100 ms, memory under
 * 600 MB, no 500.
 *   - png-idat: an 8 x 8 PNG with 4.4 million empty IDAT chunks (50 MB) added to an image upload
 *   - png-text: the same with tEXt chunks
 *   - jpeg-comments: a JPEG of 13 million empty COM segments (52 MB)
 *   - jpeg-scans: a valid progressive JPEG of 757 scans added (test/data/many-scans.jpg), and the upload committed
 *   - report: the report of a 100-class analysis (2 samples a class, labels of 200 characters)
 *   - oof-json, oof-csv: the out-of-fold predictions of 200,000 samples (a real iris analysis whose stored
 *     out-of-fold predictions are replaced by 200,000 synthetic rows)
 * The machine is shared (2 cores): timings differ between runs; compare medians of several runs, or ratios.
 */
import { fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import { DATA_DIR } from './engine-datasets';
import { emptyChunksIn, jpegWithComments, manyScansJpeg, pngWithEmptyChunks } from './hostile-images';
import { call, percentile, startService } from './server';

const arg = (name: string, d: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : d;
};

interface Answer {
  status: number;
  code: string;
  ms: number;
}

/** The probe: GET /health/live one after another, every PROBE_MS, until told to stop; sends back [time, ms] pairs. */
const PROBE_MS = 20;
async function probe(base: string): Promise<void> {
  const samples: [number, number][] = [];
  let running = true;
  process.on('message', () => {
    running = false;
  });
  while (running) {
    const t0 = performance.now();
    await fetch(`${base}/health/live`).then(
      (r) => r.arrayBuffer(),
      () => undefined,
    );
    const t1 = performance.now();
    samples.push([Date.now(), t1 - t0]);
    await new Promise((r) => setTimeout(r, Math.max(0, PROBE_MS - (t1 - t0))));
  }
  process.send?.(samples, () => process.exit(0));
}

/** The resident memory of process `pid` in MB (VmRSS), or 0 when it is gone. */
function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

async function send(base: string, auth: string, route: string, init: RequestInit = {}): Promise<Answer> {
  const t0 = performance.now();
  try {
    const res = await fetch(base + route, { ...init, headers: { authorization: auth, ...(init.headers ?? {}) } });
    const type = res.headers.get('content-type') ?? '';
    const body = Buffer.from(await res.arrayBuffer());
    let code = type.startsWith('application/json') && body.length < 1e6 ? '' : `${type.split(';')[0]} ${(body.length / 1e6).toFixed(1)} MB`;
    if (!code) {
      const json = JSON.parse(body.toString('utf8')) as { status?: string; code?: string };
      code = json.status === 'success' ? 'success' : (json.code ?? `HTTP ${res.status}`);
    }
    return { status: res.status, code, ms: performance.now() - t0 };
  } catch (e) {
    const cause = (e as Error & { cause?: Error }).cause;
    return { status: 0, code: `failed: ${(e as Error).message}${cause ? ` (${cause.message})` : ''}`, ms: performance.now() - t0 };
  }
}

function addImage(base: string, auth: string, taskId: string, sampleId: string, bytes: Buffer, name: string): Promise<Answer> {
  const form = new FormData();
  form.append('sampleId', sampleId);
  form.append('file', new Blob([bytes]), name);
  return send(base, auth, `/image/${taskId}/add`, { method: 'POST', body: form });
}

async function waitFor<T>(read: () => Promise<T>, done: (v: T) => boolean, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Uploads `csv` as a dataset of `projectId`; its id. */
async function dataset(s: { base: string; auth: string }, projectId: string, name: string, csv: string): Promise<string> {
  const fileId = `f-${name}`;
  await fetch(`${s.base}/file/${fileId}/upload`, {
    method: 'POST',
    headers: { authorization: s.auth, 'content-type': 'text/csv' },
    body: csv,
  });
  const { taskId } = await call<{ taskId: string }>(s, 'POST', `/file/${fileId}/createDataset`, {
    projectId,
    name,
    fileSizeInBytes: Buffer.byteLength(csv),
  });
  const task = await waitFor(
    () => call<{ state: string; datasetId?: string }>(s, 'GET', `/task/${taskId}/status`),
    (t) => t.state === 'finished' || t.state === 'failed',
    300_000,
  );
  if (!task.datasetId) throw new Error(`dataset ${name}: ${JSON.stringify(task)}`);
  return task.datasetId;
}

async function finishedAnalysis(s: { base: string; auth: string }, datasetId: string, outcome: string): Promise<string> {
  const { analysisId } = await call<{ analysisId: string }>(s, 'POST', `/dataset/${datasetId}/analyze`, {
    outcome: { classification: outcome },
    thoroughness: 'preliminary',
    coreCount: 2,
    name: `attack ${outcome}`,
  });
  const end = await waitFor(
    () => call<{ state: string }>(s, 'GET', `/analysis/${analysisId}/status`),
    (a) => a.state === 'finished' || a.state === 'failed',
    1_800_000,
  );
  if (end.state !== 'finished') throw new Error(`analysis ${analysisId}: ${JSON.stringify(end)}`);
  return analysisId;
}

/** 100 classes of 2 samples, labels of 200 characters, five numeric features (the class shifts the first two). */
function hundredClasses(): string {
  const lines = ['label,f1,f2,f3,f4,f5'];
  for (let k = 0; k < 100; k++) {
    const label = `c${String(k).padStart(3, '0')}-${'l'.repeat(195)}`;
    for (let r = 0; r < 2; r++) lines.push([label, k + r * 0.1, (k * 7) % 13, r, (k * r) % 5, Math.sin(k + r)].join(','));
  }
  return lines.join('\n') + '\n';
}

async function main(): Promise<void> {
  const rounds = Number(arg('rounds', '2'));
  const only = arg('only', '');
  const s = await startService({ WORKER_CORES: '2' });
  const t0 = Date.now();
  const { projectId } = await call<{ projectId: string }>(s, 'POST', '/createProject', { name: 'attacks' });
  const samples = Array.from({ length: 200 }, (_, i) => `s${i}`);
  const initForm = new FormData();
  initForm.append('attributes', JSON.stringify({ projectId: Number(projectId), name: 'attack scans' }));
  initForm.append('file', new Blob([`id,label\n${samples.map((id, i) => `${id},${i % 2}`).join('\n')}\n`]), 'labels.csv');
  const init = (await (
    await fetch(`${s.base}/image/initUpload`, { method: 'POST', headers: { authorization: s.auth }, body: initForm })
  ).json()) as {
    payload: { taskId: string };
  };
  const taskId = init.payload.taskId;
  const scansForm = new FormData();
  scansForm.append('attributes', JSON.stringify({ projectId: Number(projectId), name: 'attack progressive' }));
  scansForm.append('file', new Blob(['id,label\np0,a\np1,b\np2,a\np3,b\n']), 'labels.csv');
  const scansTask = (
    (await (await fetch(`${s.base}/image/initUpload`, { method: 'POST', headers: { authorization: s.auth }, body: scansForm })).json()) as {
      payload: { taskId: string };
    }
  ).payload.taskId;
  process.stdout.write('setting up: a 100-class analysis, an iris analysis with 200,000 out-of-fold rows ...\n');
  const hundred = await finishedAnalysis(s, await dataset(s, projectId, 'hundred', hundredClasses()), 'label');
  const iris = await finishedAnalysis(
    s,
    await dataset(s, projectId, 'iris', fs.readFileSync(path.join(DATA_DIR, 'iris.csv'), 'utf8')),
    'species',
  );
  const db = new Client({ connectionString: s.databaseUrl });
  await db.connect();
  await db.query(
    `UPDATE analysis_results SET out_of_fold = jsonb_build_object('best', jsonb_build_object(
       'rows', (SELECT jsonb_agg(i) FROM generate_series(0, 199999) i), 'width', 3, 'repeats', 1,
       'values', (SELECT jsonb_agg(round(random()::numeric, 6)) FROM generate_series(1, 600000)),
       'y', (SELECT jsonb_agg(i % 3) FROM generate_series(0, 199999) i)))
     WHERE analysis_id = $1`,
    [iris],
  );
  await db.end();
  process.stdout.write(`set up in ${((Date.now() - t0) / 1000).toFixed(0)} s\n\n`);

  const png = pngWithEmptyChunks(emptyChunksIn(50 * 1048576));
  const text = pngWithEmptyChunks(emptyChunksIn(50 * 1048576), 'tEXt');
  const comments = jpegWithComments(13_000_000);
  let next = 0;
  const sample = () => samples[next++ % samples.length];
  const phases: [string, () => Promise<Answer>, (() => Promise<Answer>)?][] = [
    ['idle', () => new Promise((r) => setTimeout(() => r({ status: 200, code: 'idle', ms: 2000 }), 2000))],
    ['png-idat', () => addImage(s.base, s.auth, taskId, sample(), png, 'idat.png')],
    ['png-text', () => addImage(s.base, s.auth, taskId, sample(), text, 'text.png')],
    ['jpeg-comments', () => addImage(s.base, s.auth, taskId, sample(), comments, 'comments.jpg')],
    [
      'jpeg-scans',
      () => addImage(s.base, s.auth, scansTask, `p${next++ % 4}`, manyScansJpeg(), 'scans.jpg'),
      // then the upload committed and its decoding waited for (when the adds were taken)
      async () => {
        const t = performance.now();
        const commit = await send(s.base, s.auth, `/image/${scansTask}/commit`);
        if (commit.code !== 'success') return commit;
        const end = await waitFor(
          () => call<{ state: string; error?: { code: string } }>(s, 'GET', `/image/${scansTask}/status`),
          (st) => st.state === 'finished' || st.state === 'failed',
          600_000,
        );
        return { status: 200, code: `task ${end.state}${end.error ? ` ${end.error.code}` : ''}`, ms: performance.now() - t };
      },
    ],
    ['report', () => send(s.base, s.auth, `/analysis/${hundred}/report`)],
    ['oof-json', () => send(s.base, s.auth, `/analysis/${iris}/outOfFoldPredictions?modelKey=best`)],
    ['oof-csv', () => send(s.base, s.auth, `/analysis/${iris}/outOfFoldPredictions?modelKey=best&format=csv`)],
  ];

  const prober = fork(__filename, ['--probe', s.base], { stdio: 'inherit' });
  const probed = new Promise<[number, number][]>((resolve) => prober.once('message', (m) => resolve(m as [number, number][])));
  await new Promise((r) => setTimeout(r, 1000));
  const results: { name: string; start: number; end: number; answers: Answer[]; peak: number }[] = [];
  for (const [name, one, after] of phases) {
    if (only && name !== 'idle' && !only.split(',').includes(name)) continue;
    let peak = rssMb(s.pid);
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(s.pid))), 100);
    const start = Date.now();
    const answers: Answer[] = [];
    for (let r = 0; r < (name === 'idle' ? 1 : rounds); r++) answers.push(...(await Promise.all([one(), one(), one(), one()])));
    if (after) answers.push(await after());
    clearInterval(sampler);
    results.push({ name, start, end: Date.now(), answers, peak });
  }
  prober.send('stop');
  const probes = await probed;

  const line = (cells: (string | number)[]) => process.stdout.write(cells.map((c) => String(c).padEnd(16)).join('') + '\n');
  line(['phase', 'seconds', 'live p50 ms', 'live p99 ms', 'live max ms', 'API peak MB', 'HTTP 500', 'answers']);
  for (const r of results) {
    const during = probes
      .filter(([t]) => t >= r.start && t <= r.end)
      .map(([, ms]) => ms)
      .sort((a, b) => a - b);
    const codes = new Map<string, number>();
    for (const a of r.answers) {
      const key = `${a.code}${a.status !== 200 ? ` (HTTP ${a.status})` : ''}`;
      codes.set(key, (codes.get(key) ?? 0) + 1);
    }
    line([
      r.name,
      ((r.end - r.start) / 1000).toFixed(1),
      percentile(during, 50)?.toFixed(1) ?? '-',
      percentile(during, 99)?.toFixed(1) ?? '-',
      (during[during.length - 1] ?? 0).toFixed(1),
      r.peak.toFixed(0),
      r.answers.filter((a) => a.status === 500).length,
      [...codes].map(([c, n]) => `${n} x ${c}`).join('; '),
    ]);
  }
  const slowest = results.map((r) => `${r.name} ${Math.max(...r.answers.map((a) => a.ms)).toFixed(0)} ms`).join(', ');
  process.stdout.write(`\nslowest answer per phase: ${slowest}\n`);
  await s.stop();
}

if (process.argv.includes('--probe')) void probe(process.argv[process.argv.indexOf('--probe') + 1]);
else
  main().catch((e: unknown) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exit(1);
  });
