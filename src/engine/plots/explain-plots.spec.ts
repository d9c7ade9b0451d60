import { loadShared, parameters } from '../../../bench/engine-datasets';
import { plotContext } from '../../../test/plot-context';
import { finalModelView } from '../analysis/model-plots';
import { prepareData } from '../data';
import { Pipeline, runTask } from '../pipeline';
import { createRunner } from '../pool';
import { Rng } from '../rng';
import type { EngineColumn, ModelView, SavedPipeline } from '../types';
import type { FinalModelView } from './plot-kind';
import { BRIER_SCORE } from './brier-score';
import { FEATURE_CONTRIBUTIONS } from './feature-contributions';
import { PARTIAL_DEPENDENCE } from './partial-dependence';
import { PRECISION_RECALL_CURVE } from './precision-recall';
import { brierScores, byTime, censoringDistribution, eventTimeQuartiles, stepAt, timeDependentAuc } from './survival-metrics';
import { THRESHOLD_GRID, THRESHOLD_TABLE } from './threshold-table';
import { TIME_DEPENDENT_AUC } from './time-dependent-auc';

/** 20 scores and outcomes whose average precision scikit-learn gives (average_precision_score, 1.2.1). */
const Y = [1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1];
const S = [0.9, 0.8, 0.8, 0.7, 0.65, 0.6, 0.6, 0.5, 0.45, 0.4, 0.4, 0.35, 0.3, 0.25, 0.2, 0.2, 0.15, 0.1, 0.05, 0.05];
const SKLEARN_AP = 0.6104056437389771;

function defined<T>(v: T | undefined): T {
  if (v === undefined) throw new Error('the plot was not drawn');
  return v;
}

function binary(): ReturnType<typeof plotContext> {
  const p = Float64Array.from(S.flatMap((s) => [1 - s, s]));
  return plotContext('classification', p, Float64Array.from(Y), ['no', 'yes']);
}

describe('Precision-Recall Curve', () => {
  it("gives scikit-learn's average precision, the prevalence, and an interval around it", async () => {
    const v = defined(await PRECISION_RECALL_CURVE.compute(binary()));
    expect(v.averagePrecision).toBeCloseTo(SKLEARN_AP, 12);
    expect(v.prevalence).toBe(0.45);
    expect(v.cis[0]).toBeLessThan(v.averagePrecision);
    expect(v.cis[1]).toBeGreaterThan(v.averagePrecision);
    expect(v.points[0]).toEqual({ recall: 1 / 9, precision: 1, threshold: 0.9 });
    expect(v.points[v.points.length - 1]).toEqual({ recall: 1, precision: 0.45, threshold: 0.05 });
  });
});

describe('Threshold Table', () => {
  it('has at each threshold the sensitivity, specificity, PPV and NPV of a recount of the out-of-fold probabilities', async () => {
    const v = defined(await THRESHOLD_TABLE.compute(binary()));
    expect(v.rows.map((r) => r.threshold)).toEqual(THRESHOLD_GRID);
    for (const r of [...v.rows, v.youden]) {
      const called = S.map((s) => s >= r.threshold);
      const tp = called.filter((c, i) => c && Y[i] === 1).length;
      const fp = called.filter((c, i) => c && Y[i] === 0).length;
      const fn = called.filter((c, i) => !c && Y[i] === 1).length;
      const tn = called.filter((c, i) => !c && Y[i] === 0).length;
      expect(r.calledPositive).toBe(tp + fp);
      expect(r.sensitivity).toBeCloseTo(tp / (tp + fn), 12);
      expect(r.specificity).toBeCloseTo(tn / (tn + fp), 12);
      if (tp + fp > 0) expect(r.ppv).toBeCloseTo(tp / (tp + fp), 12);
      else expect(r.ppv).toBeUndefined();
      if (tn + fn > 0) expect(r.npv).toBeCloseTo(tn / (tn + fn), 12);
      expect(r.sensitivityCis[0]).toBeLessThanOrEqual(r.sensitivity);
      expect(r.sensitivityCis[1]).toBeGreaterThanOrEqual(r.sensitivity);
    }
  });

  it("puts Youden's threshold at the score of the largest sensitivity + specificity - 1", async () => {
    const v = defined(await THRESHOLD_TABLE.compute(binary()));
    const j = (t: number): number => {
      const se = S.filter((s, i) => s >= t && Y[i] === 1).length / 9;
      const sp = S.filter((s, i) => s < t && Y[i] === 0).length / 11;
      return se + sp - 1;
    };
    const best = Math.max(...S.map(j));
    expect(v.youden.j).toBeCloseTo(best, 12);
    expect(j(v.youden.threshold)).toBeCloseTo(best, 12);
    expect(S).toContain(v.youden.threshold);
  });
});

