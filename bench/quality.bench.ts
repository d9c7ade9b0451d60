/**
 * The repeated-split quality harness of issue 20 on the shared datasets: for each dataset, `--splits` stratified
 * 70/30 splits; `typical` on the 70%, then `best` and `interpretable` (when the result has one; else best) on the 30%.
 * Prints per dataset: mean held-out metric of best and of interpretable, their difference, the coverage of the 95%
 * BBC-CV interval (held-out value inside it), the median size of best's reference signature, the mean
 * |estimate - held-out| and the mean estimate - held-out (bias), and the winning selectors.
 *
 *   npm run bench:quality [-- --splits 10] [--datasets lung,iris] [--threads 2]
 */
import * as os from 'node:os';
import { runAnalysis } from '../src/engine';
import { metricNames } from '../src/engine/metrics';
import { heldOutPerformance, holdout, loadShared, parameters, SHARED_DATASETS } from './engine-datasets';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main(): Promise<void> {
  const splits = Number(arg('splits', '10'));
  const threads = Number(arg('threads', String(os.cpus().length)));
  const only = arg('datasets', SHARED_DATASETS.map((d) => d.name).join(',')).split(',');
  console.log(`signet quality harness: typical, ${splits} x 70/30 splits, ${threads} threads`);
  console.log('dataset          metric                      best   interp  best-int  coverage  median sig  |est-held|    bias  selectors');
  for (const ds of SHARED_DATASETS.filter((d) => only.includes(d.name))) {
    const data = loadShared(ds.name);
    const task = 'classification' in ds.outcome ? 'classification' : 'regression' in ds.outcome ? 'regression' : 'survival';
    const metric = metricNames(task, ds.name === 'iris' ? 3 : 2)[0];
    const best: number[] = [];
    const interp: number[] = [];
    const sizes: number[] = [];
    const errors: number[] = [];
    const inside: boolean[] = [];
    const selectors = new Map<string, number>();
    for (let s = 1; s <= splits; s++) {
      const { train, test } = holdout(data, ds.outcome, 0.3, s);
      const result = await runAnalysis(train, parameters(ds.outcome, 'typical', threads), { seed: s, threads });
      const b = result.models.best;
      const held = heldOutPerformance(result.pipelines.best[0], test, ds.outcome);
      best.push(held);
      interp.push(result.pipelines.interpretable ? heldOutPerformance(result.pipelines.interpretable[0], test, ds.outcome) : held);
      sizes.push(b.signatures[0].length);
      errors.push(b.performance[metric] - held);
      inside.push(b.performanceCis[metric][0] <= held && held <= b.performanceCis[metric][1]);
      const sel = b.featureSelection.split(':')[0];
      selectors.set(sel, (selectors.get(sel) ?? 0) + 1);
    }
    const f = (v: number): string => v.toFixed(4).padStart(7);
    console.log(
      `${ds.name.padEnd(16)} ${metric.padEnd(26)} ${f(mean(best))}  ${f(mean(interp))}  ${f(mean(best) - mean(interp))}  ${`${((100 * inside.filter(Boolean).length) / splits).toFixed(0)}%`.padStart(8)}  ${String(median(sizes)).padStart(10)}  ${f(mean(errors.map(Math.abs)))}  ${f(mean(errors))}  ${[...selectors].map(([k, v]) => `${k} ${v}`).join(', ')}`,
    );
  }
}

void main();
