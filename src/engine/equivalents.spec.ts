import { designSimilarity, equivalenceClasses, withoutCopies } from './equivalents';
import { createIndependenceTest } from './independence-tests';
import { design } from './models/common';
import { Rng } from './rng';

/**
 * 400 samples: a and b cause y (regression); aCopy is an exact copy of a, aNear a plus noise of sd 0.05, and e1..e6 are
 * unrelated noise. Features: 0 a, 1 b, 2 aCopy, 3 aNear, 4..9 e1..e6.
 */
function data(task: 'regression' | 'classification') {
  const rng = new Rng(17);
  const rows: number[][] = [];
  const y = new Float64Array(400);
  for (let i = 0; i < 400; i++) {
    const a = rng.normal();
    const b = rng.normal();
    rows.push([a, b, a, a + 0.05 * rng.normal(), ...Array.from({ length: 6 }, () => rng.normal())]);
    const s = a - b + 0.7 * rng.normal();
    y[i] = task === 'regression' ? s : s > 0 ? 1 : 0;
  }
  const X = design(rows);
  const columnFeature = Int32Array.from({ length: 10 }, (_, j) => j);
  const test = createIndependenceTest({
    X,
    columnFeature,
    featureCount: 10,
    categorical: new Uint8Array(10),
    target: task === 'regression' ? { y } : { y, classCount: 2 },
    task,
  });
  return { test, similarity: designSimilarity(X, columnFeature) };
}

function classesOf(task: 'regression' | 'classification', signature: number[]) {
  const { test, similarity } = data(task);
  return equivalenceClasses(test, 10, signature, similarity);
}

describe('equivalenceClasses (equivalents for a signature without its own)', () => {
  for (const task of ['regression', 'classification'] as const) {
    it(`${task}: a cause and its exact copy side by side leave one, which gathers the copies as equivalents`, () => {
      const r = classesOf(task, [0, 2, 1]);
      // a (the first of the two equally useless members) leaves; its copy stays with b
      expect(r.redundant).toEqual([0]);
      expect(r.reference).toEqual([2, 1]);
      expect(r.classes).toEqual([[2, 0, 3], [1]]);
    });

    it(`${task}: a signature without redundancy keeps its members, and noise is nobody's equivalent`, () => {
      const r = classesOf(task, [0, 1]);
      expect(r.reference).toEqual([0, 1]);
      expect(r.redundant).toEqual([]);
      expect(r.classes).toEqual([[0, 2, 3], [1]]);
    });
  }

  it('keeps a noise member the selector chose: only copies leave (cross-validation judged the rest)', () => {
    const r = classesOf('regression', [0, 1, 6]);
    expect(r.redundant).toEqual([]);
    expect(r.reference).toEqual([0, 1, 6]);
    expect(r.classes).toEqual([[0, 2, 3], [1], [6]]);
  });

  it('drops the copies and keeps the noise member beside them; the folds drop the same ones (withoutCopies)', () => {
    const r = classesOf('classification', [0, 6, 3, 1, 2]);
    expect(r.redundant.sort()).toEqual([0, 3]);
    expect(r.reference).toEqual([6, 1, 2]);
    const { test, similarity } = data('classification');
    expect(withoutCopies(test, 10, [0, 6, 3, 1, 2], similarity)).toEqual(r.reference);
  });

  it('judges each feature by its design columns: the largest absolute correlation of any two of their columns', () => {
    const X = design([
      [1, 2, 0, 5],
      [2, 4, 1, 5],
      [3, 6, 0, 5],
      [4, 8.5, 1, 5],
    ]);
    // features: 0 = column 0, 1 = columns 1 and 2 (a categorical feature's dummies), 2 = the constant column 3
    const alike = designSimilarity(X, Int32Array.from([0, 1, 1, 2]));
    expect(alike(0, 1)).toBeCloseTo(0.998381, 6); // numpy.corrcoef([1, 2, 3, 4], [2, 4, 6, 8.5])
    expect(alike(1, 0)).toBe(alike(0, 1));
    expect(alike(0, 2)).toBe(0);
  });

  it('an empty or single-feature signature: no test needed beyond the equivalents', () => {
    expect(classesOf('regression', [])).toEqual({ reference: [], classes: [], redundant: [] });
    expect(classesOf('regression', [1]).classes).toEqual([[1]]);
  });
});