/** Survival data: times with ties, a third censored, and a risk score that is informative but not perfect. */
function survivalData(n: number): { time: Float64Array; event: Float64Array; risk: Float64Array } {
  const rng = new Rng(11);
  const risk = Float64Array.from({ length: n }, () => rng.normal());
  const time = Float64Array.from(risk, (r) => Math.ceil(50 * Math.exp(-0.8 * r + 0.6 * rng.normal())));
  const event = Float64Array.from({ length: n }, () => (rng.next() < 0.67 ? 1 : 0));
  return { time, event, risk };
}

/** The standard normal distribution function (Abramowitz and Stegun 7.1.26, error below 1.5e-7). */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** G(t) by the plain product-limit formula over the censored samples, independent of survival-metrics.ts. */
function censoringAt(time: Float64Array, event: Float64Array, t: number, strictlyBefore: boolean): number {
  const times = [...new Set(Array.from(time).filter((s, i) => event[i] === 0 && (strictlyBefore ? s < t : s <= t)))].sort((a, b) => a - b);
  return times.reduce((g, s) => {
    const atRisk = time.filter((u) => u >= s).length;
    const censored = time.filter((u, i) => u === s && event[i] === 0).length;
    return g * (1 - censored / atRisk);
  }, 1);
}

describe('time-dependent AUC and Brier score', () => {
  const { time, event, risk } = survivalData(120);
  const ones = new Float64Array(120).fill(1);
  const G = censoringDistribution(time, event, ones, byTime(time));
  const ascending = Int32Array.from(risk.keys()).sort((a, b) => risk[a] - risk[b]);

  it('estimates the censoring distribution by Kaplan-Meier', () => {
    for (const t of [5, 20, 50, 80]) {
      expect(stepAt(G, t)).toBeCloseTo(censoringAt(time, event, t, false), 12);
      expect(stepAt(G, t, true)).toBeCloseTo(censoringAt(time, event, t, true), 12);
    }
  });

  it('gives the IPCW cumulative/dynamic AUC of a double sum over cases and controls', () => {
    const times = eventTimeQuartiles(time, event);
    const auc = timeDependentAuc(risk, time, event, ones, times, ascending, G);
    times.forEach((t, k) => {
      let num = 0;
      let den = 0;
      for (let i = 0; i < 120; i++) {
        if (!(time[i] <= t && event[i] === 1)) continue;
        const w = 1 / censoringAt(time, event, time[i], true);
        for (let j = 0; j < 120; j++) {
          if (!(time[j] > t)) continue;
          den += w;
          num += w * (risk[i] > risk[j] ? 1 : risk[i] === risk[j] ? 0.5 : 0);
        }
      }
      expect(auc[k]).toBeCloseTo(num / den, 12);
      expect(auc[k]).toBeGreaterThan(0.6);
    });
  });

  it('gives without censoring the plain AUC, and 1 for a risk that orders the times', () => {
    const all = new Float64Array(120).fill(1);
    const none = censoringDistribution(time, all, ones, byTime(time));
    const t = 40;
    const perfect = Float64Array.from(time, (s) => -s);
    const order = Int32Array.from(perfect.keys()).sort((a, b) => perfect[a] - perfect[b]);
    expect(timeDependentAuc(perfect, time, all, ones, [t], order, none)[0]).toBe(1);
  });

  it('gives the IPCW Brier score of Graf et al.', () => {
    const times = [10, 30, 60];
    const S = Float64Array.from({ length: 120 * 3 }, (_, q) => 1 / (1 + Math.exp(risk[Math.floor(q / 3)] + Math.log(times[q % 3] / 30))));
    const bs = brierScores(S, time, event, ones, times, G);
    times.forEach((t, k) => {
      let s = 0;
      for (let i = 0; i < 120; i++) {
        const p = S[i * 3 + k];
        if (time[i] <= t && event[i] === 1) s += (p * p) / censoringAt(time, event, time[i], true);
        else if (time[i] > t) s += ((1 - p) * (1 - p)) / censoringAt(time, event, t, false);
      }
      expect(bs[k]).toBeCloseTo(s / 120, 12);
    });
  });

  it('plots the AUC at the quartiles of the event times, and the Brier score against the Kaplan-Meier reference', async () => {
    const times = [8, 15, 25, 40];
    // the true survival of the simulation: log T = log 50 - 0.8 risk + 0.6 N(0, 1)
    const S = Float64Array.from({ length: 120 * 4 }, (_, q) =>
      normalCdf((Math.log(50) - 0.8 * risk[Math.floor(q / 4)] - Math.log(times[q % 4])) / 0.6),
    );
    const ctx = plotContext('survival', risk, time, [], event, {
      explanation: {
        features: [],
        scale: 'risk',
        method: 'exactTree',
        heads: 1,
        values: new Float64Array(0),
        base: new Float64Array(0),
        output: new Float64Array(0),
        survival: { times, values: S },
      },
    });
    const auc = await TIME_DEPENDENT_AUC.compute(ctx);
    expect(auc?.map((p) => p.time)).toEqual(eventTimeQuartiles(time, event));
    const brier = await BRIER_SCORE.compute(ctx);
    if (!brier) throw new Error('no Brier score');
    expect(brier.points.map((p) => p.time)).toEqual(times);
    // an informative model beats the Kaplan-Meier curve that ignores the risk
    expect(brier.integrated).toBeLessThan(brier.reference);
    expect(brier.integratedCis[0]).toBeLessThanOrEqual(brier.integrated);
  });
});

