/**
 * Issue 24's check of calibration: on the shared classification datasets, the expected calibration error of the final
 * probabilities on held-out data, beside scikit-learn's LogisticRegression's on the same samples. For each dataset,
 * `--splits` stratified 70/30 splits: an analysis (`--thoroughness`, preliminary by default) on the 70%, its best
 * model's probabilities of the 30%, and LogisticRegression (its defaults, on standardized features; bench/sklearn_fits.py)
 * fitted on the same 70%. Both are scored by src/engine/calibration.ts's calibrationReport (10 bins of width 0.1; the
 * positive class of two, the mean over the classes one-vs-rest of more), with the Brier score beside it.
 * Prints per split and per dataset: the mean ECE and Brier of both, on how many splits ours is no worse, and on how
 * many the best model was calibrated (Platt).
 *
 *   npm run bench:calibration [-- --splits 10] [--thoroughness typical] [--datasets breast_cancer,iris] [--threads 2] [--python python3]
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { predict, runAnalysis } from '../src/engine';
import { calibrationReport, CalibrationReport } from '../src/engine/calibration';
import type { EngineDataset, Thoroughness } from '../src/engine/types';
import { holdout, loadShared, parameters, SHARED_DATASETS } from './engine-datasets';
import { findPython } from './python';

const BENCH_DIR = __filename.endsWith('.ts') ? __dirname : path.resolve(__dirname, '../../bench');

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The class index (in `classes`) of each sample of `data`'s outcome column. */
function labels(data: EngineDataset, outcome: string, classes: string[]): Float64Array {
  const c = data.columns.find((x) => x.name === outcome);
  if (!c || !('codes' in c)) throw new Error(`${outcome} is not a categorical column`);
  return Float64Array.from(c.codes, (code) => classes.indexOf(c.levels[code]));
}

/** `data`'s numerical features (every numerical column but the outcome) and the class index, as a CSV without header. */
function writeMatrix(file: string, data: EngineDataset, y: Float64Array): void {
  const features = data.columns.filter((c) => c.type === 'numerical' && 'values' in c) as { values: Float64Array }[];
  const lines = Array.from(y, (label, i) => [...features.map((c) => c.values[i]), label].join(','));
  fs.writeFileSync(file, lines.join('\n') + '\n');
}

interface Scores {
  ours: CalibrationReport;
  sklearn: CalibrationReport;
  /** the calibration of the best model (platt, isotonic), if it was calibrated */
  calibrated?: string;
}

async function split(
  python: string,
  dir: string,
  data: EngineDataset,
  outcome: string,
  s: number,
  thoroughness: Thoroughness,
  threads: number,
): Promise<Scores> {
  const { train, test } = holdout(data, { classification: outcome }, 0.3, s);
  const result = await runAnalysis(train, parameters({ classification: outcome }, thoroughness, threads), { seed: s, threads });
  const pipeline = result.pipelines.best[0];
  const { classes } = pipeline;
  const K = classes.length;
  const y = labels(test, outcome, classes);
  const rows = predict(pipeline, test);
  const ours = Float64Array.from(rows.flatMap((r) => classes.map((c) => (r.probabilities as Record<string, number>)[c])));

  const trainFile = path.join(dir, `train-${s}.csv`);
  const testFile = path.join(dir, `test-${s}.csv`);
  writeMatrix(trainFile, train, labels(train, outcome, classes));
  writeMatrix(testFile, test, y);
  const run = spawnSync(python, [path.join(BENCH_DIR, 'sklearn_fits.py'), '--probabilities', trainFile, testFile], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`scikit-learn failed: ${run.stderr}`);
  const theirs = Float64Array.from((JSON.parse(run.stdout) as number[][]).flat());
  return {
    ours: calibrationReport(ours, y, K),
    sklearn: calibrationReport(theirs, y, K),
    calibrated: result.models.best.calibration?.method,
  };
}

async function main(): Promise<void> {
  const splits = Number(arg('splits', '10'));
  const thoroughness = arg('thoroughness', 'preliminary') as Thoroughness;
  const threads = Number(arg('threads', String(os.cpus().length)));
  const only = arg('datasets', 'breast_cancer,iris').split(',');
  const python = findPython(arg('python', ''));
  if (!python) throw new Error('this bench needs python3 with scikit-learn (Debian: apt-get install python3-sklearn)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-calibration-bench-'));
  console.log(`held-out calibration: ${thoroughness}, ${splits} x 70/30 splits, ${threads} threads, load ${os.loadavg()[0].toFixed(1)}`);
  try {
    for (const ds of SHARED_DATASETS.filter((d) => only.includes(d.name) && 'classification' in d.outcome)) {
      const outcome = (ds.outcome as { classification: string }).classification;
      const data = loadShared(ds.name);
      const scores: Scores[] = [];
      console.log(`\n${ds.name}: split  ECE ours  ECE sklearn  Brier ours  Brier sklearn  calibrated`);
      for (let s = 1; s <= splits; s++) {
        const r = await split(python, dir, data, outcome, s, thoroughness, threads);
        scores.push(r);
        const f = (v: number, w: number): string => v.toFixed(4).padStart(w);
        console.log(
          `${' '.repeat(ds.name.length)}  ${String(s).padStart(5)}  ${f(r.ours.ece, 8)}  ${f(r.sklearn.ece, 11)}  ${f(r.ours.brier, 10)}  ${f(r.sklearn.brier, 13)}  ${r.calibrated ?? ''}`,
        );
      }
      const ece = (k: 'ours' | 'sklearn'): number => mean(scores.map((r) => r[k].ece));
      const brier = (k: 'ours' | 'sklearn'): number => mean(scores.map((r) => r[k].brier));
      console.log(
        `${ds.name} mean: ECE ours ${ece('ours').toFixed(4)}, sklearn ${ece('sklearn').toFixed(4)}; Brier ours ${brier('ours').toFixed(4)}, ` +
          `sklearn ${brier('sklearn').toFixed(4)}; ours no worse on ${scores.filter((r) => r.ours.ece <= r.sklearn.ece).length} of ${splits} ` +
          `splits; calibrated on ${scores.filter((r) => r.calibrated).length} (isotonic ${scores.filter((r) => r.calibrated === 'isotonic').length})`,
      );
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e: Error) => {
    console.error(e);
    process.exit(1);
  },
);
