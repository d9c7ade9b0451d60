import { predict, runAnalysis, type EngineDataset } from './index';
import { DecisionTree } from './models/cart';
import { treeRules } from './pipeline';
import { Preprocessor } from './preprocessing';
import { Rng } from './rng';

jest.setTimeout(60_000);

/** 200 samples: numeric x (10% missing), categorical colour (5% missing), noise; class depends on x and colour. */
function synthetic(): EngineDataset {
  const n = 200;
  const rng = new Rng(99);
  const x = new Float64Array(n);
  const noise = new Float64Array(n);
  const colour = new Int32Array(n);
  const cls = new Int32Array(n);
  const id = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    x[i] = rng.normal();
    noise[i] = rng.normal();
    colour[i] = rng.int(3);
    const score = x[i] + (colour[i] === 2 ? 2 : colour[i] === 1 ? -1 : 0) + 0.5 * rng.normal();
    cls[i] = score > 0.3 ? 1 : 0;
    id[i] = i;
    if (rng.next() < 0.1) x[i] = NaN;
    if (rng.next() < 0.05) colour[i] = -1;
  }
  return {
    sampleCount: n,
    columns: [
      { name: 'id', type: 'identifier', codes: id, levels: Array.from({ length: n }, (_, i) => `s${i}`) },
      { name: 'x', type: 'numerical', values: x },
      { name: 'colour', type: 'categorical', codes: colour, levels: ['blue', 'green', 'red'] },
      { name: 'noise', type: 'numerical', values: noise },
      { name: 'constant', type: 'numerical', values: new Float64Array(n).fill(3) },
      { name: 'label', type: 'categorical', codes: cls, levels: ['no', 'yes'] },
    ],
  };
}

describe('categorical and missing values', () => {
  it('imputes, one-hot encodes, ignores identifiers and constants, and imputes unseen levels at prediction', async () => {
    const data = synthetic();
    const r = await runAnalysis(
      data,
      {
        outcome: { classification: 'label' },
        modelsConsidered: 'interpretable',
        featureSelection: 'mostRelevantOrAll',
        thoroughness: 'preliminary',
        coreCount: 1,
        maxSignatureSize: 25,
        maxVisualizedSignatureCount: 5,
      },
      { seed: 4, threads: 0 },
    );
    const best = r.models.best;
    expect(best.signatures[0]).not.toContain('id');
    expect(best.signatures[0]).not.toContain('constant');
    expect(best.signatures[0]).toEqual(expect.arrayContaining(['x', 'colour']));
    expect(best.performance['Area Under the ROC Curve']).toBeGreaterThan(0.85);
    expect(Boolean(best.modelView)).toBe(/logistic/.test(best.model));
    if (best.modelView) {
      expect(best.modelView.featureNames).toEqual(expect.arrayContaining(['x']));
      expect(best.modelView.featureNames.some((f) => f.startsWith('colour='))).toBe(true);
      expect(best.modelView.coefficients).toHaveLength(best.modelView.featureNames.length);
    }
    // prediction with an unseen level equals prediction with a missing value
    const colourCol = data.columns[2] as { codes: Int32Array; levels: string[] };
    const withUnseen: EngineDataset = {
      sampleCount: 2,
      columns: [
        { name: 'x', type: 'numerical', values: Float64Array.from([0.5, 0.5]) },
        { name: 'colour', type: 'categorical', codes: Int32Array.from([0, -1]), levels: ['purple'] },
        { name: 'noise', type: 'numerical', values: Float64Array.from([0, 0]) },
      ],
    };
    const p = predict(r.pipelines.best[0], withUnseen);
    expect(p[0]).toEqual({ ...p[1], row: 0 });
    expect(colourCol.levels).toHaveLength(3);
  });

  it('preprocessing uses training rows only (mean imputation, mode reference, standardization)', () => {
    const values = Float64Array.from([1, 3, NaN, 100]);
    const codes = Float64Array.from([0, 1, 1, 0]);
    const features = [
      { name: 'v', kind: 'numerical' as const, levels: [] },
      { name: 'c', kind: 'categorical' as const, levels: ['a', 'b'] },
    ];
    const source = (j: number): Float64Array => (j === 0 ? values : codes);
    const pre = Preprocessor.fit(source, Int32Array.from([0, 1, 2]), features);
    expect(pre.steps[0].impute).toBe(2);
    expect(pre.steps[1].impute).toBe(1);
    expect(pre.columnNames()).toEqual(['v', 'c=a']);
    const X = pre.transform(source, Int32Array.from([2, 3]));
    expect(X.data[0]).toBe(0);
    const sd = Math.sqrt(2 / 3);
    expect(X.data[2]).toBeCloseTo((100 - 2) / sd, 10);
  });

  it('renders a small decision tree as rules on the original feature scale', () => {
    const v = Float64Array.from({ length: 20 }, (_, i) => i + 1);
    const c = Float64Array.from({ length: 20 }, (_, i) => (i % 4 === 0 ? 1 : 0));
    const y = Float64Array.from({ length: 20 }, (_, i) => (i + 1 > 10 ? 1 : 0));
    const features = [
      { name: 'v', kind: 'numerical' as const, levels: [] },
      { name: 'c', kind: 'categorical' as const, levels: ['a', 'b'] },
    ];
    const rows = Int32Array.from({ length: 20 }, (_, i) => i);
    const source = (j: number): Float64Array => (j === 0 ? v : c);
    const pre = Preprocessor.fit(source, rows, features);
    const tree = new DecisionTree('classification', 2, 1).fit(pre.transform(source, rows), { y, classCount: 2 }, new Rng(1));
    expect(treeRules(tree, pre, ['no', 'yes'])).toBe('if v <= 10.5 then (no (100%)) else (yes (100%))');
    const byLevel = Float64Array.from({ length: 20 }, (_, i) => (i % 4 === 0 ? 1 : 0));
    const t2 = new DecisionTree('classification', 1, 1).fit(pre.transform(source, rows), { y: byLevel, classCount: 2 }, new Rng(1));
    expect(treeRules(t2, pre, ['no', 'yes'])).toBe('if c != b then (no (100%)) else (yes (100%))');
  });
});
