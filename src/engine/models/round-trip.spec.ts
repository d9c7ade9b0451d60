import type { Task } from '../metrics';
import { Rng } from '../rng';
import type { Design, Target } from './common';
import { ConstantModel, createModel, Model, modelFromJSON, ModelSpec, supports } from './index';

/**
 * Every model kind, fitted, saved as JSON and read back by modelFromJSON (as a saved pipeline is before a
 * prediction), predicts exactly what it predicted before. A kind modelFromJSON does not know fails here, not at the
 * first prediction of a stored analysis.
 */

/**
 * Specs of every kind of ModelSpec, each kernel of the SVM too. A `Record` over the kinds: a new kind of model is a
 * compile error here until it has its entry.
 */
const SPECS: { [K in ModelSpec['kind']]: Extract<ModelSpec, { kind: K }>[] } = {
  linear: [{ kind: 'linear', lambda: 0.05 }],
  tree: [{ kind: 'tree', maxDepth: 4, minLeaf: 3 }],
  forest: [{ kind: 'forest', trees: 7, mtryFactor: 1, minLeaf: 3 }],
  svm: [
    { kind: 'svm', kernel: 'linear', C: 1, gammaFactor: 1, epsilon: 0.1 },
    { kind: 'svm', kernel: 'rbf', C: 1, gammaFactor: 1, epsilon: 0.1 },
  ],
};

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

/** Every model a `task` analysis can fit, by name, and a fresh one of each. */
function modelsFor(task: Task, classCount: number): [string, () => Model][] {
  const specs = Object.values(SPECS).flat();
  return [
    ...specs.filter((s) => supports(s, task)).map((s): [string, () => Model] => [JSON.stringify(s), () => createModel(s, task)]),
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
    expect([...new Set(types)].sort()).toEqual(['constant', 'cox', 'forest', 'logistic', 'ridge', 'svm', 'svr', 'tree']);
  });
});
