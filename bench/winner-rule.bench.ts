/**
 * The evidence for the winner rule (src/engine/winner.ts): on repeated stratified 70/30 splits, the analysis's own
 * cross-validation on the 70%, then the configuration each candidate rule would pick, refitted on the 70% as the
 * analysis refits its winner (selection on every training sample, the model, its calibration map) and scored on the
 * 30%. Rules, all on the pooled out-of-fold values the leaderboard shows and the standard errors of the leader's lead
 * (the same bootstraps as BBC-CV):
 *   leader       the highest pooled value
 *   1se          the simplest configuration within one standard error of the leader (features, family, flexibility)
 *   0.5se        the same within half a standard error
 *   1se-family   within one standard error, the more interpretable family first, then the fewest features
 *   ll-se        (classification) 1se, then among those only the configurations whose log loss is within one standard
 *                error of the lowest of them (the engine's rule)
 *   ll-res       (classification) ll-se, with log-loss differences below (K - 1) / n not told apart
 * and the same rules among the interpretable configurations. Prints, per dataset, the mean held-out value of each and
 * its mean paired difference from the leader's (with the standard error of that mean), how often each rule picked
 * a configuration other than the leader, and for classification the mean held-out log loss of each.
 *
 *   npm run bench:winner-rule [-- --splits 10] [--datasets lung,iris] [--threads 2] [--extra DIR]
 */
import * as os from 'node:os';
import { crossValidate } from '../src/engine/analysis/cross-validation';
import { refitOnAllSamples } from '../src/engine/analysis/final-models';
import { startRun } from '../src/engine/analysis/run';
import { calibrateConfigurations, chooseWinners } from '../src/engine/analysis/winners';
import type { Configuration } from '../src/engine/grid';
import type { EngineDataset, Outcome, SavedPipeline } from '../src/engine/types';
import { familyOf, flexibility } from '../src/engine/winner';
import { predict } from '../src/engine';
import { heldOutPerformance, holdout, parameters, qualityDatasets } from './engine-datasets';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const FAMILY_ORDER = ['linear', 'tree', 'svm-linear', 'forest', 'svm-rbf'];

type Order = (a: Configuration, b: Configuration) => number;

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const sem = (xs: number[]): number => Math.sqrt(xs.reduce((s, x) => s + (x - mean(xs)) ** 2, 0) / (xs.length - 1) / xs.length);

