/**
 * Speed of SES and of the equivalence analysis of a LASSO signature on nearly separable many-class data, where the
 * tests' multinomial fits run towards a deviance of 0: a synthetic digits-like shape (10 classes, 1,258 x 64, the
 * first 32 features shifting each class's mean, the others noise). Prints the CPU seconds of the final selection's
 * LASSO signature with its equivalents (equivalents.ts) and of the three SES settings of `typical` on the same rows.
 *
 *   npm run build && node dist/bench/separable.bench.js [--rows 1258] [--features 64] [--classes 10] [--shift 1.2]
 */
import { parseArgs } from 'node:util';
import { Rng } from '../src/engine/rng';
import { fitSelectors, type SelectionInput, type SelectorSpec } from '../src/engine/selection';

/** CPU seconds of the process */
function cpu(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1258' },
    features: { type: 'string', default: '64' },
    classes: { type: 'string', default: '10' },
    shift: { type: 'string', default: '1.2' },
  },
});
const [n, d, classes, shift] = [values.rows, values.features, values.classes, values.shift].map(Number);
const rng = new Rng(1);
const means = Array.from({ length: classes }, () => Float64Array.from({ length: d }, (_, j) => (j < d / 2 ? shift * rng.normal() : 0)));
const y = Float64Array.from({ length: n }, (_, i) => i % classes);
const data = new Float64Array(n * d);
for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) data[i * d + j] = means[y[i]][j] + rng.normal();
const input: SelectionInput = {
  X: { data, rows: n, cols: d },
  columnFeature: Int32Array.from({ length: d }, (_, j) => j),
  featureCount: d,
  categorical: new Uint8Array(d),
  target: { y, classCount: classes },
  task: 'classification',
  maxSize: 25,
  signatureLimit: 1,
};

console.log(`${n} rows x ${d} features, ${classes} classes, class means shifted by N(0, ${shift}^2) on ${d / 2} features`);
const lasso: SelectorSpec[] = [{ kind: 'lasso', c: 1.25 }];
let t0 = cpu();
const [path] = fitSelectors(lasso, input);
const pathSeconds = cpu() - t0;
t0 = cpu();
const [final] = fitSelectors(lasso, { ...input, equivalents: true });
const finalSeconds = cpu() - t0 - pathSeconds;
const equivalents = (final.classes ?? []).reduce((s, q) => s + q.length - 1, 0);
console.log(
  `LASSO signature without copies ${path.signatures[0].length} features (${pathSeconds.toFixed(2)} s); its equivalence analysis ${finalSeconds.toFixed(2)} s: ${final.classes?.length} members, ${equivalents} equivalents`,
);
const ses: SelectorSpec[] = [
  { kind: 'ses', maxK: 2, alpha: 0.05 },
  { kind: 'ses', maxK: 2, alpha: 0.1 },
  { kind: 'ses', maxK: 3, alpha: 0.05 },
];
t0 = cpu();
const selections = fitSelectors(ses, input);
console.log(
  `SES, 3 settings: ${(cpu() - t0).toFixed(2)} s, signatures of ${selections.map((s) => s.signatures[0].length).join(', ')} features`,
);
