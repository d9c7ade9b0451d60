/**
 * The repeated-split quality harness: for each dataset, `--splits` stratified 70/30 splits; an analysis
 * (`--thoroughness`, typical by default) on the 70%, then `best` and `interpretable` (best when the result has none)
 * scored on the 30%, beside the peers fitted on the same 70% (scikit-learn's LogisticRegression, LogisticRegressionCV
 * and a 500-tree random forest for classification, RidgeCV and the forest for regression, through Debian's
 * python3-sklearn and bench/quality_peers.py; R's coxph for survival, through bench/quality_peers.R; each where
 * installed).
 *
 * Prints per dataset: the mean held-out primary metric of best, of interpretable and of the best peer; the coverage of
 * best's 95% interval (the held-out value inside it); the mean |estimate - held-out| and the bias (estimate -
 * held-out); for classification the held-out log loss and Brier score of best's probabilities beside the logistic
 * regression's, the largest |AUC calibrated - AUC uncalibrated| of best's held-out probabilities (equal for two
 * classes: the map is increasing; for more classes the calibrated one must not be lower) and the count of
 * probabilities of exactly 0 or 1. Then the coverage over every analysis and the bias per outcome type, and what the
 * held-out rows' own sampling allows (noiseFloor): the held-out value's bootstrap standard error, the floor it puts
 * under mean |estimate - held-out| and the coverage an exactly right 95% interval would have.
 *
 *   npm run bench:quality [-- --splits 10] [--datasets lung,iris] [--threads 2] [--thoroughness typical]
 *                         [--extra DIR] [--json FILE] [--no-peers]
 *
 * --extra DIR adds the datasets of DIR/manifest.json ([{ name, file, outcome, types? }]), such as those
 * tools/make-quality-datasets.sh writes (scikit-learn's wine and 10-class digits, R's Boston, pbc and veteran);
 * --json FILE writes every split's figures.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { predict, runAnalysis } from '../src/engine';
import { logChiSquareSurvival } from '../src/engine/distributions';
import { computeMetrics, metricNames } from '../src/engine/metrics';
import type { EngineDataset, Outcome, SavedPipeline, Thoroughness } from '../src/engine/types';
import { heldOutPerformance, heldOutScorer, heldOutStandardError, holdout, parameters, qualityDatasets, taskOf } from './engine-datasets';
import { findPython } from './python';

/** bootstrap resamples of the held-out rows for each split's held-out standard error */
const HELD_OUT_BOOTSTRAPS = 500;

const BENCH_DIR = __filename.endsWith('.ts') ? __dirname : path.resolve(__dirname, '../../bench');

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

function outcomeColumns(outcome: Outcome): string[] {
  if ('classification' in outcome) return [outcome.classification];
  if ('regression' in outcome) return [outcome.regression];
  return [outcome.survival.timeToEvent, outcome.survival.event];
}

/**
 * `data` as the peers read it: a header, the design (numerical columns as they are, one column per level of a
 * categorical one, the levels of `train`; empty cells missing), then the outcome column(s): the class index in
 * `classes`, the value, or time and event.
 */
function writeDesign(file: string, data: EngineDataset, train: EngineDataset, outcome: Outcome, classes: string[]): void {
  const skip = new Set(outcomeColumns(outcome));
  const header: string[] = [];
  const cols: ((i: number) => string)[] = [];
  train.columns.forEach((c, k) => {
    if (skip.has(c.name) || c.type === 'identifier') return;
    const d = data.columns[k];
    if ('values' in d) {
      header.push(c.name);
      cols.push((i) => (Number.isNaN(d.values[i]) ? '' : String(d.values[i])));
    } else if ('codes' in c && 'codes' in d) {
      for (const level of c.levels) {
        header.push(`${c.name}=${level}`);
        cols.push((i) => (d.codes[i] < 0 ? '' : d.levels[d.codes[i]] === level ? '1' : '0'));
      }
    }
  });
  for (const name of outcomeColumns(outcome)) {
    const c = data.columns.find((x) => x.name === name);
    if (!c) throw new Error(`no column ${name}`);
    header.push(name);
    if ('codes' in c) {
      if ('classification' in outcome) cols.push((i) => String(classes.indexOf(c.levels[c.codes[i]])));
      else cols.push((i) => String(Number(c.levels[c.codes[i]] !== c.levels[0])));
    } else if (c.type === 'event') cols.push((i) => String(c.values[i] === Math.max(...c.values.filter((v) => !Number.isNaN(v))) ? 1 : 0));
    else cols.push((i) => String(c.values[i]));
  }
  const lines = [header.map((h) => JSON.stringify(h)).join(',')];
  for (let i = 0; i < data.sampleCount; i++) lines.push(cols.map((f) => f(i)).join(','));
  fs.writeFileSync(file, lines.join('\n') + '\n');
}

