/**
 * Speed of analyses on the shapes of issue 21: wall time, CPU time (the process, worker threads included), CPU/wall
 * (how busy the threads kept the cores), the main thread's CPU time (the serial part: what the worker threads cannot
 * share) and peak RSS of runAnalysis for each shape, beside what the cost model (src/engine/cost.ts) predicted for it
 * before it ran and what the status's estimate (src/analyses/estimate.ts) said of the wall time once progress first
 * reached 0.05 and 0.3 (the shape's time left blended with the measured one, then the measured alone), with the
 * ratio of each to the measured wall time and when it was said, and the ratio to the figures of a previous run (`--before file.json`, written
 * by `--out file.json`). Shapes: the four shared datasets at typical; a synthetic 10-class 1,800 x 64 set with 6
 * informative features at typical; the same with every feature informative (as the pixels of digits are); `digits70`,
 * 70% of scikit-learn's 10-class digits (1,258 x 64: the stratified training part of bench:quality's first split, as
 * issue 40 measured it), at typical, written by bench/sklearn_fits.py --digits with a python that has scikit-learn
 * (a synthetic 1,258 x 64 ten-class stand-in with every feature informative otherwise: the line says which); 200 x
 * 20,000 at preliminary; 1,000 x 1,000 (classification, 5 causes) at typical. Then the wall seconds of each step of
 * the protocol (RunOptions.onStep, src/engine/protocol.ts) per shape: where the time goes.
 *
 *   npm run bench:speed [-- --shapes breast_cancer,mc10] [--threads 2] [--out after.json] [--before before.json]
 *
 * The ingest and model-fit figures have their own benches (bench:ingest, bench:models). `load` is the 1-minute load
 * average when a shape ends: on a shared machine wall time follows it, CPU time much less.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { estimateCost, runAnalysis } from '../src/engine';
import {
  ANALYSIS_STEPS,
  type AnalysisParameters,
  type AnalysisStep,
  type EngineDataset,
  type Outcome,
  type Thoroughness,
} from '../src/engine/types';
import { datasetFromCsv } from './csv-dataset';
import { holdout, loadShared, parameters, SHARED_DATASETS } from './engine-datasets';
import { currentEstimate, FULLY_MEASURED_AT, MEASURED_FROM } from '../src/analyses/estimate';
import { EstimateBasis } from '../src/analyses/dto/analysis.dto';
import { findPython } from './python';
import { syntheticMulticlass, syntheticWide } from './synthetic-shapes';
import { SYNTHETIC_OUTCOMES, syntheticTruth } from './synthetic-truth';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const BENCH_DIR = __filename.endsWith('.ts') ? __dirname : path.resolve(__dirname, '../../bench');

/**
 * 70% of scikit-learn's digits (1,797 x 64, ten classes), stratified as bench:quality's first split (seed 1): 1,258 x
 * 64. Without scikit-learn, a synthetic ten-class 1,258 x 64 set with every feature informative.
 */
