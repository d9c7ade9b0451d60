import {
  finalPipeline,
  heldOutPerformance,
  heldOutScorer,
  heldOutStandardError,
  holdout,
  loadShared,
  parameters,
} from '../../bench/engine-datasets';
import { subsetDataset } from '../../bench/csv-dataset';
import { prepareData } from './data';
import { buildGrid } from './grid';

/** The quality harness's held-out scoring (bench/engine-datasets.ts): a metric over any rows, and its bootstrap error. */
describe('the held-out scorer and its standard error', () => {
  const outcome = { regression: 'progression' };
  const { train, test } = holdout(loadShared('diabetes'), outcome, 0.3, 1);
  const params = parameters(outcome, 'preliminary');
  const p = prepareData(train, params);
  const config = buildGrid(params, p.task, p.features.length).find((c) => c.model.kind === 'linear');
  const pipeline = finalPipeline({ ...p, maxSignatureSize: 25, seed: 1 }, config as NonNullable<typeof config>, [2, 8], [0]);
  const score = heldOutScorer(pipeline, test, outcome);

  it('scores every held-out row by default, as heldOutPerformance does', () => {
    expect(score()).toBe(heldOutPerformance(pipeline, test, outcome));
    expect(score()).toBeGreaterThan(0.2);
  });

  it('scores the rows it is given, repeats included, as the metric of a held-out set of just those rows', () => {
    const rows = Int32Array.from([0, 0, 3, 5, 7, 7, 7, 11, 20, 40, 41, 60]);
    const other = Int32Array.from([1, 2, 4, 6, 8, 9, 10, 12, 13, 14, 15, 16]);
    expect(score(rows)).toBeCloseTo(heldOutPerformance(pipeline, subsetDataset(test, rows), outcome), 12);
    expect(score(other)).toBeCloseTo(heldOutPerformance(pipeline, subsetDataset(test, other), outcome), 12);
    expect(score(rows)).not.toBeCloseTo(score(other), 3);
  });

  it('is the standard deviation of the metric over resamples: for a mean, sd / sqrt(n) within a few per cent', () => {
    const values = Float64Array.from({ length: 200 }, (_, i) => Math.sin(i * 12.9898) * 3);
    const mean = values.reduce((s, v) => s + v, 0) / values.length;
    const sd = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / values.length);
    const meanOf = (rows?: Int32Array): number => (rows ? rows.reduce((s, r) => s + values[r], 0) / rows.length : mean);
    const se = heldOutStandardError(meanOf, values.length, 2000, 7);
    expect(se / (sd / Math.sqrt(values.length))).toBeGreaterThan(0.93);
    expect(se / (sd / Math.sqrt(values.length))).toBeLessThan(1.07);
    // the same draws for the same seed; none for a metric that never varies
    expect(heldOutStandardError(meanOf, values.length, 50, 7)).toBe(heldOutStandardError(meanOf, values.length, 50, 7));
    expect(heldOutStandardError(() => 1, values.length, 50, 7)).toBe(0);
  });

  it('skips resamples whose metric is not finite', () => {
    let calls = 0;
    const sometimesNaN = (rows?: Int32Array): number => (++calls % 2 === 0 ? NaN : (rows?.[0] ?? 0));
    const se = heldOutStandardError(sometimesNaN, 30, 100, 3);
    expect(Number.isFinite(se)).toBe(true);
    expect(se).toBeGreaterThan(0);
  });
});
