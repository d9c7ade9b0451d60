import { firstDropFold } from './analysis/cross-validation';
import { DROP_EARLY_SAMPLES } from './analysis/run';
import { bbcEstimate, bootstrapMatrix, bootstrapWeights, configurationsToDrop, MetricContext, OofMatrix, RepeatedEvaluator } from './bbc';
import { ACCURACY, BALANCED_ACCURACY, makeEvaluator, MEAN_AUC } from './metrics';
import { Rng } from './rng';

/** An Rng whose int() returns the given draws in order: bootstraps chosen by hand. */
class ScriptedRng extends Rng {
  private readonly draws: number[];

  constructor(draws: number[]) {
    super(0);
    this.draws = [...draws];
  }

  override int(n: number): number {
    const v = this.draws.shift();
    if (v === undefined || v >= n) throw new Error(`no scripted draw below ${n} left`);
    return v;
  }
}

/** Two-class probabilities (n x 2) that predict `classes`. */
function predicting(classes: number[]): Float64Array {
  return Float64Array.from(classes.flatMap((c) => (c === 1 ? [0.2, 0.8] : [0.9, 0.1])));
}

/** A context where every sample is its own unit. */
function context(y: number[]): MetricContext {
  return {
    outcome: { y: Float64Array.from(y) },
    classCount: 2,
    units: Int32Array.from(y, (_, i) => i),
    unitCount: y.length,
  };
}

// Four samples; A is right on samples 0, 1, 2 (accuracy 3/4), B on samples 0 and 3 (2/4).
const Y = [0, 1, 0, 1];
const A = predicting([0, 1, 0, 0]);
const B = predicting([0, 0, 1, 1]);

describe('bootstrapWeights', () => {
  it('counts how often each unit is drawn and gives each sample its unit count', async () => {
    const ctx = { ...context(Y), units: Int32Array.from([0, 0, 1, 2]), unitCount: 3 };
    expect(Array.from(bootstrapWeights(ctx, new ScriptedRng([0, 2, 2])))).toEqual([1, 1, 0, 2]);
  });
});

describe('RepeatedEvaluator', () => {
  it('averages the metric over the repeats of a configuration', async () => {
    const ev = new RepeatedEvaluator(ACCURACY, [A, B], context(Y));
    expect(ev.evaluate(Float64Array.from([1, 1, 1, 1]))).toBeCloseTo((3 / 4 + 2 / 4) / 2, 12);
  });
});

describe('bootstrapMatrix', () => {
  it("gives the AUC of each set on each bootstrap, in blocks of bootstraps, as each bootstrap's evaluator does (to the bit)", () => {
    // 300 samples of 3 classes over 150 units; sets with and without tied probabilities, two repeats each
    const rng = new Rng(5);
    const n = 300;
    const y = Float64Array.from({ length: n }, (_, i) => i % 3);
    const probabilities = (ties: boolean): Float64Array => {
      const p = new Float64Array(n * 3);
      for (let i = 0; i < n; i++) {
        const raw = [0, 1, 2].map((c) => rng.next() + (c === y[i] ? 0.8 : 0));
        const q = raw.map((v) => (ties ? Math.round(v * 4) / 4 + 0.01 : v));
        const sum = q.reduce((a, b) => a + b, 0);
        q.forEach((v, c) => (p[i * 3 + c] = v / sum));
      }
      return p;
    };
    const sets = [
      [probabilities(false), probabilities(false)],
      [probabilities(true), probabilities(true)],
    ];
    const ctx: MetricContext = {
      outcome: { y },
      classCount: 3,
      units: Int32Array.from({ length: n }, (_, i) => i >> 1),
      unitCount: n / 2,
    };
    const rows = Int32Array.from({ length: 200 }, (_, k) => k + 40);
    // the units of the rows, renumbered from 0 (as configurationsToDrop draws them)
    const draw: MetricContext = { ...ctx, units: Int32Array.from(rows, (r) => (r >> 1) - 20), unitCount: 100 };
    for (const [B, on] of [
      [1001, undefined],
      [7, rows],
    ] as const) {
      const { point, values } = bootstrapMatrix({ sets, metric: MEAN_AUC, ctx, rows: on, draw: on ? draw : ctx, B, rng: new Rng(9) });
      const evaluators = sets.map((p) => new RepeatedEvaluator(MEAN_AUC, p, ctx, on));
      const all = new Float64Array(on ? on.length : n).fill(1);
      expect(Array.from(point)).toEqual(evaluators.map((ev) => ev.evaluate(all)));
      const again = new Rng(9);
      for (let b = 0; b < B; b++) {
        const w = bootstrapWeights(on ? draw : ctx, again);
        evaluators.forEach((ev, j) => expect(Object.is(values[b * 2 + j], ev.evaluate(w))).toBe(true));
      }
    }
  });
});

