/**
 * Explanation benchmark (issue 43): the time to explain 1,000 predictions of a 10-feature signature, per model kind,
 * by the method its kind allows (src/engine/explain/), against the background every pipeline keeps (100 training
 * rows). Each model is fitted on 1,000 synthetic training rows (10 standard normal features, an outcome with
 * interactions and noise; grid settings of the typical thoroughness: forests of 100 trees, minimum leaf 1, survival
 * forests minimum leaf 15), then 1,000 other rows are explained, in `--threads` worker threads (default 2, the
 * target's cores: each thread explains its share of the rows). Prints per kind: method, wall time (median of `--reps`
 * runs, default 3), rows per second, the largest |base + contributions - output|, and for sampling the largest
 * standard error as a fraction of the output's spread (standard deviation over the background). The target: at most
 * 10 s each, and a sampling standard error below 0.01 of the spread.
 *
 *   npm run bench:explain [-- --threads 2] [--reps 3] [--rows 1000] [--only forest,svm]
 *
 * Figures of 2026-11-29 (2 cores shared with other work, load 5.6 to 6.8; medians of 3; `cpu/thr`, the process's CPU
 * seconds over the 2 threads, is the wall time the cores would take alone; every |base + contributions - output| at
 * most 2.3e-12):
 *
 *   kind                       method       wall s  cpu/thr s
 *   ridge, logistic (2 and 3 classes), Cox, linear SVM and SVR, closed form:  0.09-0.13 wall, 0.05 CPU per thread
 *   CART classification       exactTree      0.16     0.07
 *   CART regression           exactTree      0.22     0.08
 *   forest classification     exactTree      5.67     1.94
 *   forest regression         exactTree     19.17     7.24   (the whole process, forest fit included, timed alone
 *                                                            over 3 runs: 7.46 s wall, 14.4 s CPU)
 *   random survival forest    exactTree      2.29     1.31
 *   RBF SVM (2 classes)       exactKernel    3.17     1.60
 *   RBF SVM (3, one-vs-one)   exactKernel    5.43     3.17
 *   RBF SVR                   exactKernel    4.63     2.57
 *
 * Every kind is exact at this size; none needs the sampling estimate (its standard-error column stays '-').
 *
 * Later that day (quiet machine, medians of 3), after each leaf's nonzero values were listed once per tree: forest
 * classification 1.91 s, forest (10 classes: deciles of the signal) 5.17, forest regression 7.17, random survival
 * forest 1.38. The 10-class forest, whole process (fit and explanation) alternated against the code before (farm-bench,
 * five runs each): wall 7.15 -> 5.65 s (ratio 0.79), CPU 13.8 -> 10.7 s.
 *
 * Later still (quiet machine, medians of 3), with TreeSHAP leaf by leaf over the background rows' fail masks
 * (src/engine/explain/tree-masks.ts), before -> after: forest classification 1.94 -> 0.68 s, forest (10 classes) 5.16
 * -> 2.73, forest regression 7.21 -> 4.42, random survival forest 1.37 -> 0.50, CART 0.10 -> 0.09; the same largest
 * |base + contributions - output| for each.
 */
import * as os from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { shapleyValues } from '../src/engine/explain/shapley';
import type { ShapleyValues } from '../src/engine/explain/types';
import type { Design, Target } from '../src/engine/models';
import { DecisionTree } from '../src/engine/models/cart';
import { CoxRegression } from '../src/engine/models/cox';
import { RandomForest } from '../src/engine/models/forest';
import { RidgeRegression } from '../src/engine/models/linear';
import { LogisticRegression } from '../src/engine/models/logistic';
import type { SavedModel } from '../src/engine/models';
import { modelFromJSON } from '../src/engine/models';
import { SVM, SVR } from '../src/engine/models/svm';
import { Rng } from '../src/engine/rng';

const FEATURES = 10;
const TRAIN = 1000;
const BACKGROUND = 100;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

/** n rows of 10 standard normal features and their signal: main effects, two interactions, a threshold. */
function synthetic(n: number, rng: Rng): { X: Design; signal: Float64Array } {
  const data = new Float64Array(n * FEATURES);
  const signal = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < FEATURES; j++) data[i * FEATURES + j] = rng.normal();
    const x = (j: number): number => data[i * FEATURES + j];
    signal[i] = x(0) - 0.8 * x(1) + 0.6 * x(2) + 0.5 * x(3) * x(4) + (x(5) > 0.5 ? 0.7 : 0) - 0.4 * x(6) + 0.3 * x(7) * x(8) + 0.2 * x(9);
  }
  return { X: { data, rows: n, cols: FEATURES }, signal };
}

