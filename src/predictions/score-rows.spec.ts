import type { SavedPipeline } from '../engine/types';
import { rowsToDataset, SCORE_MAX_ROWS } from './score-rows';

/** A pipeline's shape as rowsToDataset reads it: the features and how each is read. */
const pipeline = {
  featureNames: ['age', 'stage'],
  preprocessing: {
    steps: [
      { name: 'age', kind: 'numerical' },
      { name: 'stage', kind: 'categorical' },
    ],
  },
} as unknown as SavedPipeline;

describe('rows of a score call as a dataset', () => {
  it('reads numbers and categories by name, null or an absent key as missing, and ignores keys the model does not read', () => {
    const data = rowsToDataset(pipeline, [{ age: 61, stage: 'II', note: 'x' }, { age: null, stage: 3 }, { stage: 'II' }]);
    if ('fault' in data) throw new Error(data.message);
    expect(data.sampleCount).toBe(3);
    expect(data.columns.map((c) => c.name)).toEqual(['age', 'stage']);
    const [age, stage] = data.columns;
    expect('values' in age && Array.from(age.values)).toEqual([61, NaN, NaN]);
    expect('codes' in stage && stage.levels).toEqual(['II', '3']);
    expect('codes' in stage && Array.from(stage.codes)).toEqual([0, 1, 0]);
  });

  it('refuses a feature in no row as a missing column, naming it', () => {
    expect(rowsToDataset(pipeline, [{ age: 61 }, { age: 70, other: 1 }])).toEqual({
      fault: 'missing',
      message: 'the rows lack feature the model uses: "stage"',
    });
  });

  it('refuses mistyped values with the row and the feature, and bodies that are not 1 to 1000 objects', () => {
    expect(rowsToDataset(pipeline, [{ age: '61', stage: 'II' }])).toEqual({
      fault: 'rejected',
      message: 'rows[0].age must be a number or null (the feature is numerical)',
    });
    expect(
      rowsToDataset(pipeline, [
        { age: 1, stage: 'I' },
        { age: 2, stage: { level: 'II' } },
      ]),
    ).toMatchObject({
      fault: 'rejected',
      message: expect.stringContaining('rows[1].stage') as string,
    });
    expect(rowsToDataset(pipeline, [])).toMatchObject({ fault: 'rejected' });
    expect(rowsToDataset(pipeline, { age: 1 })).toMatchObject({ fault: 'rejected' });
    expect(rowsToDataset(pipeline, [1])).toMatchObject({ fault: 'rejected', message: expect.stringContaining('rows[0]') as string });
    const many = Array.from({ length: SCORE_MAX_ROWS + 1 }, () => ({ age: 1, stage: 'I' }));
    expect(rowsToDataset(pipeline, many)).toMatchObject({ fault: 'rejected', message: expect.stringContaining('at most 1000') as string });
    expect('fault' in rowsToDataset(pipeline, many.slice(1))).toBe(false);
  });
});