interface PeerScores {
  metric: Record<string, number>;
  logLoss?: Record<string, number>;
  brier?: Record<string, number>;
}

function runPeers(tools: { python: string | null; r: boolean }, task: string, trainFile: string, testFile: string): PeerScores {
  const run =
    task === 'survival'
      ? tools.r
        ? spawnSync('Rscript', [path.join(BENCH_DIR, 'quality_peers.R'), trainFile, testFile], { encoding: 'utf8' })
        : null
      : tools.python
        ? spawnSync(tools.python, [path.join(BENCH_DIR, 'quality_peers.py'), task, trainFile, testFile], { encoding: 'utf8' })
        : null;
  if (!run) return { metric: {} };
  if (run.status !== 0) throw new Error(`peers failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as PeerScores;
}

/** The class index of each sample of `data`'s outcome column in `classes`. */
function labels(data: EngineDataset, outcome: string, classes: string[]): Float64Array {
  const c = data.columns.find((x) => x.name === outcome);
  if (!c || !('codes' in c)) throw new Error(`${outcome} is not a categorical column`);
  return Float64Array.from(c.codes, (code) => classes.indexOf(c.levels[code]));
}

interface ProbabilityFacts {
  logLoss: number;
  brier: number;
  /** probabilities of exactly 0 or 1 */
  zeroOne: number;
  /** primary metric of the probabilities without the calibration map minus with it */
  calibrationCost: number;
  /** log loss of the model's own probabilities (floored, without the calibration map) */
  logLossUncalibrated: number;
}

function probabilityFacts(pipeline: SavedPipeline, test: EngineDataset, outcome: string): ProbabilityFacts {
  const { classes } = pipeline;
  const K = classes.length;
  const y = labels(test, outcome, classes);
  const probs = (p: SavedPipeline): Float64Array =>
    Float64Array.from(predict(p, test).flatMap((r) => classes.map((c) => (r.probabilities as Record<string, number>)[c])));
  const p = probs(pipeline);
  const metric = metricNames('classification', K)[0];
  const auc = (q: Float64Array): number => computeMetrics('classification', q, { y }, K)[metric];
  const own = pipeline.calibration ? probs({ ...pipeline, calibration: undefined }) : p;
  const uncalibrated = auc(own);
  let logLoss = 0;
  let logLossUncalibrated = 0;
  let brier = 0;
  for (let i = 0; i < y.length; i++) {
    logLoss -= Math.log(p[i * K + y[i]]) / y.length;
    logLossUncalibrated -= Math.log(own[i * K + y[i]]) / y.length;
    if (K === 2) brier += (p[i * 2 + 1] - (y[i] === 1 ? 1 : 0)) ** 2 / y.length;
    else for (let c = 0; c < K; c++) brier += (p[i * K + c] - (y[i] === c ? 1 : 0)) ** 2 / y.length;
  }
  return {
    logLoss,
    brier,
    zeroOne: p.filter((v) => v === 0 || v === 1).length,
    calibrationCost: uncalibrated - auc(p),
    logLossUncalibrated,
  };
}

interface SplitRecord {
  dataset: string;
  task: string;
  metric: string;
  split: number;
  seconds: number;
  best: {
    held: number;
    /** the held-out value's standard error from the held-out rows' sampling alone (heldOutStandardError) */
    heldSe: number;
    estimate: number;
    ci: [number, number];
    model: string;
    calibration?: string;
  } & Partial<ProbabilityFacts>;
  interpretable: { held: number } & Partial<ProbabilityFacts>;
  peers: PeerScores;
}

async function main(): Promise<void> {
  const splits = Number(arg('splits', '10'));
  const threads = Number(arg('threads', String(os.cpus().length)));
  const thoroughness = arg('thoroughness', 'typical') as Thoroughness;
  const all = qualityDatasets(arg('extra', ''));
  const only = arg('datasets', all.map((d) => d.name).join(',')).split(',');
  const noPeers = process.argv.includes('--no-peers');
  const tools = {
    python: noPeers ? null : findPython(arg('python', '')),
    r: !noPeers && spawnSync('Rscript', ['-e', 'library(survival)'], { stdio: 'ignore' }).status === 0,
  };
  const jsonFile = arg('json', '');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-quality-'));
  const records: SplitRecord[] = [];
  console.log(
    `signet quality harness: ${thoroughness}, ${splits} x 70/30 splits, ${threads} threads; peers: ${tools.python ? 'scikit-learn' : 'no scikit-learn'}, ${tools.r ? 'R' : 'no R'}`,
  );
  try {
    for (const ds of all.filter((d) => only.includes(d.name))) {
      const data = ds.load();
      const task = taskOf(ds.outcome);
      for (let s = 1; s <= splits; s++) {
        const { train, test } = holdout(data, ds.outcome, 0.3, s);
        const started = Date.now();
        const result = await runAnalysis(train, parameters(ds.outcome, thoroughness, threads), { seed: s, threads });
        const seconds = (Date.now() - started) / 1000;
        const b = result.models.best;
        const metric = Object.keys(b.performance)[0];
        const bestPipeline = result.pipelines.best[0];
        const interpPipeline = (result.pipelines.interpretable ?? result.pipelines.best)[0];
        const classes = bestPipeline.classes;
        const facts = (p: SavedPipeline): Partial<ProbabilityFacts> =>
          task === 'classification' ? probabilityFacts(p, test, (ds.outcome as { classification: string }).classification) : {};
        const trainFile = path.join(dir, 'train.csv');
        const testFile = path.join(dir, 'test.csv');
        writeDesign(trainFile, train, train, ds.outcome, classes);
        writeDesign(testFile, test, train, ds.outcome, classes);
        const scoreBest = heldOutScorer(bestPipeline, test, ds.outcome);
        const record: SplitRecord = {
          dataset: ds.name,
          task,
          metric,
          split: s,
          seconds,
          best: {
            held: scoreBest(),
            heldSe: heldOutStandardError(scoreBest, test.sampleCount, HELD_OUT_BOOTSTRAPS, s),
            estimate: b.performance[metric],
            ci: b.performanceCis[metric],
            model: b.model,
            ...(b.calibration?.method ? { calibration: b.calibration.method } : {}),
            ...facts(bestPipeline),
          },
          interpretable: { held: heldOutPerformance(interpPipeline, test, ds.outcome), ...facts(interpPipeline) },
          peers: runPeers(tools, task, trainFile, testFile),
        };
        records.push(record);
        const f = (v: number | undefined): string => (v === undefined ? '' : v.toFixed(4));
        const peerText = Object.entries(record.peers.metric)
          .map(([k, v]) => `${k} ${f(v)}`)
          .join(', ');
        console.log(
          `  ${ds.name} split ${s}: best ${f(record.best.held)} [${f(record.best.ci[0])}, ${f(record.best.ci[1])}] est ${f(record.best.estimate)}` +
            ` interp ${f(record.interpretable.held)}` +
            (task === 'classification'
              ? ` logloss ${f(record.best.logLoss)} (own ${f(record.best.logLossUncalibrated)}, LR ${f(record.peers.logLoss?.LogisticRegression)}) 0/1 ${record.best.zeroOne}` +
                ` cal-cost ${(record.best.calibrationCost ?? 0).toExponential(1)} ${record.best.calibration ?? ''}`
              : '') +
            `; ${peerText}; ${seconds.toFixed(1)} s; ${record.best.model}`,
        );
      }
      summarise(records.filter((r) => r.dataset === ds.name));
    }
    console.log('\nsummary');
    console.log(
      'dataset          metric                        best   interp  best peer                      best-peer  best-int  coverage  |est-held|     bias  logloss (LR)      max cal-cost  0/1  seconds',
    );
    for (const name of [...new Set(records.map((r) => r.dataset))]) summaryRow(records.filter((r) => r.dataset === name));
    const covered = records.filter(inside).length;
    console.log(`coverage of the 95% intervals: ${covered} of ${records.length} (${((100 * covered) / records.length).toFixed(0)}%)`);
    for (const task of ['classification', 'regression', 'survival']) {
      const rs = records.filter((r) => r.task === task);
      if (rs.length === 0) continue;
      const errors = rs.map((r) => r.best.estimate - r.best.held);
      console.log(
        `${task}: coverage ${rs.filter(inside).length} of ${rs.length}, mean |estimate - held-out| ${mean(errors.map(Math.abs)).toFixed(4)}, bias ${mean(errors).toFixed(4)}`,
      );
    }
    noiseFloor(records);
    if (jsonFile) fs.writeFileSync(jsonFile, JSON.stringify(records, null, 1));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What the held-out rows' own sampling allows, per dataset and outcome type: a held-out value is the model's expected
 * performance plus the noise of its held-out rows (standard error heldSe), so even an estimate equal to that expected
 * performance is sqrt(2 / pi) x heldSe from it on average (the floor under mean |estimate - held-out|), and an
 * interval that is exactly a 95% interval for it (taken as normal, its standard error the interval's width / 3.92)
 * covers the held-out value with probability 2 Phi(1.96 s / sqrt(s^2 + heldSe^2)) - 1 (below 95% whenever the
 * held-out rows are noisier than the estimate). Means over the splits, beside what was measured.
 */
/** The standard error a 95% interval's width implies, taken as normal (width / 3.92). */
const intervalSe = (r: SplitRecord): number => (r.best.ci[1] - r.best.ci[0]) / (2 * 1.96);

function noiseFloor(records: SplitRecord[]): void {
  const floor = (rs: SplitRecord[]): number => mean(rs.map((r) => Math.sqrt(2 / Math.PI) * r.best.heldSe));
  const exactCoverage = (rs: SplitRecord[]): number =>
    mean(
      rs.map((r) => {
        const s = intervalSe(r);
        // a point interval and a held-out value without noise (an AUC of 1 on every resample): both exact
        if (s === 0) return r.best.heldSe === 0 ? 1 : 0;
        const z = (1.96 * s) / Math.sqrt(s * s + r.best.heldSe ** 2);
        return 1 - Math.exp(logChiSquareSurvival(z * z, 1));
      }),
    );
  const f = (v: number): string => v.toFixed(4).padStart(8);
  console.log('\nwhat the held-out rows allow (held-out noise alone; bench/quality.bench.ts noiseFloor)');
  console.log('dataset            held SE  |est-held|  its floor  interval SE  coverage  coverage of an exact interval');
  const row = (name: string, rs: SplitRecord[]): void => {
    const errors = rs.map((r) => Math.abs(r.best.estimate - r.best.held));
    const se = mean(rs.map(intervalSe));
    console.log(
      `${name.padEnd(16)} ${f(mean(rs.map((r) => r.best.heldSe)))}  ${f(mean(errors))}   ${f(floor(rs))}    ${f(se)}  ${`${rs.filter(inside).length}/${rs.length}`.padStart(8)}  ${(100 * exactCoverage(rs)).toFixed(0).padStart(5)}%`,
    );
  };
  for (const name of [...new Set(records.map((r) => r.dataset))])
    row(
      name,
      records.filter((r) => r.dataset === name),
    );
  for (const task of ['classification', 'regression', 'survival']) {
    const rs = records.filter((r) => r.task === task);
    if (rs.length > 0) row(`(${task})`, rs);
  }
  row('(all)', records);
}

const inside = (r: SplitRecord): boolean => r.best.ci[0] <= r.best.held && r.best.held <= r.best.ci[1];

function summarise(rs: SplitRecord[]): void {
  console.log(
    'dataset          metric                        best   interp  best peer                      best-peer  best-int  coverage  |est-held|     bias  logloss (LR)      max cal-cost  0/1  seconds',
  );
  summaryRow(rs);
}

function summaryRow(rs: SplitRecord[]): void {
  const f = (v: number): string => (Number.isFinite(v) ? v.toFixed(4) : '-').padStart(7);
  const peerNames = [...new Set(rs.flatMap((r) => Object.keys(r.peers.metric)))];
  const peerMeans = peerNames.map((p) => [p, mean(rs.map((r) => r.peers.metric[p]))] as const);
  const [peerName, peerMean] = peerMeans.reduce((a, b) => (b[1] > a[1] ? b : a), ['-', -Infinity] as readonly [string, number]);
  const best = mean(rs.map((r) => r.best.held));
  const errors = rs.map((r) => r.best.estimate - r.best.held);
  const classification = rs[0].task === 'classification';
  console.log(
    `${rs[0].dataset.padEnd(16)} ${rs[0].metric.padEnd(28)} ${f(best)}  ${f(mean(rs.map((r) => r.interpretable.held)))}  ${`${peerName} ${f(peerMean)}`.padEnd(29)}  ` +
      `${f(best - peerMean)}  ${f(best - mean(rs.map((r) => r.interpretable.held)))}  ${`${rs.filter(inside).length}/${rs.length}`.padStart(8)}  ` +
      `${f(mean(errors.map(Math.abs)))}  ${f(mean(errors))}  ` +
      (classification
        ? `${f(mean(rs.map((r) => r.best.logLoss as number)))} (${f(mean(rs.map((r) => r.peers.logLoss?.LogisticRegression ?? NaN)))})  ` +
          `${Math.max(...rs.map((r) => r.best.calibrationCost as number))
            .toExponential(1)
            .padStart(9)}  ${String(rs.reduce((s, r) => s + (r.best.zeroOne ?? 0), 0)).padStart(3)}`
        : ' '.repeat(38)) +
      `  ${mean(rs.map((r) => r.seconds))
        .toFixed(1)
        .padStart(7)}`,
  );
}

main().then(
  () => process.exit(0),
  (e: Error) => {
    console.error(e);
    process.exit(1);
  },
);
