/**
 * The family of synthetic truths (issue 20): for each outcome type x effect size x sample count x noise-feature count,
 * data with five causes, an exact and a near copy of cause1 (bench/synthetic-truth.ts), analysed at `typical`. Prints
 * per analysis: the causes found in the reference signature (of 5; a copy counts as cause1), the other features in
 * it, whether the copies appear only as equivalents (never beside cause1 in a shown signature, and shown as one of
 * its equivalents), the mean stability of the causes and of the other shown features, the winning selector and
 * model, and the time.
 *
 *   npm run bench:truth [-- --tasks classification,regression,survival] [--effects weak,medium,strong]
 *                       [--samples 200,1000] [--noise 1000,10000] [--threads 2] [--seed 1]
 */
import * as os from 'node:os';
import { runAnalysis } from '../src/engine';
import { causeOf, EFFECT_SIZES, SYNTHETIC_OUTCOMES, type SyntheticTask, syntheticTruth } from './synthetic-truth';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const tasks = arg('tasks', 'classification,regression,survival').split(',') as SyntheticTask[];
const effects = arg('effects', 'weak,medium,strong').split(',');
const samples = arg('samples', '200,1000').split(',').map(Number);
const noises = arg('noise', '1000,10000').split(',').map(Number);
const threads = Number(arg('threads', String(os.cpus().length)));
const seed = Number(arg('seed', '1'));

function mean(xs: number[]): string {
  return xs.length === 0 ? '   -' : (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(2);
}

async function main(): Promise<void> {
  console.log(
    `signet synthetic truths: typical, ${threads} threads, seed ${seed}; copies: cause1_copyA exact, cause1_copyB near (sd 0.05)`,
  );
  console.log(
    'task            effect     n  noise  causes  others  copies-as-equivalents  stab(causes)  stab(others)  seconds  selector | model',
  );
  for (const task of tasks)
    for (const effect of effects)
      for (const n of samples)
        for (const noise of noises) {
          const data = syntheticTruth(task, n, noise, seed, { effects: EFFECT_SIZES[effect], exactCopy: true });
          const t0 = process.hrtime.bigint();
          const result = await runAnalysis(
            data,
            {
              outcome: SYNTHETIC_OUTCOMES[task],
              modelsConsidered: 'all',
              featureSelection: 'mostRelevant',
              thoroughness: 'typical',
              coreCount: threads,
              maxSignatureSize: 25,
              maxVisualizedSignatureCount: 5,
            },
            { seed, threads },
          );
          const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
          const best = result.models.best;
          const reference = best.signatures[0];
          const causes = new Set(reference.map(causeOf).filter((c) => c !== undefined)).size;
          const others = reference.filter((f) => causeOf(f) === undefined).length;
          const beside = best.signatures.some((sig) => sig.filter((f) => causeOf(f) === 'cause1').length > 1);
          const cause1Shown = new Set(best.signatures.flatMap((sig) => sig.filter((f) => causeOf(f) === 'cause1'))).size;
          const copies = beside ? 'no (beside)' : cause1Shown >= 2 ? `yes (${cause1Shown} shown)` : 'not found';
          const shown = [...new Set(best.signatures.flat())];
          const stability = best.stability ?? {};
          const stabCauses = mean(shown.filter((f) => causeOf(f) !== undefined).map((f) => stability[f]));
          const stabOthers = mean(shown.filter((f) => causeOf(f) === undefined).map((f) => stability[f]));
          const selector = best.featureSelection
            .split(';')[0]
            .replace(/, (likelihood|Fisher).*$/, '')
            .slice(0, 60);
          console.log(
            `${task.padEnd(15)} ${effect.padEnd(7)} ${String(n).padStart(5)} ${String(noise).padStart(6)}  ${String(causes).padStart(4)}/5  ${String(others).padStart(6)}  ${copies.padEnd(21)}  ${stabCauses.padStart(12)}  ${stabOthers.padStart(12)}  ${seconds.toFixed(1).padStart(7)}  ${selector} | ${best.model.split(';')[0]}`,
          );
        }
}

void main();