describe('BBC-CV (bbcEstimate)', () => {
  it('scores, in each bootstrap, the in-bag winner on the out-of-bag samples (hand-computed)', async () => {
    // bootstrap 1 draws samples 0, 1, 2, 2: in-bag accuracy A 4/4, B 1/4; A is scored on sample 3: wrong, 0.
    // bootstrap 2 draws 3, 3, 3, 2: in-bag A 1/4, B 3/4; B is scored on samples 0 and 1: 1/2.
    const oof: OofMatrix = [[A], [B]];
    const result = await bbcEstimate(oof, [0, 1], [ACCURACY, BALANCED_ACCURACY], context(Y), 2, new ScriptedRng([0, 1, 2, 2, 3, 3, 3, 2]));
    expect(result.estimate[ACCURACY]).toBeCloseTo(0.25, 12);
    // the 2.5 and 97.5 percentiles of [0, 0.5], interpolated
    expect(result.cis[ACCURACY][0]).toBeCloseTo(0.0125, 12);
    expect(result.cis[ACCURACY][1]).toBeCloseTo(0.4875, 12);
    // the other metrics are those of the same chosen configuration on the same out-of-bag samples:
    // bootstrap 1, class 1 only: Balanced Accuracy is undefined on one class and left out; bootstrap 2, one of each
    // class: (1/1 + 0/1) / 2
    expect(result.estimate[BALANCED_ACCURACY]).toBeCloseTo(0.5, 12);
  });

  it('keeps the first configuration on a tie in-bag', async () => {
    // draws 0, 0, 1, 3: in-bag A and B both 3/4; A is scored on sample 2 (right), B would have been wrong
    const result = await bbcEstimate([[A], [B]], [0, 1], [ACCURACY], context(Y), 1, new ScriptedRng([0, 0, 1, 3]));
    expect(result.estimate[ACCURACY]).toBe(1);
  });

  it('uses only the candidates it is given, by their index in the out-of-fold matrix', async () => {
    // the same bootstraps as the first test with B alone: bootstrap 1 scores B on sample 3 (right), bootstrap 2 on 0 and 1 (1/2)
    const result = await bbcEstimate([null, [B]], [1], [ACCURACY], context(Y), 2, new ScriptedRng([0, 1, 2, 2, 3, 3, 3, 2]));
    expect(result.estimate[ACCURACY]).toBeCloseTo(0.75, 12);
  });

  describe('properties', () => {
    const n = 60;
    const y = Array.from({ length: n }, (_, i) => i % 2);
    const ctx = context(y);
    // a clear winner: right on 57 of 60 samples
    const winner = predicting(y.map((c, i) => (i % 20 === 3 ? 1 - c : c)));
    const noise = (seed: number): Float64Array => {
      const r = new Rng(seed);
      return predicting(y.map(() => r.int(2)));
    };

    it('the estimate of a single configuration is the mean of its out-of-bag metric over the bootstraps', async () => {
      const B = 200;
      const result = await bbcEstimate([[winner]], [0], [ACCURACY], ctx, B, new Rng(11));
      const replay = new Rng(11);
      const ev = makeEvaluator(ACCURACY, winner, ctx.outcome, 2);
      let sum = 0;
      for (let b = 0; b < B; b++) {
        const w = bootstrapWeights(ctx, replay);
        sum += ev(Float64Array.from(w, (v) => (v > 0 ? 0 : 1)));
      }
      expect(result.estimate[ACCURACY]).toBeCloseTo(sum / B, 12);
      expect(result.estimate[ACCURACY]).toBeGreaterThan(0.9);
    });

    it('adding configurations that are pure noise never raises the estimate of a clear winner', async () => {
      const alone = (await bbcEstimate([[winner]], [0], [ACCURACY], ctx, 300, new Rng(5))).estimate[ACCURACY];
      for (let s = 0; s < 10; s++) {
        const oof: OofMatrix = [[winner], [noise(100 + s)], [noise(200 + s)]];
        const withNoise = (await bbcEstimate(oof, [0, 1, 2], [ACCURACY], ctx, 300, new Rng(5))).estimate[ACCURACY];
        expect(withNoise).toBeLessThanOrEqual(alone);
      }
    });

    it('corrects the optimism of picking the best of many noise configurations', async () => {
      const oof: OofMatrix = Array.from({ length: 30 }, (_, c) => [noise(300 + c)]);
      const all = Array.from({ length: 30 }, (_, c) => c);
      const ones = new Float64Array(n).fill(1);
      const naive = Math.max(...all.map((c) => makeEvaluator(ACCURACY, (oof[c] as Float64Array[])[0], ctx.outcome, 2)(ones)));
      const bbc = (await bbcEstimate(oof, all, [ACCURACY], ctx, 500, new Rng(9))).estimate[ACCURACY];
      // the best of 30 coin flips on 60 samples looks better than chance; BBC-CV sees about chance
      expect(naive).toBeGreaterThan(0.6);
      expect(bbc).toBeLessThan(naive - 0.05);
      expect(Math.abs(bbc - 0.5)).toBeLessThan(0.06);
    });

    it('gives the same estimate and intervals for the same seed, and other bootstraps for another', async () => {
      const oof: OofMatrix = [[winner], [noise(1)], [noise(2)]];
      const run = (seed: number) => bbcEstimate(oof, [0, 1, 2], [ACCURACY, BALANCED_ACCURACY], ctx, 100, new Rng(seed));
      expect(await run(42)).toEqual(await run(42));
      expect((await run(43)).cis[ACCURACY]).not.toEqual((await run(42)).cis[ACCURACY]);
    });
  });
});

