/**
 * Speed of the conditional-independence tests of SES: on a synthetic 200 x 20,000 design (standardized normal
 * features, the first 5 driving the outcome), for each outcome kind, 20,000 univariate tests and 20,000 tests
 * given |Z| = 2 (cycling over 10 conditioning sets, as SES tests many features against the same set).
 *
 *   npm run build && node dist/bench/independence.bench.js [--rows 200] [--features 20000]
 */
import { createIndependenceTest, type IndependenceTestInput } from '../src/engine/independence-tests';
import type { Task } from '../src/engine/metrics';
import type { Target } from '../src/engine/models/common';
import { Rng } from '../src/engine/rng';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? Number(process.argv[i + 1]) : fallback;
}

/** CPU time of the process in ms */
function cpu(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const n = arg('rows', 200);
const d = arg('features', 20000);
const rng = new Rng(1);
const data = new Float64Array(n * d);
for (let i = 0; i < n * d; i++) data[i] = rng.normal();
const signal = Float64Array.from(
  { length: n },
  (_, i) => data[i * d] + data[i * d + 1] - data[i * d + 2] + 0.5 * data[i * d + 3] + 0.5 * data[i * d + 4],
);
const noise = Float64Array.from({ length: n }, () => rng.normal());

const outcomes: [string, Task, Target][] = [
  ['regression', 'regression', { y: Float64Array.from(signal, (s, i) => s + noise[i]) }],
  ['classification, 2 classes', 'classification', { y: Float64Array.from(signal, (s, i) => (s + noise[i] > 0 ? 1 : 0)), classCount: 2 }],
  [
    'classification, 3 classes',
    'classification',
    { y: Float64Array.from(signal, (s, i) => (s + noise[i] < -1 ? 0 : s + noise[i] < 1 ? 1 : 2)), classCount: 3 },
  ],
  [
    'survival',
    'survival',
    {
      y: Float64Array.from(signal, (s, i) => Math.exp(-s + noise[i])),
      event: Float64Array.from({ length: n }, () => (rng.next() < 0.7 ? 1 : 0)),
    },
  ],
];

const tests = Math.min(d, 20000);
console.log(`${n} rows x ${d} features, ${tests} tests each`);
for (const [name, task, target] of outcomes) {
  const input: IndependenceTestInput = {
    X: { data, rows: n, cols: d },
    columnFeature: Int32Array.from({ length: d }, (_, j) => j),
    featureCount: d,
    categorical: new Uint8Array(d),
    target,
    task,
  };
  let t0 = cpu();
  const test = createIndependenceTest(input);
  const setup = cpu() - t0;
  t0 = cpu();
  let significant = 0;
  for (let x = 0; x < tests; x++) if (test.test(x, []).logP < Math.log(0.05)) significant++;
  const univariate = cpu() - t0;
  t0 = cpu();
  for (let x = 0; x < tests; x++) {
    const k = x % 10;
    const z = [k, 10 + k];
    if (z.includes(x)) continue;
    test.test(x, z);
  }
  const conditional = cpu() - t0;
  console.log(
    `${name.padEnd(26)} setup ${setup.toFixed(0).padStart(5)} ms   univariate ${univariate.toFixed(0).padStart(6)} ms   |Z| = 2 ${conditional.toFixed(0).padStart(6)} ms   (p < 0.05 alone: ${significant})`,
  );
}