describe('Feature Contributions', () => {
  it('is the mean absolute contribution of each feature, from the largest', async () => {
    const n = 4;
    const values = Float64Array.from([1, -2, 3, 0.5, -1, 2, 0, 1]); // 4 samples x 2 features
    const ctx = plotContext('regression', new Float64Array(n), new Float64Array(n), [], undefined, {
      explanation: {
        features: ['a', 'b'],
        scale: 'prediction',
        method: 'closedForm',
        heads: 1,
        values,
        base: new Float64Array(n),
        output: new Float64Array(n),
      },
    });
    const v = await FEATURE_CONTRIBUTIONS.compute(ctx);
    expect(v?.outputs[0].features.map((f) => [f.name, f.value])).toEqual([
      ['b', (2 + 0.5 + 2 + 1) / 4],
      ['a', (1 + 3 + 1 + 0) / 4],
    ]);
  });
});

describe('Partial Dependence', () => {
  it("of a linear model is a straight line with the model's slope on each feature", async () => {
    const data = loadShared('diabetes');
    const prepared = prepareData(data, parameters({ regression: 'progression' }, 'preliminary'));
    const all = Int32Array.from({ length: prepared.n }, (_, i) => i);
    const features = [0, 2, 3];
    const config = { index: 0, selector: { kind: 'all' as const }, model: { kind: 'linear' as const, lambda: 0.01 }, interpretable: true };
    const res = runTask(
      { ...prepared, maxSignatureSize: 25, seed: 1 },
      { id: 0, config, train: all, test: new Int32Array(0), seedIds: [0], fixedFeatures: features, final: true },
    );
    const view = res.modelView as ModelView;
    const ctx = plotContext('regression', new Float64Array(prepared.n), prepared.y, [], undefined, {
      finalModel: finalModelView(prepared, res.pipeline),
    });
    const v = await PARTIAL_DEPENDENCE.compute(ctx);
    if (!v) throw new Error('no partial dependence');
    expect(v.features.map((f) => f.feature)).toEqual(features.map((j) => prepared.features[j].name));
    v.features.forEach((f, j) => {
      const grid = f.grid;
      const avg = f.outputs[0].average;
      expect(grid.length).toBeGreaterThan(5);
      const slope = (view.originalCoefficients as number[])[j];
      for (let k = 1; k < grid.length; k++) expect((avg[k] - avg[0]) / (grid[k] - grid[0])).toBeCloseTo(slope, 8);
      // each individual curve is the same line, shifted
      for (const c of f.outputs[0].curves)
        expect((c.values[grid.length - 1] - c.values[0]) / (grid[grid.length - 1] - grid[0])).toBeCloseTo(slope, 8);
    });
  });
});

