/**
 * The bootstraps of the AUC (BBC-CV's winner rule, BBCD-CV's drops, the refit plots): bootstrapMatrix of the mean
 * one-vs-rest AUC of `--sets` prediction sets of a 10-class outcome (1,258 samples, the digits shape), half with
 * continuous probabilities, half with probabilities in steps of 0.01 (a 100-tree forest's: many ties), on `--B`
 * bootstraps, on this thread. Prints the median of `--reps` runs and the values' checksum (the same before and after
 * a change that must not move them).
 *   npm run bench:bootstraps [-- --sets 20 --B 1000 --reps 5]
 *
 * Figures of 2026-11-29 (quiet machine, 20 sets, 1,000 bootstraps, 5 reps): an Evaluator per bootstrap (engine of
 * c7b34c2) median 0.735 s, blocks of bootstraps in WebAssembly SIMD 0.192 s, the same checksum; the whole process
 * alternated by farm-bench (five runs each): wall ratio 0.27, CPU ratio 0.30.
 */
import { bootstrapMatrix, MetricContext } from '../src/engine/bbc';
import { MEAN_AUC } from '../src/engine/metrics';
import { Rng } from '../src/engine/rng';

const arg = (name: string, d: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};

const N = 1258;
const K = 10;

/** n x K probabilities favouring each sample's class; `steps` rounds them to multiples of 1 / steps (ties). */
function probabilities(y: Float64Array, rng: Rng, steps: number): Float64Array {
  const p = new Float64Array(N * K);
  for (let i = 0; i < N; i++) {
    let sum = 0;
    for (let c = 0; c < K; c++) sum += p[i * K + c] = rng.next() + (c === y[i] ? 1.5 : 0);
    for (let c = 0; c < K; c++) {
      const q = p[i * K + c] / sum;
      p[i * K + c] = steps > 0 ? Math.round(q * steps) / steps : q;
    }
  }
  return p;
}

function main(): void {
  const setCount = arg('sets', 20);
  const B = arg('B', 1000);
  const reps = arg('reps', 5);
  const rng = new Rng(7);
  const y = Float64Array.from({ length: N }, (_, i) => i % K);
  const sets = Array.from({ length: setCount }, (_, j) => [probabilities(y, rng, j % 2 ? 100 : 0)]);
  const ctx: MetricContext = { outcome: { y }, classCount: K, units: Int32Array.from({ length: N }, (_, i) => i), unitCount: N };
  const times: number[] = [];
  let checksum = 0;
  for (let r = 0; r < reps; r++) {
    const started = process.hrtime.bigint();
    const { values } = bootstrapMatrix({ sets, metric: MEAN_AUC, ctx, draw: ctx, B, rng: new Rng(11) });
    times.push(Number(process.hrtime.bigint() - started) / 1e9);
    checksum = values.reduce((s, v) => s + v, 0);
  }
  times.sort((a, b) => a - b);
  console.log(
    `bootstrapMatrix, mean AUC: ${setCount} sets x ${K} classes x ${N} samples x ${B} bootstraps: median ${times[Math.floor(reps / 2)].toFixed(3)} s of ${reps}; checksum ${checksum.toPrecision(15)}`,
  );
}

main();
