import type { Feature } from '../datasets/dto/dataset.dto';
import { estimateCost } from '../engine';
import type { StoredParameters } from './analysis-parameters';
import { currentEstimate, FULLY_MEASURED_AT, MEASURED_FROM, shapeEstimate } from './estimate';

const features: Feature[] = [
  ...Array.from({ length: 30 }, (_, j): Feature => ({ name: `x${j}`, type: 'numerical', missingCount: 0, distinctCount: 500 })),
  { name: 'y', type: 'categorical', missingCount: 9, distinctCount: 2 },
  { name: 'id', type: 'identifier', missingCount: 0, distinctCount: 578 },
];
const parameters: StoredParameters = {
  datasetId: '1',
  name: 'a',
  outcome: { classification: 'y' },
  modelsConsidered: 'all',
  featureSelection: 'mostRelevant',
  thoroughness: 'typical',
  coreCount: 2,
  maxSignatureSize: 25,
  maxVisualizedSignatureCount: 5,
};

describe('the estimate of an analysis', () => {
  it("before it runs: the engine's cost model on the shape the stored features describe", () => {
    const e = shapeEstimate(parameters, 578, features);
    const cost = estimateCost({ samples: 569, features: 30, classes: 2, task: 'classification', thoroughness: 'typical', cores: 2 });
    expect(e.basis).toBe('shape');
    expect(e.executionTimeInSeconds.expected).toBeCloseTo(cost.seconds.expected, 1);
    expect(e.executionTimeInSeconds.low).toBeLessThan(e.executionTimeInSeconds.expected);
    expect(e.executionTimeInSeconds.high).toBeGreaterThan(e.executionTimeInSeconds.expected);
    expect(e.peakMemoryInBytes.expected).toBe(Math.round(cost.peakMemoryMb.expected * 2 ** 20));
  });

  it('never beyond the time limit', () => {
    const e = shapeEstimate({ ...parameters, thoroughness: 'extensive', timeLimitSeconds: 10 }, 578, features);
    expect(e.executionTimeInSeconds.high).toBeLessThanOrEqual(10);
    expect(e.executionTimeInSeconds.expected).toBeLessThanOrEqual(10);
  });

  it("while it runs: the time left measured, blended with the shape's until 0.3 of the work, an interval that narrows", () => {
    const stored = shapeEstimate(parameters, 578, features);
    const shape = stored.executionTimeInSeconds.expected;
    const at = (progress: number, elapsed: number) =>
      currentEstimate(stored, { state: 'running', executionTimeInSeconds: elapsed, progress }).executionTimeInSeconds;
    expect(currentEstimate(stored, { state: 'running', executionTimeInSeconds: 3, progress: MEASURED_FROM / 2 })).toBe(stored);
    expect(currentEstimate(stored, { state: 'running', executionTimeInSeconds: 20, progress: 0.1 }).basis).toBe('measured');
    // from 0.3 on, the measured time alone: 100 s for half the work, 100 s left
    expect(at(FULLY_MEASURED_AT, 60).expected).toBe(200);
    expect(at(0.5, 100).expected).toBe(200);
    // before, between the shape's time left and the measured one
    const early = at(0.1, 10 * shape);
    expect(early.expected).toBeGreaterThan(10 * shape + 0.9 * shape);
    expect(early.expected).toBeLessThan(100 * shape);
    const width = (i: { low: number; high: number }) => i.high - i.low;
    expect(width(at(0.5, 100))).toBeLessThan(width(at(0.3, 60)));
    expect(width(at(0.9, 180))).toBeLessThan(width(at(0.5, 100)));
    expect(at(0.9, 180).low).toBeGreaterThanOrEqual(180);
  });

  it('finished, failed or pending: the estimate made at creation', () => {
    const stored = shapeEstimate(parameters, 578, features);
    for (const state of ['pending', 'finished', 'failed']) {
      expect(currentEstimate(stored, { state, executionTimeInSeconds: 50, progress: 0.5 })).toBe(stored);
    }
  });

  it('with a time limit: not beyond it, nor before now when the analysis ran past it', () => {
    const stored = shapeEstimate({ ...parameters, timeLimitSeconds: 60 }, 578, features);
    expect(currentEstimate(stored, { state: 'running', executionTimeInSeconds: 40, progress: 0.5 }, 60).executionTimeInSeconds.high).toBe(
      60,
    );
    expect(currentEstimate(stored, { state: 'running', executionTimeInSeconds: 70, progress: 0.5 }, 60).executionTimeInSeconds.high).toBe(
      70,
    );
  });
});