describe("Partial Dependence's predictions", () => {
  it('are the final pipeline’s predictions of each grid value (a forest’s on an ascending grid to rounding), the same to the bit on worker threads as here', async () => {
    const data = loadShared('iris');
    const prepared = prepareData(data, parameters({ classification: 'species' }, 'preliminary'), true);
    const all = Int32Array.from({ length: prepared.n }, (_, i) => i);
    const config = {
      index: 0,
      selector: { kind: 'all' as const },
      model: { kind: 'forest' as const, trees: 20, mtryFactor: 1, minLeaf: 1 },
      interpretable: false,
    };
    const taskData = { ...prepared, maxSignatureSize: 25, seed: 1 };
    const res = runTask(taskData, {
      id: 0,
      config,
      train: all,
      test: new Int32Array(0),
      seedIds: [0],
      fixedFeatures: [0, 2, 3],
      final: true,
    });
    const saved = res.pipeline as SavedPipeline;
    const rows = Int32Array.from([3, 50, 77, 120, 149]);
    const grids = [
      { feature: 0, values: [4.5, 5.5, 7] },
      { feature: 2, values: [1, 4] },
      { feature: 3, values: [0.2] },
    ];
    const here = await (finalModelView(prepared, saved) as FinalModelView).predictGrids(rows, grids);
    const runner = createRunner(taskData, 2);
    try {
      const onThreads = await (finalModelView(prepared, saved, undefined, runner) as FinalModelView).predictGrids(rows, grids);
      // (arrays from a worker thread are of Node's realm, not the test's: compared as plain arrays)
      const plain = (outs: Float64Array[][]): number[][][] => outs.map((grid) => grid.map((o) => Array.from(o)));
      expect(plain(onThreads)).toEqual(plain(here));
    } finally {
      await runner.close();
    }
    // each value as the pipeline predicts the samples with the feature set to it: a forest's ascending grid adds its
    // trees' values in another order (tree-blocks.ts, accumulateForestBlocks)
    const pipeline = Pipeline.fromJSON(saved);
    grids.forEach(({ feature, values }, j) =>
      values.forEach((value, g) => {
        const columns = [0, 2, 3].map((f): EngineColumn => ({
          name: prepared.features[f].name,
          type: 'numerical',
          values: Float64Array.from(rows, (r) => (f === feature ? value : prepared.X[f * prepared.n + r])),
        }));
        const predicted = pipeline.predict({ sampleCount: rows.length, columns });
        const expected = predicted.flatMap((p) => prepared.classes.map((c) => (p.probabilities as Record<string, number>)[c]));
        expect(here[j][g]).toHaveLength(expected.length);
        here[j][g].forEach((v, k) => expect(Math.abs(v - expected[k])).toBeLessThan(1e-12));
      }),
    );
  });
});