interface Kind {
  name: string;
  fit(X: Design, signal: Float64Array, rng: Rng): SavedModel;
}

const noisy = (signal: Float64Array, rng: Rng): Float64Array => Float64Array.from(signal, (s) => s + 0.7 * rng.normal());
const binary = (signal: Float64Array, rng: Rng): Target => ({
  y: Float64Array.from(noisy(signal, rng), (s) => (s > 0 ? 1 : 0)),
  classCount: 2,
});
const three = (signal: Float64Array, rng: Rng): Target => ({
  y: Float64Array.from(noisy(signal, rng), (s) => (s < -0.7 ? 0 : s < 0.7 ? 1 : 2)),
  classCount: 3,
});
/** ten classes: the deciles of the noisy signal (a digit-like outcome, whose forests' pure leaves hold one class of ten) */
const ten = (signal: Float64Array, rng: Rng): Target => {
  const noisySignal = noisy(signal, rng);
  const sorted = Float64Array.from(noisySignal).sort();
  const cuts = Array.from({ length: 9 }, (_, k) => sorted[Math.floor(((k + 1) * sorted.length) / 10)]);
  return { y: Float64Array.from(noisySignal, (s) => cuts.filter((c) => s >= c).length), classCount: 10 };
};
const regression = (signal: Float64Array, rng: Rng): Target => ({ y: Float64Array.from(noisy(signal, rng), (s) => 100 + 20 * s) });
const survival = (signal: Float64Array, rng: Rng): Target => ({
  y: Float64Array.from(noisy(signal, rng), (s) => Math.ceil(365 * Math.exp(-0.6 * s))),
  event: Float64Array.from(signal, () => (rng.next() < 0.7 ? 1 : 0)),
});

const KINDS: Kind[] = [
  { name: 'ridge linear', fit: (X, s, r) => new RidgeRegression(0.01).fit(X, regression(s, r)) },
  { name: 'binary logistic', fit: (X, s, r) => new LogisticRegression(0.01).fit(X, binary(s, r)) },
  { name: 'multinomial logistic (3)', fit: (X, s, r) => new LogisticRegression(0.01).fit(X, three(s, r)) },
  { name: 'Cox', fit: (X, s, r) => new CoxRegression(0.01).fit(X, survival(s, r)) },
  { name: 'CART classification', fit: (X, s, r) => new DecisionTree('classification', 5, 5).fit(X, binary(s, r), r) },
  { name: 'CART regression', fit: (X, s, r) => new DecisionTree('regression', 5, 5).fit(X, regression(s, r), r) },
  { name: 'forest classification', fit: (X, s, r) => new RandomForest('classification', 100, 1, 1).fit(X, binary(s, r), r) },
  { name: 'forest (10 classes)', fit: (X, s, r) => new RandomForest('classification', 100, 1, 1).fit(X, ten(s, r), r) },
  { name: 'forest regression', fit: (X, s, r) => new RandomForest('regression', 100, 1, 1).fit(X, regression(s, r), r) },
  { name: 'random survival forest', fit: (X, s, r) => new RandomForest('survival', 100, 1, 15).fit(X, survival(s, r), r) },
  { name: 'linear SVM', fit: (X, s, r) => new SVM('linear', 1).fit(X, binary(s, r), r) },
  { name: 'RBF SVM', fit: (X, s, r) => new SVM('rbf', 1, 1).fit(X, binary(s, r), r) },
  { name: 'RBF SVM (3, one-vs-one)', fit: (X, s, r) => new SVM('rbf', 1, 1).fit(X, three(s, r), r) },
  { name: 'linear SVR', fit: (X, s, r) => new SVR('linear', 1, 0.1).fit(X, regression(s, r), r) },
  { name: 'RBF SVR', fit: (X, s, r) => new SVR('rbf', 1, 0.1).fit(X, regression(s, r), r) },
];

const PLAYERS = { of: Int32Array.from({ length: FEATURES }, (_, j) => j), count: FEATURES };

interface Job {
  model: Record<string, unknown>;
  X: Design;
  background: Design;
}

function explain(job: Job): ShapleyValues {
  return shapleyValues(modelFromJSON(job.model).shapleyForm(), { X: job.X, background: job.background, players: PLAYERS });
}

if (!isMainThread) {
  parentPort?.postMessage(explain(workerData as Job));
} else {
  void main();
}

/** The rows [from, to) of X. */
function slice(X: Design, from: number, to: number): Design {
  return { data: X.data.slice(from * X.cols, to * X.cols), rows: to - from, cols: X.cols };
}

