/**
 * Engine benchmark: for each shared dataset and thoroughness, a 30% stratified hold-out, runAnalysis on
 * the rest, then the best pipeline on the held-out part; plus a synthetic 200 x 20,000 dataset at
 * preliminary, and the synthetic-truth datasets (200 x 1,000 noise features, 5 causes, 2 near-copies of cause1;
 * classification, regression, survival) at typical with the signatures they recover. Prints configurations,
 * fits, wall time, peak RSS (the process, worker threads included), the BBC-CV estimate with its 95% interval,
 * and held-out performance.
 *
 *   npm run build && node dist/bench/engine.bench.js [--threads 2] [--levels preliminary,typical] [--datasets lung,iris] [--no-synthetic] [--no-truth]
 */
import * as os from 'node:os';
import { runAnalysis } from '../src/engine';
import { metricNames } from '../src/engine/metrics';
import type { AnalysisOutput, AnalysisParameters, EngineDataset, Outcome, Thoroughness } from '../src/engine/types';
import { heldOutPerformance, holdout, loadShared, parameters, SHARED_DATASETS } from './engine-datasets';
import { syntheticWide } from './synthetic-shapes';
import { causeOf, SYNTHETIC_OUTCOMES, syntheticTruth } from './synthetic-truth';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const threads = Number(arg('threads', String(os.cpus().length)));
const levels = arg('levels', 'preliminary,typical').split(',') as Thoroughness[];
const only = arg('datasets', SHARED_DATASETS.map((d) => d.name).join(',')).split(',');
const synthetic = !process.argv.includes('--no-synthetic');
const truth = !process.argv.includes('--no-truth');

interface Row {
  dataset: string;
  level: Thoroughness;
  configurations: number;
  dropped: number;
  fits: number;
  seconds: number;
  peakRssMb: number;
  metric: string;
  estimate: number;
  ci: [number, number];
  heldOut: number;
  model: string;
}

/** Runs an analysis while sampling RSS every 50 ms. */
async function measured(
  data: EngineDataset,
  params: AnalysisParameters,
): Promise<{ result: AnalysisOutput; seconds: number; peak: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  const t0 = process.hrtime.bigint();
  try {
    const result = await runAnalysis(data, params, { seed: 1, threads });
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, seconds, peak };
  } finally {
    clearInterval(timer);
  }
}

function row(
  dataset: string,
  level: Thoroughness,
  outcome: Outcome,
  m: { result: AnalysisOutput; seconds: number; peak: number },
  heldOut: number,
  classCount: number,
): Row {
  const task = 'classification' in outcome ? 'classification' : 'regression' in outcome ? 'regression' : 'survival';
  const metric = metricNames(task, classCount)[0];
  const best = m.result.models.best;
  return {
    dataset,
    level,
    configurations: m.result.stats.configurations,
    dropped: m.result.stats.dropped ?? 0,
    fits: m.result.stats.fits,
    seconds: m.seconds,
    peakRssMb: m.peak / 2 ** 20,
    metric,
    estimate: best.performance[metric],
    ci: best.performanceCis[metric],
    heldOut,
    model: best.model,
  };
}

/** n x p standard normal features; class = 1 when x0 + x1 - x2 + 0.5 x3 + noise > 0. */
function print(r: Row): void {
  const f = (v: number): string => v.toFixed(4);
  process.stdout.write(
    `${r.dataset.padEnd(16)} ${r.level.padEnd(11)} configs ${String(r.configurations).padStart(4)} (dropped ${String(r.dropped).padStart(3)})  fits ${String(r.fits).padStart(5)}  ` +
      `${r.seconds.toFixed(1).padStart(6)} s  peak RSS ${r.peakRssMb.toFixed(0).padStart(5)} MB  ${r.metric}: estimate ${f(r.estimate)} [${f(r.ci[0])}, ${f(r.ci[1])}]  held-out ${f(r.heldOut)}  | ${r.model}\n`,
  );
}

async function main(): Promise<void> {
  process.stdout.write(`signet engine benchmark: ${threads} threads, ${os.cpus().length} cores, node ${process.version}\n`);
  const rows: Row[] = [];
  for (const ds of SHARED_DATASETS.filter((d) => only.includes(d.name))) {
    const data = loadShared(ds.name);
    const { train, test } = holdout(data, ds.outcome, 0.3, 1);
    for (const level of levels) {
      const m = await measured(train, parameters(ds.outcome, level, threads));
      const r = row(
        ds.name,
        level,
        ds.outcome,
        m,
        heldOutPerformance(m.result.pipelines.best[0], test, ds.outcome),
        ds.name === 'iris' ? 3 : 2,
      );
      rows.push(r);
      print(r);
    }
  }
  if (synthetic) {
    const outcome: Outcome = { classification: 'class' };
    const train = syntheticWide(200, 20000, 11);
    const test = syntheticWide(100, 20000, 12);
    const m = await measured(train, parameters(outcome, 'preliminary', threads));
    const r = row('synthetic200x20k', 'preliminary', outcome, m, heldOutPerformance(m.result.pipelines.best[0], test, outcome), 2);
    rows.push(r);
    print(r);
    const best = m.result.models.best;
    process.stdout.write(
      `  ${best.featureSelection}\n  synthetic signature: ${best.signatures[0].join(', ')} (causes: g0, g1, g2, g3); ${best.signatureCount} signature(s) in all\n`,
    );
  }
  if (truth) {
    for (const task of ['classification', 'regression', 'survival'] as const) {
      const outcome = SYNTHETIC_OUTCOMES[task];
      const train = syntheticTruth(task, 200, 1000, 1);
      const test = syntheticTruth(task, 200, 1000, 2);
      const m = await measured(train, parameters(outcome, 'typical', threads));
      const r = row(`truth-${task}`, 'typical', outcome, m, heldOutPerformance(m.result.pipelines.best[0], test, outcome), 2);
      rows.push(r);
      print(r);
      const best = m.result.models.best;
      const found = new Set(best.signatures[0].map(causeOf).filter((c) => c !== undefined));
      process.stdout.write(
        `  ${best.featureSelection}\n  recovered ${found.size} of 5 causes, ${best.signatures[0].filter((f) => causeOf(f) === undefined).length} other features; ` +
          `${best.signatureCount} equivalent signatures in all, shown:\n${best.signatures.map((s) => `    ${s.join(', ')}\n`).join('')}`,
      );
    }
  }
  const withHeld = rows.filter((r) => !r.dataset.startsWith('synthetic') && !r.dataset.startsWith('truth'));
  if (withHeld.length > 0) {
    const gap = withHeld.reduce((s, r) => s + Math.abs(r.estimate - r.heldOut), 0) / withHeld.length;
    process.stdout.write(`mean |estimate - held-out| over shared datasets: ${gap.toFixed(4)}\n`);
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
