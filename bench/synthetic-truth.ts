/**
 * Synthetic data with a known truth, for the signature checks of the API tests and the benchmark:
 * `noise` standard-normal features unrelated to the outcome, five causal features `cause1..cause5`, and two
 * copies of cause1 (`cause1_copyA`, `cause1_copyB`), which carry the same information as cause1 and should appear
 * as its equivalents, never beside it. By default both copies are near (cause1 plus normal noise of sd 0.05) and the
 * effects strong; `TruthOptions` make the family of issue 20 (weaker effects, an exact copy).
 */
import { Rng } from '../src/engine/rng';
import type { EngineColumn, EngineDataset, Outcome } from '../src/engine/types';

export type SyntheticTask = 'classification' | 'regression' | 'survival';

export const CAUSES = ['cause1', 'cause2', 'cause3', 'cause4', 'cause5'];
export const COPIES = ['cause1_copyA', 'cause1_copyB'];
const EFFECTS = [1.5, -1.5, 1.2, -1.2, 1.0];

export interface TruthOptions {
  /** the causes' effects (default 1.5, -1.5, 1.2, -1.2, 1.0) */
  effects?: number[];
  /** copyA an exact copy of cause1 (default: near, as copyB) */
  exactCopy?: boolean;
  /** classification: class b when score + noise > 0, the noise normal with this sd (default: logistic noise) */
  normalNoise?: number;
}

/** The effect sizes of the benchmark's family: weak, medium and strong (the 0.6 to 1). */
export const EFFECT_SIZES: Record<string, number[]> = {
  weak: [0.5, -0.45, 0.4, -0.35, 0.3],
  medium: [1, -0.9, 0.8, -0.7, 0.6],
  strong: [1.5, -1.5, 1.2, -1.2, 1.0],
};

export const SYNTHETIC_OUTCOMES: Record<SyntheticTask, Outcome> = {
  classification: { classification: 'class' },
  regression: { regression: 'response' },
  survival: { survival: { event: 'event', timeToEvent: 'time' } },
};

/** The cause a feature stands for (a copy counts as its original), or undefined for noise. */
export function causeOf(name: string): string | undefined {
  if (CAUSES.includes(name)) return name;
  return COPIES.includes(name) ? 'cause1' : undefined;
}

/**
 * n samples: noise features n1..n`noise` first, the causes and copies at fixed places among them.
 * classification: class b when the linear score plus logistic noise is positive; regression: score + N(0, 1);
 * survival: exponential times with hazard exp(score / 2), about 25% censored at random.
 */
export function syntheticTruth(task: SyntheticTask, n: number, noise: number, seed: number, options: TruthOptions = {}): EngineDataset {
  const effects = options.effects ?? EFFECTS;
  const rng = new Rng(seed, 0x5e5);
  const names = Array.from({ length: noise }, (_, j) => `n${j + 1}`);
  const special = [...CAUSES, ...COPIES];
  special.forEach((name, k) => names.splice(Math.floor(((k + 1) * noise) / (special.length + 1)) + k, 0, name));
  const values = new Map(names.map((name) => [name, new Float64Array(n)]));
  for (let i = 0; i < n; i++) for (const name of names) if (!COPIES.includes(name)) (values.get(name) as Float64Array)[i] = rng.normal();
  const cause1 = values.get('cause1') as Float64Array;
  for (const copy of COPIES) {
    const c = values.get(copy) as Float64Array;
    const exact = options.exactCopy && copy === COPIES[0];
    for (let i = 0; i < n; i++) c[i] = cause1[i] + (exact ? 0 : 0.05 * rng.normal());
  }
  const score = Float64Array.from({ length: n }, (_, i) =>
    CAUSES.reduce((s, name, k) => s + effects[k] * (values.get(name) as Float64Array)[i], 0),
  );
  const columns: EngineColumn[] = names.map((name) => ({ name, type: 'numerical', values: values.get(name) as Float64Array }));
  if (task === 'classification') {
    const codes = Int32Array.from(score, (s) => {
      if (options.normalNoise !== undefined) return s + options.normalNoise * rng.normal() > 0 ? 1 : 0;
      const u = Math.min(Math.max(rng.next(), 1e-12), 1 - 1e-12);
      return s + Math.log(u / (1 - u)) > 0 ? 1 : 0;
    });
    columns.push({ name: 'class', type: 'categorical', codes, levels: ['a', 'b'] });
  } else if (task === 'regression') {
    columns.push({ name: 'response', type: 'numerical', values: Float64Array.from(score, (s) => s + rng.normal()) });
  } else {
    const time = new Float64Array(n);
    const event = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const t = -Math.log(Math.max(rng.next(), 1e-12)) / Math.exp(score[i] / 2);
      const c = -Math.log(Math.max(rng.next(), 1e-12)) / 0.3;
      time[i] = Math.min(t, c);
      event[i] = t <= c ? 1 : 0;
    }
    columns.push({ name: 'time', type: 'timeToEvent', values: time }, { name: 'event', type: 'event', values: event });
  }
  return { sampleCount: n, columns };
}

/** The dataset as CSV text (header line, numbers with 6 significant digits; codes as their level). */
export function toCsv(data: EngineDataset): string {
  const cells = data.columns.map((c) =>
    'codes' in c
      ? Array.from(c.codes, (k) => (k < 0 ? '' : c.levels[k]))
      : Array.from(c.values, (v) => (Number.isNaN(v) ? '' : String(Number(v.toPrecision(6))))),
  );
  const lines = [data.columns.map((c) => c.name).join(',')];
  for (let i = 0; i < data.sampleCount; i++) lines.push(cells.map((col) => col[i]).join(','));
  return lines.join('\n') + '\n';
}