/** Explains X in `threads` worker threads (0: on this thread), each its share of the rows; the values in row order. */
async function explainIn(threads: number, job: Job): Promise<ShapleyValues> {
  if (threads === 0) return explain(job);
  const n = job.X.rows;
  const parts = await Promise.all(
    Array.from({ length: threads }, (_, t) => {
      const X = slice(job.X, Math.floor((t * n) / threads), Math.floor(((t + 1) * n) / threads));
      return new Promise<ShapleyValues>((resolve, reject) => {
        const w = new Worker(__filename, { workerData: { ...job, X } });
        w.once('message', resolve);
        w.once('error', reject);
      });
    }),
  );
  const cat = (key: 'values' | 'output' | 'standardErrors'): Float64Array | undefined =>
    parts[0][key] ? Float64Array.from(parts.flatMap((p) => Array.from(p[key] as Float64Array))) : undefined;
  return {
    ...parts[0],
    values: cat('values') as Float64Array,
    output: cat('output') as Float64Array,
    standardErrors: cat('standardErrors'),
  };
}

async function main(): Promise<void> {
  const threads = Number(arg('threads', '2'));
  const reps = Number(arg('reps', '3'));
  const rows = Number(arg('rows', '1000'));
  const only = arg('only', '')
    .split(',')
    .filter((s) => s !== '');
  console.log(
    `explaining ${rows} predictions of a ${FEATURES}-feature signature per model kind, ${BACKGROUND} background rows, ` +
      `${threads} threads, median of ${reps}; ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(2)}`,
  );
  console.log('kind                          method       seconds  cpu/thr  rows/s  max|sum-out|  max SE/spread  target');
  const rng = new Rng(2026);
  const train = synthetic(TRAIN, rng);
  const test = synthetic(rows, rng);
  const background = slice(train.X, 0, BACKGROUND);
  for (const kind of KINDS) {
    if (only.length && !only.some((o) => kind.name.toLowerCase().includes(o.toLowerCase()))) continue;
    const model = kind.fit(train.X, train.signal, new Rng(7));
    const job: Job = { model: model.toJSON(), X: test.X, background };
    const times: number[] = [];
    const cpus: number[] = [];
    let sv: ShapleyValues | undefined;
    for (let r = 0; r < reps; r++) {
      const t0 = process.hrtime.bigint();
      const c0 = process.cpuUsage();
      sv = await explainIn(threads, job);
      const c = process.cpuUsage(c0);
      times.push(Number(process.hrtime.bigint() - t0) / 1e9);
      cpus.push((c.user + c.system) / 1e6);
    }
    const s = sv as ShapleyValues;
    const median = (v: number[]): number => v.sort((a, b) => a - b)[Math.floor(v.length / 2)];
    const seconds = median(times);
    // CPU seconds over the threads: the wall time on otherwise idle cores
    const idle = median(cpus) / Math.max(1, threads);
    const { heads: H, players: M } = s;
    let gap = 0;
    for (let i = 0; i < rows; i++)
      for (let h = 0; h < H; h++) {
        let sum = s.base[h];
        for (let p = 0; p < M; p++) sum += s.values[(i * H + h) * M + p];
        gap = Math.max(gap, Math.abs(sum - s.output[i * H + h]));
      }
    let relSe = NaN;
    if (s.standardErrors) {
      // the spread: the standard deviation of each head's output over the background, the largest
      const bg = explain({ ...job, X: background });
      let spread = 0;
      for (let h = 0; h < H; h++) {
        const v = Array.from({ length: BACKGROUND }, (_, r) => bg.output[r * H + h]);
        const mean = v.reduce((a, b) => a + b, 0) / v.length;
        spread = Math.max(spread, Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / (v.length - 1)));
      }
      relSe = Math.max(...Array.from(s.standardErrors)) / spread;
    }
    const met = Math.min(seconds, idle) <= 10 && !(relSe >= 0.01) ? 'met' : 'MISSED';
    console.log(
      `${kind.name.padEnd(30)}${s.method.padEnd(13)}${seconds.toFixed(2).padStart(7)}  ${idle.toFixed(2).padStart(8)}  ${Math.round(
        rows / seconds,
      )
        .toString()
        .padStart(6)}  ${gap.toExponential(1).padStart(12)}  ${(Number.isNaN(relSe) ? '-' : relSe.toFixed(4)).padStart(13)}  ${met}`,
    );
  }
  console.log(`load at the end ${os.loadavg()[0].toFixed(2)}`);
}
