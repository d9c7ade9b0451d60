import { loadShared, parameters } from '../../bench/engine-datasets';
import { startRun } from './analysis/run';
import { estimateCost } from './cost';

describe('the cost of an analysis before it runs', () => {
  it.each([
    ['iris', { classification: 'species' }, 3, 'classification'],
    ['breast_cancer', { classification: 'diagnosis' }, 2, 'classification'],
    ['diabetes', { regression: 'progression' }, 0, 'regression'],
  ] as const)('counts the cross-validation tasks that the analysis of %s plans', async (name, outcome, classes, task) => {
    const data = loadShared(name);
    const run = startRun(data, parameters(outcome, 'typical', 0), { seed: 1, threads: 0 });
    await run.runner.close();
    const cost = estimateCost({
      samples: data.sampleCount,
      features: data.columns.length - 1,
      classes,
      task,
      thoroughness: 'typical',
      cores: 2,
    });
    expect(cost.tasks).toBe(run.cvTasks);
  });

  it('grows with the samples, the classes, the features and the thoroughness, and falls with the cores', () => {
    const base = { samples: 1000, features: 50, classes: 2, task: 'classification', thoroughness: 'typical', cores: 2 } as const;
    const seconds = (change: Partial<typeof base> | object): number => estimateCost({ ...base, ...change }).seconds.expected;
    expect(seconds({ samples: 2000 })).toBeGreaterThan(seconds({}));
    expect(seconds({ classes: 10 })).toBeGreaterThan(seconds({}));
    expect(seconds({ features: 5000 })).toBeGreaterThan(seconds({}));
    expect(seconds({ thoroughness: 'extensive' })).toBeGreaterThan(seconds({ thoroughness: 'preliminary' }));
    expect(seconds({ cores: 1 })).toBeGreaterThan(seconds({}));
  });

  it('gives an interval about the expected time and memory', () => {
    const cost = estimateCost({ samples: 569, features: 30, classes: 2, task: 'classification', thoroughness: 'typical', cores: 2 });
    expect(cost.seconds.low).toBeLessThan(cost.seconds.expected);
    expect(cost.seconds.high).toBeGreaterThan(cost.seconds.expected);
    expect(cost.peakMemoryMb.low).toBeLessThan(cost.peakMemoryMb.expected);
    expect(cost.peakMemoryMb.high).toBeGreaterThan(cost.peakMemoryMb.expected);
    expect(cost.cpuSeconds).toBeGreaterThan(cost.seconds.expected);
  });
});