describe('BBCD-CV dropping (configurationsToDrop)', () => {
  const all = Int32Array.from([0, 1, 2, 3]);

  it('counts, over bootstraps, how often a configuration loses to its pool leader (hand-computed)', async () => {
    // leader on all rows: A (3/4 against 2/4). Bootstrap 1 (0, 1, 2, 2): A 4/4, B 1/4, B loses.
    // Bootstrap 2 (3, 3, 3, 2): A 1/4, B 3/4, B does not lose. B loses with probability 1/2.
    const draws = [0, 1, 2, 2, 3, 3, 3, 2];
    const oof: OofMatrix = [[A], [B]];
    expect([...(await configurationsToDrop(oof, [[0, 1]], ACCURACY, context(Y), all, 2, 0.49, new ScriptedRng(draws)))]).toEqual([1]);
    // dropped only above the threshold
    expect((await configurationsToDrop(oof, [[0, 1]], ACCURACY, context(Y), all, 2, 0.5, new ScriptedRng(draws))).size).toBe(0);
  });

  describe('on a clear winner and a clear loser', () => {
    const n = 80;
    const y = Array.from({ length: n }, (_, i) => i % 2);
    const ctx = context(y);
    const winner = predicting(y.map((c, i) => (i % 16 === 5 ? 1 - c : c)));
    // as good as the winner, wrong on other samples
    const close = predicting(y.map((c, i) => (i % 16 === 9 ? 1 - c : c)));
    const loser = predicting(y.map((c, i) => (i % 3 === 0 ? c : 1 - c)));
    const rows = Int32Array.from({ length: n }, (_, i) => i);

    it('drops the loser and keeps the winner and a configuration that is nearly as good', async () => {
      const drop = await configurationsToDrop([[winner], [loser], [close]], [[0, 1, 2]], ACCURACY, ctx, rows, 200, 0.99, new Rng(3));
      expect([...drop]).toEqual([1]);
    });

    it('keeps a configuration that leads another pool, even when it loses in this one', async () => {
      const drop = await configurationsToDrop([[winner], [loser], [close]], [[0, 1, 2], [1]], ACCURACY, ctx, rows, 200, 0.99, new Rng(3));
      expect(drop.size).toBe(0);
    });

    it('judges on the rows predicted so far only', async () => {
      // on rows where all three are right, nobody loses
      const easy = Int32Array.from(rows.filter((i) => i % 3 === 0 && i % 16 !== 5 && i % 16 !== 9));
      const drop = await configurationsToDrop([[winner], [loser], [close]], [[0, 1, 2]], ACCURACY, ctx, easy, 200, 0.99, new Rng(3));
      expect(drop.size).toBe(0);
    });

    it('decides alike for configurations with the same predictions (a shared fit), as for each alone', async () => {
      // copies of the loser and of the winner, the latter the same only on the rows judged
      const winnerElsewhere = Float64Array.from(winner, (v, k) => (Math.floor(k / 2) === n - 1 ? 1 - v : v));
      const judged = rows.subarray(0, n - 1);
      const oof: OofMatrix = [[winner], [loser], [close], [Float64Array.from(loser)], [winnerElsewhere]];
      const drop = await configurationsToDrop(oof, [[0, 1, 2, 3, 4]], ACCURACY, ctx, judged, 200, 0.99, new Rng(3));
      expect([...drop].sort()).toEqual([1, 3]);
      const alone = await configurationsToDrop([[winner], [loser], [close]], [[0, 1, 2]], ACCURACY, ctx, judged, 200, 0.99, new Rng(3));
      expect([...alone]).toEqual([1]);
    });
  });
});

describe('when BBCD-CV starts dropping (firstDropFold)', () => {
  const assignment = (n: number, k: number): Int32Array => Int32Array.from({ length: n }, (_, i) => i % k);
  it('after the third fold, or after the second once the first two hold DROP_EARLY_SAMPLES samples', () => {
    expect(firstDropFold(assignment(569, 10))).toBe(2);
    expect(firstDropFold(assignment(1400, 10))).toBe(2); // 280 samples in folds 0 and 1
    expect(firstDropFold(assignment(1500, 10))).toBe(1); // 300
    expect(firstDropFold(assignment(DROP_EARLY_SAMPLES * 5, 10))).toBe(1);
    expect(firstDropFold(assignment(DROP_EARLY_SAMPLES * 5 - 10, 10))).toBe(2);
  });
});
