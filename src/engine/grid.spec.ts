/**
 * The grid's sizes (grid.ts: the selectors; each kind of model its own settings).
 * Models per selector: classification 7 / 29 / 106 (RBF SVMs left out above MAX_KERNEL_SAMPLES samples),
 * regression 7 / 35 / 162 (SVR: epsilons x (linear C + RBF C x gamma <= 1)), survival (ridge Cox and random
 * survival forest) 5 / 17 / 35; interpretable only (linear and trees): classification and regression 4 / 12 / 45,
 * survival 3 / 8 / 20.
 * Configurations (mostRelevant): classification 14 / 174 / 1166, regression 14 / 210 / 1782, survival 10 / 102 / 385
 * (typical on narrow data: classification 203, regression 245, survival 119);
 * with mostRelevantOrAll on a dataset of at most maxSignatureSize features: classification 21 / 203 / 1272,
 * regression 21 / 245 / 1944, survival 15 / 119 / 420.
 */
import { buildGrid, GRID, MAX_KERNEL_SAMPLES, NARROW_FEATURES, selectorsFor, WIDE_FEATURES } from './grid';
import type { Task } from './metrics';
import type { AnalysisParameters, Thoroughness } from './types';

const LEVELS: Thoroughness[] = ['preliminary', 'typical', 'extensive'];

function params(thoroughness: Thoroughness, more: Partial<AnalysisParameters> = {}): AnalysisParameters {
  return {
    outcome: { classification: 'y' },
    modelsConsidered: 'all',
    featureSelection: 'mostRelevant',
    thoroughness,
    coreCount: 1,
    maxSignatureSize: 25,
    maxVisualizedSignatureCount: 5,
    ...more,
  };
}

const sizes = (task: Task, more: Partial<AnalysisParameters> = {}, features = 20, samples = 500): number[] =>
  LEVELS.map((level) => buildGrid(params(level, more), task, features, samples).length);

describe('the configuration grid', () => {
  it('has 2 / 6 / 11 selectors: SES settings (stricter for typical on wide data), then LASSO settings', () => {
    expect(LEVELS.map((l) => selectorsFor(GRID[l], params(l), 1000).length)).toEqual([2, 6, 11]);
    expect(selectorsFor(GRID.preliminary, params('preliminary'), 1000)).toEqual([
      { kind: 'ses', maxK: 2, alpha: 0.05 },
      { kind: 'lasso', c: 1 },
    ]);
    const alphas = (features: number): string[] =>
      selectorsFor(GRID.typical, params('typical'), features).map((s) =>
        s.kind === 'ses' ? `${s.maxK}:${s.alpha}` : `c${s.kind === 'lasso' ? s.c : ''}`,
      );
    expect(alphas(WIDE_FEATURES)).toEqual(['2:0.05', '2:0.1', '3:0.05', 'c1.25', 'c1.5', 'c2']);
    expect(alphas(WIDE_FEATURES + 1)).toEqual(['2:0.01', '2:0.05', '3:0.01', 'c1.25', 'c1.5', 'c2']);
    expect(alphas(NARROW_FEATURES + 1)).toEqual(['2:0.05', '2:0.1', '3:0.05', 'c1.25', 'c1.5', 'c2']);
    expect(alphas(NARROW_FEATURES)).toEqual(['2:0.05', '2:0.1', '3:0.05', 'c1', 'c1.25', 'c1.5', 'c2']);
    for (const level of ['preliminary', 'extensive'] as const) {
      expect(selectorsFor(GRID[level], params(level), NARROW_FEATURES)).toEqual(selectorsFor(GRID[level], params(level), 20));
    }
    const extensive = selectorsFor(GRID.extensive, params('extensive'), 1000);
    expect(extensive.filter((s) => s.kind === 'ses')).toHaveLength(6);
    expect(extensive.filter((s) => s.kind === 'lasso').map((s) => (s.kind === 'lasso' ? s.c : 0))).toEqual([0.25, 0.5, 1, 1.5, 2]);
  });

  it('has the configuration counts of the table (mostRelevant)', () => {
    expect(sizes('classification')).toEqual([14, 174, 1166]);
    expect(sizes('regression')).toEqual([14, 210, 1782]);
    expect(sizes('survival')).toEqual([10, 102, 385]);
    // typical on narrow data adds LASSO with c = 1: one more selector
    expect(sizes('classification', {}, NARROW_FEATURES)).toEqual([14, 203, 1166]);
    expect(sizes('regression', {}, NARROW_FEATURES)).toEqual([14, 245, 1782]);
    expect(sizes('survival', {}, NARROW_FEATURES)).toEqual([10, 119, 385]);
  });

  it('adds "no selection" for mostRelevantOrAll only when the features fit in a signature', () => {
    const orAll = { featureSelection: 'mostRelevantOrAll' as const };
    expect(sizes('classification', orAll)).toEqual([21, 203, 1272]);
    expect(sizes('regression', orAll)).toEqual([21, 245, 1944]);
    expect(sizes('survival', orAll)).toEqual([15, 119, 420]);
    expect(sizes('classification', orAll, 26)).toEqual([14, 174, 1166]);
  });

  it('keeps only linear models and trees for modelsConsidered interpretable', () => {
    const interpretable = { modelsConsidered: 'interpretable' as const };
    expect(sizes('classification', interpretable)).toEqual([8, 72, 495]);
    expect(sizes('regression', interpretable)).toEqual([8, 72, 495]);
    expect(sizes('survival', interpretable)).toEqual([6, 48, 220]);
    for (const c of buildGrid(params('typical', interpretable), 'classification', 20, 500)) expect(c.interpretable).toBe(true);
  });

  it(`leaves kernel SVMs and SVRs out above ${MAX_KERNEL_SAMPLES} samples`, () => {
    const big = buildGrid(params('typical'), 'classification', 20, MAX_KERNEL_SAMPLES + 1);
    expect(big.some((c) => c.model.kind === 'svm' && c.model.kernel === 'rbf')).toBe(false);
    expect(big).toHaveLength(174 - 6 * 12);
  });
});
