import { equivalenceClasses } from './equivalents';
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
  return createIndependenceTest({
    X: design(rows),
    columnFeature: Int32Array.from({ length: 10 }, (_, j) => j),
    featureCount: 10,
    categorical: new Uint8Array(10),
    target: task === 'regression' ? { y } : { y, classCount: 2 },
    task,
  });
}

describe('equivalenceClasses (equivalents for a signature without its own)', () => {
  for (const task of ['regression', 'classification'] as const) {
    it(`${task}: a cause and its exact copy side by side leave one, which gathers the copies as equivalents`, () => {
      const r = equivalenceClasses(data(task), 10, [0, 2, 1]);
      // a (the first of the two equally useless members) leaves; its copy stays with b
      expect(r.redundant).toEqual([0]);
      expect(r.reference).toEqual([2, 1]);
      expect(r.classes).toEqual([[2, 0, 3], [1]]);
    });

    it(`${task}: a signature without redundancy keeps its members, and noise is nobody's equivalent`, () => {
      const r = equivalenceClasses(data(task), 10, [0, 1]);
      expect(r.reference).toEqual([0, 1]);
      expect(r.redundant).toEqual([]);
      expect(r.classes).toEqual([[0, 2, 3], [1]]);
    });
  }

  it('drops a noise member that adds nothing given the others', () => {
    const r = equivalenceClasses(data('regression'), 10, [0, 1, 6]);
    expect(r.redundant).toEqual([6]);
    expect(r.reference).toEqual([0, 1]);
  });

  it('an empty or single-feature signature: no test needed beyond the equivalents', () => {
    expect(equivalenceClasses(data('regression'), 10, [])).toEqual({ reference: [], classes: [], redundant: [] });
    expect(equivalenceClasses(data('regression'), 10, [1]).classes).toEqual([[1]]);
  });
});