function digits70(): { data: EngineDataset; source: string } {
  const outcome = { classification: 'digit' };
  const python = findPython(arg('python', ''));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-speed-'));
  try {
    const csv = path.join(dir, 'digits.csv');
    if (python && spawnSync(python, [path.join(BENCH_DIR, 'sklearn_fits.py'), '--digits', csv]).status === 0) {
      // as a CSV with classes d0..d9, the form bench:quality's digits10 reads
      const rows = fs.readFileSync(csv, 'utf8').trim().split('\n');
      const header = [...Array.from({ length: 64 }, (_, j) => `p${j}`), 'digit'].join(',');
      const text = [header, ...rows.map((l) => l.replace(/,([0-9]+)$/, ',d$1'))].join('\n');
      return { data: holdout(datasetFromCsv(text), outcome, 0.3, 1).train, source: 'scikit-learn digits' };
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const synthetic = syntheticMulticlass(1258, 64, 10, 64, 5, 0.5);
  const codes = synthetic.columns[64];
  return { data: { ...synthetic, columns: [...synthetic.columns.slice(0, 64), { ...codes, name: 'digit' }] }, source: 'synthetic' };
}

interface Shape {
  name: string;
  level: Thoroughness;
  outcome: Outcome;
  data: () => EngineDataset;
}

const SHAPES: Shape[] = [
  ...SHARED_DATASETS.map((d): Shape => ({ name: d.name, level: 'typical', outcome: d.outcome, data: () => loadShared(d.name) })),
  {
    name: 'mc10',
    level: 'typical',
    outcome: { classification: 'class' },
    data: () => syntheticMulticlass(1800, 64, 10, 6, 3),
  },
  {
    name: 'mc10-dense',
    level: 'typical',
    outcome: { classification: 'class' },
    data: () => syntheticMulticlass(1800, 64, 10, 64, 3, 0.5),
  },
  {
    name: 'digits70',
    level: 'typical',
    outcome: { classification: 'digit' },
    data: () => {
      const { data, source } = digits70();
      console.log(`digits70: ${source}, ${data.sampleCount} x ${data.columns.length - 1}`);
      return data;
    },
  },
  { name: 'wide200x20k', level: 'preliminary', outcome: { classification: 'class' }, data: () => syntheticWide(200, 20000, 11) },
  {
    name: 'truth1000x1000',
    level: 'typical',
    outcome: SYNTHETIC_OUTCOMES.classification,
    data: () => syntheticTruth('classification', 1000, 993, 1),
  },
];

interface Figures {
  seconds: number;
  /** the status's estimate of the wall time when progress first reached MEASURED_FROM and FULLY_MEASURED_AT, and when */
  said?: { at: number; seconds: number }[];
  cpuSeconds: number;
  /** CPU time of the calling thread alone (its serial steps, and dispatching the threads' work); NaN off Linux */
  mainCpuSeconds: number;
  peakRssMb: number;
  /** wall seconds of each step of the protocol (RunOptions.onStep: from its start to the next one's) */
  steps?: Partial<Record<AnalysisStep, number>>;
}

/** CPU seconds of this process's main thread so far (Linux: /proc/self/task/PID/stat, in clock ticks of 1/100 s). */
function mainThreadCpu(): number {
  try {
    const fields = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

async function measure(
  data: EngineDataset,
  params: AnalysisParameters,
  threads: number,
  shapeSeconds: number,
): Promise<Figures & { model: string }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const c0 = process.cpuUsage();
  const m0 = mainThreadCpu();
  const t0 = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - t0) / 1e9;
  const said: { at: number; seconds: number }[] = [];
  // what the status would say at MEASURED_FROM and FULLY_MEASURED_AT of the work (memory is not read)
  const interval = { expected: shapeSeconds, low: shapeSeconds, high: shapeSeconds };
  const shape = { basis: EstimateBasis.Shape, executionTimeInSeconds: interval, peakMemoryInBytes: interval };
  const onProgress = (progress: number): void => {
    const mark = [MEASURED_FROM, FULLY_MEASURED_AT][said.length];
    if (mark === undefined || progress < mark) return;
    const at = elapsed();
    said.push({
      at,
      seconds: currentEstimate(shape, { state: 'running', executionTimeInSeconds: at, progress }).executionTimeInSeconds.expected,
    });
  };
  const started: [AnalysisStep, number][] = [];
  const onStep = (step: AnalysisStep): void => void started.push([step, elapsed()]);
  try {
    const result = await runAnalysis(data, params, { seed: 1, threads, onProgress, onStep });
    const cpu = process.cpuUsage(c0);
    const end = elapsed();
    return {
      said,
      steps: Object.fromEntries(started.map(([step, at], k) => [step, (started[k + 1]?.[1] ?? end) - at])),
      seconds: elapsed(),
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      mainCpuSeconds: mainThreadCpu() - m0,
      peakRssMb: Math.max(peak, process.memoryUsage().rss) / 2 ** 20,
      model: `${result.models.best.featureSelection.split(':')[0]} | ${result.models.best.model.split(';')[0]}`,
    };
  } finally {
    clearInterval(timer);
  }
}

/** What the cost model (src/engine/cost.ts) predicts for a shape before it runs: wall seconds, CPU seconds, peak MB. */
function predicted(data: EngineDataset, shape: Shape, threads: number): { seconds: number; cpuSeconds: number; peakMb: number } {
  const outcomeNames = Object.values(shape.outcome).flatMap((v: string | { event: string; timeToEvent: string }) =>
    typeof v === 'string' ? [v] : [v.event, v.timeToEvent],
  );
  const task = 'classification' in shape.outcome ? 'classification' : 'regression' in shape.outcome ? 'regression' : 'survival';
  const label = data.columns.find((c) => c.name === outcomeNames[0]);
  const classes = label && 'levels' in label ? label.levels.length : new Set(label && 'values' in label ? label.values : []).size;
  const cost = estimateCost({
    samples: data.sampleCount,
    features: data.columns.length - outcomeNames.length,
    classes,
    task,
    thoroughness: shape.level,
    cores: threads,
  });
  return { seconds: cost.seconds.expected, cpuSeconds: cost.cpuSeconds, peakMb: cost.peakMemoryMb.expected };
}

async function main(): Promise<void> {
  const threads = Number(arg('threads', String(os.cpus().length)));
  const only = arg('shapes', SHAPES.map((s) => s.name).join(',')).split(',');
  const beforeFile = arg('before', '');
  const before: Record<string, Figures> = beforeFile ? (JSON.parse(fs.readFileSync(beforeFile, 'utf8')) as Record<string, Figures>) : {};
  const out: Record<string, Figures> = {};
  console.log(`signet speed benchmark: ${threads} threads, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}`);
  console.log(
    'shape            level         wall s   CPU s  CPU/wall  main CPU s  peak MB   ratio(wall)  ratio(CPU)  load  predicted wall / CPU / MB (ratio to measured)  said at 0.05 / 0.3 of the work: wall (ratio) @ s  best',
  );
  for (const shape of SHAPES.filter((s) => only.includes(s.name))) {
    const data = shape.data();
    const guess = predicted(data, shape, threads);
    const f = await measure(data, parameters(shape.outcome, shape.level, threads), threads, guess.seconds);
    out[shape.name] = {
      seconds: f.seconds,
      cpuSeconds: f.cpuSeconds,
      mainCpuSeconds: f.mainCpuSeconds,
      peakRssMb: f.peakRssMb,
      steps: f.steps,
    };
    const b = before[shape.name];
    const ratio = (x: number, y?: number): string => (y ? (x / y).toFixed(2) : '-').padStart(11);
    console.log(
      `${shape.name.padEnd(16)} ${shape.level.padEnd(12)} ${f.seconds.toFixed(1).padStart(7)} ${f.cpuSeconds.toFixed(1).padStart(7)} ${(f.cpuSeconds / f.seconds).toFixed(2).padStart(9)} ${f.mainCpuSeconds.toFixed(1).padStart(11)} ${f.peakRssMb.toFixed(0).padStart(8)} ${ratio(f.seconds, b?.seconds)} ${ratio(f.cpuSeconds, b?.cpuSeconds)} ${os.loadavg()[0].toFixed(1).padStart(5)}  ${guess.seconds.toFixed(1)} / ${guess.cpuSeconds.toFixed(1)} / ${guess.peakMb.toFixed(0)} (${(guess.seconds / f.seconds).toFixed(2)}, ${(guess.cpuSeconds / f.cpuSeconds).toFixed(2)}, ${(guess.peakMb / f.peakRssMb).toFixed(2)})  ${(f.said ?? []).map((e) => `${e.seconds.toFixed(1)} (${(e.seconds / f.seconds).toFixed(2)}) @ ${e.at.toFixed(1)}`).join(' / ') || '-'}  ${f.model}`,
    );
  }
  console.log(
    `\nwall seconds of each step (runAnalysis's onStep; each with the work it overlaps)\n${'shape'.padEnd(16)} ${ANALYSIS_STEPS.map((s) => s.padStart(Math.max(8, s.length))).join(' ')}`,
  );
  for (const [name, f] of Object.entries(out))
    console.log(
      `${name.padEnd(16)} ${ANALYSIS_STEPS.map((s) => (f.steps?.[s]?.toFixed(1) ?? '-').padStart(Math.max(8, s.length))).join(' ')}`,
    );
  const file = arg('out', '');
  if (file) fs.writeFileSync(file, JSON.stringify(out, null, 2));
}

void main();
