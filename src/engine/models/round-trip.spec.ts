import type { Task } from '../metrics';
import { Rng } from '../rng';
import type { Design, Target } from './common';
import { ConstantModel, createModel, Model, MODEL_CLASSES, MODEL_KINDS, modelFromJSON } from './index';
import type { ModelSpec } from './index';

/**
 * Every model kind, fitted, saved as JSON and read back by modelFromJSON (as a saved pipeline is before a
 * prediction), predicts exactly what it predicted before. A kind modelFromJSON does not know fails here, not at the
 * first prediction of a stored analysis.
 */

/** A `task` problem of 60 samples and 4 features (2 or 3 classes for classification), made from `seed`. */
function problem(task: Task, classCount: number, seed: number): { X: Design; target: Target } {
  const rng = new Rng(seed);
  const rows = 60;
  const cols = 4;
  const data = Float64Array.from({ length: rows * cols }, () => rng.normal());
  const signal = (i: number) => data[i * cols] - 0.5 * data[i * cols + 1] + 0.3 * rng.normal();
  const X = { data, rows, cols };
  if (task === 'classification') {
    const y = Float64Array.from({ length: rows }, (_, i) =>
      i < classCount ? i : Math.min(classCount - 1, Math.floor(Math.abs(signal(i)) * classCount)),
    );
    return { X, target: { y, classCount } };
  }
  if (task === 'regression') return { X, target: { y: Float64Array.from({ length: rows }, (_, i) => 10 + 3 * signal(i)) } };
  const y = Float64Array.from({ length: rows }, (_, i) => Math.exp(1 + 0.5 * signal(i)));
  const event = Float64Array.from({ length: rows }, (_, i) => (i % 4 === 3 ? 0 : 1));
  return { X, target: { y, event } };
}

/** The model read back from its JSON text, as a stored pipeline is. */
function restored(model: Model): Model {
  return modelFromJSON(JSON.parse(JSON.stringify(model.toJSON())) as Record<string, unknown>);
}

const CASES: { task: Task; classCount: number }[] = [
  { task: 'classification', classCount: 2 },
  { task: 'classification', classCount: 3 },
  { task: 'regression', classCount: 0 },
  { task: 'survival', classCount: 0 },
];

/**
 * Every model a `task` analysis can fit, by name, and a fresh one of each: each kind's specs of the first thoroughness
 * that tries it (every kind of MODEL_KINDS, so a new kind is covered here without a line of its own; every SVM kernel
 * among them), with fewer trees in a forest, and the constant model.
 */
function modelsFor(task: Task, classCount: number): [string, () => Model][] {
  const levels = ['preliminary', 'typical', 'extensive'] as const;
  // each kind's specs of the first thoroughness that tries it
  const specs = MODEL_KINDS.flatMap((kind): ModelSpec[] =>
    kind.tasks.includes(task) ? (levels.map((level) => kind.grid(level, task, 60)).find((s) => s.length > 0) ?? []) : [],
  );
  const small = specs.map((s) => (s.kind === 'forest' ? { ...s, trees: 7 } : s));
  return [
    ...small.map((s): [string, () => Model] => [JSON.stringify(s), () => createModel(s, task)]),
    ['constant', () => new ConstantModel(task, classCount)],
  ];
}

describe('every model kind round-trips through toJSON / modelFromJSON', () => {
  describe.each(CASES)('$task ($classCount classes)', ({ task, classCount }) => {
    const { X, target } = problem(task, classCount, 11);

    it.each(modelsFor(task, classCount))('%s predicts the same after the round trip', (_name, make) => {
      const model = make().fit(X, target, new Rng(3));
      const back = restored(model);
      expect(back.outputWidth).toBe(model.outputWidth);
      expect(Array.from(back.predict(X))).toEqual(Array.from(model.predict(X)));
      // a second round trip gives the same JSON: nothing is lost or changed on the way
      expect(JSON.stringify(restored(back).toJSON())).toBe(JSON.stringify(model.toJSON()));
    });
  });

  it('covers every type a saved model has', () => {
    const types = CASES.flatMap(({ task, classCount }) => {
      const { X, target } = problem(task, classCount, 11);
      return modelsFor(task, classCount).map(([, make]) => make().fit(X, target, new Rng(3)).toJSON().type);
    });
    // every class modelFromJSON knows is one some kind makes (and the kinds make no other)
    expect([...new Set(types)].sort()).toEqual(Object.keys(MODEL_CLASSES).sort());
    expect(types.length).toBeGreaterThan(CASES.length * MODEL_KINDS.length);
  });
});