async function main(): Promise<void> {
  const splits = Number(arg('splits', '10'));
  const threads = Number(arg('threads', String(os.cpus().length)));
  const all = qualityDatasets(arg('extra', ''));
  const only = arg('datasets', all.map((d) => d.name).join(',')).split(',');
  const rules = ['leader', '1se', '0.5se', '1se-family', 'll-se', 'll-res'];
  console.log(`winner rules: typical, ${splits} x 70/30 splits, ${threads} threads`);
  for (const ds of all.filter((d) => only.includes(d.name))) {
    const data = ds.load();
    const held: Record<string, number[]> = Object.fromEntries([...rules, ...rules.map((r) => `interp:${r}`)].map((r) => [r, []]));
    const heldLoss: Record<string, number[]> = Object.fromEntries([...rules, ...rules.map((r) => `interp:${r}`)].map((r) => [r, []]));
    for (let s = 1; s <= splits; s++) {
      const { train, test } = holdout(data, ds.outcome, 0.3, s);
      const run = startRun(train, parameters(ds.outcome, 'typical', threads), { seed: s, threads });
      try {
        const cv = await crossValidate(run);
        const calibrations = await calibrateConfigurations(run, cv);
        const winners = await chooseWinners(run, cv);
        const { aliveList, pooledOf, meanSize, rule, standings, inBagLoss } = winners;
        const rank = Int32Array.from(aliveList, (c) => (standings.get(c)?.simplicityRank as number) - 1);
        const losses = Float64Array.from(aliveList, (c) => standings.get(c)?.logLoss ?? NaN);
        const { n, classes } = run.prepared;
        /** among those tied on the metric, those within max(one standard error, `resolution`) of the lowest log loss: the simplest */
        const pickOnLoss = (resolution: number, among?: number[]): number => {
          const st = rule.standings(pooled, among, losses);
          const tied = st.tiedOnMetric.filter(
            (j) => Number.isFinite(losses[j]) && losses[j] - losses[st.bestLoss] <= Math.max(st.lossStandardErrors[j], resolution),
          );
          return aliveList[tied.reduce((a, j) => (rank[j] < rank[a] ? j : a), tied[0])];
        };
        const pooled = Float64Array.from(aliveList, (c) => pooledOf.get(c) as number);
        const size = (c: Configuration): number => Math.round(meanSize(c));
        const family = (c: Configuration): number => FAMILY_ORDER.indexOf(familyOf(c.model));
        const bySize: Order = (a, b) => size(a) - size(b) || family(a) - family(b) || flexibility(a.model) - flexibility(b.model);
        const byFamily: Order = (a, b) => family(a) - family(b) || size(a) - size(b) || flexibility(a.model) - flexibility(b.model);
        const pick = (band: number, order: Order | null, among?: number[]): number => {
          const { leader, standardErrors } = rule.standings(pooled, among);
          if (!order) return aliveList[leader];
          const tied = (among ?? aliveList.map((_, j) => j)).filter((j) => pooled[leader] - pooled[j] <= band * standardErrors[j]);
          const configs = tied.map((j) => run.configs[aliveList[j]]);
          const value = (c: Configuration): number => pooledOf.get(c.index) as number;
          configs.sort((a, b) => order(a, b) || value(b) - value(a) || a.index - b.index);
          return configs[0].index;
        };
        const interp = aliveList.map((_, j) => j).filter((j) => run.configs[aliveList[j]].interpretable);
        const choices: Record<string, number> = {};
        const choose = (prefix: string, among?: number[]): void => {
          choices[`${prefix}leader`] = pick(0, null, among);
          choices[`${prefix}1se`] = pick(1, bySize, among);
          choices[`${prefix}0.5se`] = pick(0.5, bySize, among);
          choices[`${prefix}1se-family`] = pick(1, byFamily, among);
          if (inBagLoss) {
            choices[`${prefix}ll-se`] = pickOnLoss(0, among);
            choices[`${prefix}ll-res`] = pickOnLoss((classes.length - 1) / n, among);
          }
        };
        choose('');
        if (interp.length > 0) choose('interp:', interp);
        const distinct = [...new Set(Object.values(choices))];
        // the reference signatures' refits are what is compared (the equivalents' are left to the runner's close)
        const { reference, finals } = refitOnAllSamples(run, {
          ...winners,
          keyed: distinct.map((c) => ({ key: `c${c}`, config: run.configs[c], positions: [] })),
        });
        finals.catch(() => undefined);
        const { refits } = await reference;
        const pipelines = new Map(
          distinct.map((c, i) => {
            const map = calibrations.get(c)?.map;
            return [c, { ...(refits[i].pipeline as SavedPipeline), ...(map ? { calibration: map } : {}) }];
          }),
        );
        const heldOf = new Map(distinct.map((c) => [c, heldOutPerformance(pipelines.get(c) as SavedPipeline, test, ds.outcome)]));
        const lossOf = new Map(distinct.map((c) => [c, heldOutLogLoss(pipelines.get(c) as SavedPipeline, test, ds.outcome)]));
        for (const [r, c] of Object.entries(choices)) {
          held[r].push(heldOf.get(c) as number);
          heldLoss[r].push(lossOf.get(c) as number);
        }
        console.log(
          `  ${ds.name} split ${s}: ` +
            Object.entries(choices)
              .map(([r, c]) => `${r} ${(heldOf.get(c) as number).toFixed(4)}`)
              .join(', '),
        );
      } finally {
        run.progress.stop();
        await run.runner.close();
      }
    }
    for (const prefix of ['', 'interp:']) {
      const base = held[`${prefix}leader`];
      if (!base.length) continue;
      console.log(
        `${ds.name} ${prefix || 'all:'} ` +
          rules
            .map((r) => {
              const v = held[`${prefix}${r}`];
              const d = v.map((x, i) => x - base[i]);
              if (!v.length) return '';
              const ll = heldLoss[`${prefix}${r}`];
              const lossText = ll.every(Number.isFinite) ? `, log loss ${mean(ll).toFixed(4)}` : '';
              return `${r} ${mean(v).toFixed(4)} (${d.every((x) => x === 0) ? '=' : `${mean(d) >= 0 ? '+' : ''}${mean(d).toFixed(4)} +- ${sem(d).toFixed(4)}, ${d.filter((x) => x !== 0).length} differ`}${lossText})`;
            })
            .join('; '),
      );
    }
  }
}

/** The held-out log loss of a classification pipeline's probabilities (NaN for other outcomes). */
function heldOutLogLoss(pipeline: SavedPipeline, test: EngineDataset, outcome: Outcome): number {
  if (!('classification' in outcome)) return NaN;
  const c = test.columns.find((x) => x.name === outcome.classification);
  if (!c || !('codes' in c)) return NaN;
  const rows = predict(pipeline, test);
  return rows.reduce((s, r, i) => s - Math.log((r.probabilities as Record<string, number>)[c.levels[c.codes[i]]]), 0) / rows.length;
}

main().then(
  () => process.exit(0),
  (e: Error) => {
    console.error(e);
    process.exit(1);
  },
);
