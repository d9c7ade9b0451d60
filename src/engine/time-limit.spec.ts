import { parameters } from '../../bench/engine-datasets';
import { syntheticMulticlass } from '../../bench/synthetic-shapes';
import { crossValidate, FINAL_PHASE_SHARE, ROUND_MODELS, searchDeadline, searchRounds } from './analysis/cross-validation';
import { selectorKey } from './selection';
import { AnalysisRun, Progress, startRun } from './analysis/run';
import { runAnalysis } from './protocol';
import type { AnalysisParameters } from './types';

/**
 * The time limit's stopping rule (docs/engine.md, "Time limit"), on a clock the test drives: the run's model fits are
 * its seconds (`secondsPerFit` each from the `slowAfter`-th fit on), so that what the rule decides does not depend on
 * the machine.
 */
function fitClock(slowAfter = Infinity, secondsPerFit = 50): { now: () => number; attach: (run: AnalysisRun) => void } {
  let run: AnalysisRun | undefined;
  return {
    now: () => {
      const fits = run?.fits ?? 0;
      return 1000 * (Math.min(fits, slowAfter) + Math.max(0, fits - slowAfter) * secondsPerFit);
    },
    attach: (r) => (run = r),
  };
}

// two classes, 300 samples: one repeat of 10 folds
const data = syntheticMulticlass(300, 5, 2, 3, 7, 2);
const outcome = { classification: 'class' };
const params = (timeLimitSeconds?: number): AnalysisParameters => ({
  ...parameters(outcome, 'preliminary', 0),
  ...(timeLimitSeconds !== undefined ? { timeLimitSeconds } : {}),
});

async function search(limit: number | undefined, clock = fitClock()) {
  const run = startRun(data, params(limit), { seed: 1, threads: 0, now: clock.now });
  clock.attach(run);
  try {
    return { run, cv: await crossValidate(run) };
  } finally {
    await run.runner.close();
  }
}

describe('the search within a time limit', () => {
  it('tries the grid in rounds of one selector setting and a share of its models, the first with an interpretable one', () => {
    for (const thoroughness of ['preliminary', 'typical', 'extensive'] as const) {
      const run = startRunFor({ ...params(60), thoroughness });
      const rounds = searchRounds(run);
      expect(rounds.flat().sort((a, b) => a - b)).toEqual(run.configs.map((c) => c.index));
      expect(rounds[0].some((c) => run.configs[c].interpretable)).toBe(true);
      for (const round of rounds.slice(1)) {
        expect(round.length).toBeLessThanOrEqual(ROUND_MODELS);
        expect(new Set(round.map((c) => selectorKey(run.configs[c].selector))).size).toBe(1);
      }
      expect(searchRounds({ configs: run.configs, params: params() })).toEqual([run.configs.map((c) => c.index)]);
    }
  });

  it("keeps for the final phase a share of the limit, or the first round's running time when that is longer", () => {
    const run = { startedAt: 1000 };
    expect(searchDeadline(run, 100, 1000)).toBe(1000 + 100_000 * (1 - FINAL_PHASE_SHARE));
    expect(searchDeadline(run, 100, 50_000)).toBe(1000 + 100_000 - 50_000);
  });

  it('tries every configuration without a limit, or with one it does not reach', async () => {
    for (const limit of [undefined, 1e9]) {
      const { run, cv } = await search(limit);
      expect(cv.search).toMatchObject({ configurationsPlanned: run.configs.length, configurationsTried: run.configs.length });
      expect(cv.search.stoppedAtTimeLimit).toBe(false);
      expect(cv.search.firstRoundOverran).toBeUndefined();
      expect(cv.alive.size + cv.droppedMetric.size).toBe(run.configs.length);
    }
  });

  it('completes the first round even past the limit, says so, and starts no other', async () => {
    const { run, cv } = await search(1);
    const [first] = searchRounds(run);
    expect(cv.search).toEqual({
      configurationsPlanned: run.configs.length,
      configurationsTried: first.length,
      stoppedAtTimeLimit: true,
      firstRoundOverran: true,
      timeLimitSeconds: 1,
    });
    expect([...cv.alive, ...cv.droppedMetric.keys()].sort((a, b) => a - b)).toEqual(first);
    for (const c of run.configs) expect(cv.oof[c.index] === null).toBe(!first.includes(c.index));
  });

  it('abandons a round that runs past the deadline and discards its partly evaluated configurations', async () => {
    // the first round's fits, as many seconds on the clock
    const { run: firstOnly } = await search(1);
    const first = firstOnly.fits;
    const rounds = searchRounds(firstOnly);
    // a limit whose deadline leaves time for a second round as long as the first; then each fit takes 50 s
    const limit = 3 * first + 1;
    expect(searchDeadline(firstOnly, limit, 1000 * first) - firstOnly.startedAt).toBeGreaterThan(2000 * first);
    const { run, cv } = await search(limit, fitClock(first, 50));
    expect(run.fits).toBeGreaterThan(first); // the second round started...
    expect(cv.search.configurationsTried).toBe(rounds[0].length); // ...and was abandoned
    expect(cv.search.stoppedAtTimeLimit).toBe(true);
    expect(cv.search.firstRoundOverran).toBeUndefined();
    for (const c of rounds[1]) expect(cv.oof[c]).toBeNull();
  });

  it('finishes with the configurations tried: winners, estimates and leaderboard over them, and says it stopped', async () => {
    // a second on the clock each time the engine reads it
    let t = 0;
    const output = await runAnalysis(data, params(1), { seed: 1, threads: 0, now: () => (t += 1000) });
    const search = output.stats.search;
    expect(search?.stoppedAtTimeLimit).toBe(true);
    expect(search?.configurationsTried).toBeLessThan(search?.configurationsPlanned as number);
    expect(output.configurations).toHaveLength(search?.configurationsTried as number);
    const first = searchRounds(startRunFor(params(1)));
    expect(output.configurations.map((c) => c.configuration).sort((a, b) => a - b)).toEqual(first[0]);
    const best = output.models.best;
    expect(best.performance['Area Under the ROC Curve']).toBeGreaterThan(0.9);
    expect(output.configurations.find((c) => c.modelKey === 'best')).toBeDefined();
  });
});

describe('progress within a time limit', () => {
  it('is at least the share of the limit used, and still only the work done without a limit', () => {
    let t = 0;
    const reported: number[] = [];
    const withLimit = new Progress(1000, (f) => reported.push(f), { now: () => t, startedAt: 0, limitMs: 20_000 });
    withLimit.add(10);
    t = 5000;
    withLimit.emit(true);
    t = 30_000;
    withLimit.emit(true);
    withLimit.stop();
    expect(reported).toEqual([0.25, 0.999]);
    const without: number[] = [];
    const plain = new Progress(1000, (f) => without.push(f));
    plain.add(10);
    plain.emit(true);
    plain.stop();
    expect(without).toEqual([0.01]);
  });
});

function startRunFor(p: AnalysisParameters): AnalysisRun {
  const run = startRun(data, p, { seed: 1, threads: 0 });
  void run.runner.close();
  return run;
}
