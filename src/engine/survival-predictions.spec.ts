import * as fs from 'node:fs';
import * as path from 'node:path';
import { TEST_REFERENCES } from '../../test/data';
import { loadShared, parameters } from '../../bench/engine-datasets';
import { subsetDataset } from '../../bench/csv-dataset';
import { prepareData } from './data';
import type { Configuration } from './grid';
import { design } from './models/common';
import { CoxRegression } from './models/cox';
import { RandomForest } from './models/forest';
import { leafHazards, SURVIVAL_GRID_MAX, survivalGrid } from './models/forest-survival';
import { distinctEventTimes, timeQuartiles } from './models/survival-tree';
import { Rng } from './rng';
import { Pipeline, runTask, TaskData } from './pipeline';
import type { EngineDataset, ModelView, SavedPipeline } from './types';

/** R's Cox fit on lung's complete cases (make-references.R): its coefficients, and survfit's survival at `times` and medians for `newdata`. */
interface CoxReference {
  features: string[];
  coefficients: number[];
  newdata: number[][];
  times: number[];
  survival: number[][];
  median: number[];
}
const R = (JSON.parse(fs.readFileSync(path.join(TEST_REFERENCES, 'survival-references.json'), 'utf8')) as { cox: CoxReference }).cox;
const FEATURES: string[] = R.features;

/** lung without the samples missing time, status, age, sex or ph.ecog (R's complete cases). */
function completeLung(): EngineDataset {
  const lung = loadShared('lung');
  const values = (name: string) => {
    const c = lung.columns.find((x) => x.name === name);
    return c && 'values' in c ? c.values : new Float64Array(0);
  };
  const rows = Array.from({ length: lung.sampleCount }, (_, i) => i).filter((i) =>
    ['time', 'status', ...FEATURES].every((f) => !Number.isNaN(values(f)[i])),
  );
  return subsetDataset(lung, rows);
}

/** Cox regression (no penalty) on age, sex and ph.ecog, fitted as an analysis fits its final model. */
function fitCox(data: EngineDataset): { pipeline: SavedPipeline; view: ModelView } {
  const prepared = prepareData(data, parameters({ survival: { event: 'status', timeToEvent: 'time' } }, 'preliminary'));
  const task: TaskData = { ...prepared, maxSignatureSize: 25, seed: 1 };
  const config: Configuration = { index: 0, selector: { kind: 'all' }, model: { kind: 'linear', lambda: 0 }, interpretable: true };
  const all = Int32Array.from({ length: prepared.n }, (_, i) => i);
  const features = FEATURES.map((f) => prepared.features.findIndex((x) => x.name === f));
  const res = runTask(task, { id: 0, config, train: all, test: new Int32Array(0), seedIds: [0], fixedFeatures: features, final: true });
  return { pipeline: res.pipeline as SavedPipeline, view: res.modelView as ModelView };
}

describe('survival predictions of a Cox model', () => {
  const data = completeLung();
  const { pipeline, view } = fitCox(data);
  const newdata: EngineDataset = {
    sampleCount: R.newdata.length,
    columns: FEATURES.map((name, j) => ({ name, type: 'numerical', values: Float64Array.from(R.newdata, (r) => r[j]) })),
  };

  it("has R's coxph coefficients on the original scale", () => {
    expect(view.featureNames).toEqual(FEATURES);
    (view.originalCoefficients as number[]).forEach((b, j) => expect(b).toBeCloseTo(R.coefficients[j], 6));
  });

  it("gives R's survfit(coxph(...), newdata) survival at three times (Breslow baseline) to 1e-4, and its medians", () => {
    const rows = Pipeline.fromJSON(pipeline).predict(newdata, { times: R.times });
    rows.forEach((r, i) => {
      expect(r.survival?.map((s) => s.time)).toEqual(R.times);
      r.survival?.forEach((s, k) => expect(Math.abs(s.probability - R.survival[i][k])).toBeLessThan(1e-4));
      expect(r.medianSurvivalTime).toBe(R.median[i]);
    });
  });

  it('defaults to the quartiles of the training times, and survives a JSON round trip', () => {
    const reloaded = Pipeline.fromJSON(JSON.parse(JSON.stringify(pipeline)) as SavedPipeline);
    const rows = reloaded.predict(newdata);
    const times = Array.from((data.columns.find((c) => c.name === 'time') as { values: Float64Array }).values).sort((a, b) => a - b);
    const q = (p: number) => {
      const pos = (times.length - 1) * p;
      return times[Math.floor(pos)] + (times[Math.ceil(pos)] - times[Math.floor(pos)]) * (pos - Math.floor(pos));
    };
    expect(rows[0].survival?.map((s) => s.time)).toEqual([q(0.25), q(0.5), q(0.75)]);
    expect(rows).toEqual(Pipeline.fromJSON(pipeline).predict(newdata));
  });

  it('the survival falls with the time and is 1 before the first event', () => {
    const [row] = Pipeline.fromJSON(pipeline).predict(newdata, { times: [0, 100, 200, 400, 800] });
    const p = (row.survival ?? []).map((s) => s.probability);
    expect(p[0]).toBe(1);
    for (let k = 1; k < p.length; k++) expect(p[k]).toBeLessThanOrEqual(p[k - 1]);
  });

  it('a Cox model saved before it kept its baseline predicts the risk only', () => {
    const json = JSON.parse(JSON.stringify(pipeline)) as SavedPipeline;
    delete json.model.baselineTimes;
    delete json.model.baselineHazard;
    const [row] = Pipeline.fromJSON(json).predict(newdata);
    expect(row.survival).toBeUndefined();
    expect(typeof row.risk).toBe('number');
    expect(CoxRegression.fromJSON(json.model).hasBaseline()).toBe(false);
  });
});

/** 80 samples whose first feature drives the hazard; whole-day times, so that some are tied. */
function forestSamples() {
  const n = 80;
  const gen = new Rng(3);
  const rowsX: number[][] = [];
  const time = new Float64Array(n);
  const event = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    rowsX.push([gen.next() * 2 - 1, gen.next()]);
    const t = Math.ceil((-Math.log(gen.next()) / Math.exp(1.5 * rowsX[i][0])) * 30);
    const c = Math.ceil(gen.next() * 60);
    time[i] = Math.min(t, c);
    event[i] = t <= c ? 1 : 0;
  }
  return { n, rowsX, time, event };
}

describe('survival predictions of a random survival forest', () => {
  const { n, rowsX, time, event } = forestSamples();
  const X = design(rowsX);
  const target = { y: time, event };
  const eventTimes = distinctEventTimes(time, event);

  /** The Nelson-Aalen cumulative hazard of a multiset of training rows, counted by hand, at time `at`. */
  const nelsonAalen = (rows: number[], at: number): number => {
    let H = 0;
    for (const t of [...new Set(rows.map((r) => time[r]))].sort((a, b) => a - b)) {
      if (t > at) break;
      const deaths = rows.filter((r) => time[r] === t && event[r]).length;
      const atRisk = rows.filter((r) => time[r] >= t).length;
      H += deaths / atRisk;
    }
    return H;
  };
  /** The node of a tree that design row i falls in, by hand. */
  const leafIn = (tree: RandomForest['trees'][number], i: number): number => {
    let k = 0;
    while (tree.feature[k] >= 0) k = rowsX[i][tree.feature[k]] <= tree.threshold[k] ? tree.left[k] : tree.right[k];
    return k;
  };

  it("a one-tree forest gives each sample the Nelson-Aalen survival of its leaf's in-bag rows, counted by hand", () => {
    const forest = new RandomForest('survival', 1, 1, 8).fit(X, target, new Rng(11));
    // the tree's bootstrap rows, drawn as RandomForest.fit draws them
    const seed = Math.floor(new Rng(11).next() * 4294967296);
    const draw = new Rng(seed, 0);
    const inBag = Array.from({ length: n }, () => draw.int(n));
    const tree = forest.trees[0];
    const times = [0, 3, 10, 17.5, 30, 45, 1000];
    const curves = forest.survival(X, times);
    for (let i = 0; i < n; i += 7) {
      const leaf = leafIn(tree, i);
      const rows = inBag.filter((r) => leafIn(tree, r) === leaf);
      // the leaf's ensemble mortality (the risk) is its hazard summed over the training event times: the same rows
      expect(tree.value[leaf]).toBeCloseTo(
        eventTimes.reduce((s, t) => s + nelsonAalen(rows, t), 0),
        10,
      );
      times.forEach((t, k) => expect(curves[i].survival[k]).toBeCloseTo(Math.exp(-nelsonAalen(rows, t)), 12));
      const median = eventTimes.find((t) => Math.exp(-nelsonAalen(rows, t)) <= 0.5);
      expect(curves[i].median).toBe(median);
    }
  });

  it("a forest's hazard is the mean of its trees' hazards, and its risk that hazard summed over the event times", () => {
    const forest = new RandomForest('survival', 7, 1, 5).fit(X, target, new Rng(5));
    const json = forest.toJSON();
    const times = [...eventTimes, ...eventTimes.map((t) => t + 0.5)];
    const hazard = (m: RandomForest) => m.survival(X, times).map((c) => c.survival.map((s) => -Math.log(s)));
    const whole = hazard(forest);
    const perTree = (json.trees as Record<string, unknown>[]).map((tree) =>
      hazard(RandomForest.fromJSON({ ...json, treeCount: 1, trees: [tree] })),
    );
    const risk = forest.predict(X);
    for (let i = 0; i < n; i++) {
      times.forEach((_, k) => expect(whole[i][k]).toBeCloseTo(perTree.reduce((s, h) => s + h[i][k], 0) / perTree.length, 12));
      expect(risk[i]).toBeCloseTo(
        whole[i].slice(0, eventTimes.length).reduce((s, h) => s + h, 0),
        9,
      );
    }
  });

  it('keeps at most SURVIVAL_GRID_MAX grid times: a hazard step falls on the next grid time, the last event time is kept', () => {
    expect(
      survivalGrid(
        Float64Array.from({ length: 10 }, (_, k) => k + 1),
        4,
      ),
    ).toEqual(Float64Array.from([3, 5, 8, 10]));
    expect(survivalGrid(eventTimes)).toEqual(eventTimes); // fewer than SURVIVAL_GRID_MAX: every event time
    expect(SURVIVAL_GRID_MAX).toBe(200);
    // one leaf (a tree of a root only) of ten rows with an event at 1, 2, ..., 10
    const stump = {
      feature: Int32Array.of(-1),
      threshold: Float64Array.of(0),
      left: Int32Array.of(-1),
      right: Int32Array.of(-1),
      value: Float64Array.of(0),
      width: 1,
    };
    const ten = { y: Float64Array.from({ length: 10 }, (_, k) => k + 1), event: new Float64Array(10).fill(1) };
    const steps = leafHazards(
      stump,
      design(Array.from({ length: 10 }, () => [0])),
      ten,
      Int32Array.from({ length: 10 }, (_, k) => k),
      Float64Array.of(3, 5, 8, 10),
    );
    // each event time's deaths and rows at risk, at the first grid time at or after it
    expect(Array.from(steps.index)).toEqual([0, 0, 0, 1, 1, 2, 2, 2, 3, 3]);
    expect(Array.from(steps.deaths)).toEqual(Array(10).fill(1));
    expect(Array.from(steps.atRisk)).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(Array.from(steps.start)).toEqual([0, 10]);
  });

  it('predicts through its saved pipeline, the same after a JSON round trip; a forest saved before predicts the risk only', () => {
    const data: EngineDataset = {
      sampleCount: n,
      columns: [
        { name: 'a', type: 'numerical', values: Float64Array.from(rowsX, (r) => r[0]) },
        { name: 'b', type: 'numerical', values: Float64Array.from(rowsX, (r) => r[1]) },
        { name: 'time', type: 'timeToEvent', values: time },
        { name: 'status', type: 'event', values: event },
      ],
    };
    const prepared = prepareData(data, parameters({ survival: { event: 'status', timeToEvent: 'time' } }, 'preliminary'));
    const config: Configuration = {
      index: 0,
      selector: { kind: 'all' },
      model: { kind: 'forest', trees: 20, mtryFactor: 1, minLeaf: 5 },
      interpretable: false,
    };
    const all = Int32Array.from({ length: prepared.n }, (_, i) => i);
    const task: TaskData = { ...prepared, maxSignatureSize: 25, seed: 1 };
    const res = runTask(task, { id: 0, config, train: all, test: new Int32Array(0), seedIds: [0], fixedFeatures: [0, 1], final: true });
    const saved = JSON.parse(JSON.stringify(res.pipeline)) as SavedPipeline;
    const rows = Pipeline.fromJSON(saved).predict(data);
    // default times: the quartiles of the training times
    expect(rows[0].survival?.map((s) => s.time)).toEqual(timeQuartiles(time));
    expect(rows).toEqual(Pipeline.fromJSON(res.pipeline as SavedPipeline).predict(data));
    for (const r of rows) {
      const p = (r.survival ?? []).map((s) => s.probability);
      expect(p[0]).toBeLessThanOrEqual(1);
      expect(p[1]).toBeLessThanOrEqual(p[0]);
      expect(p[2]).toBeLessThanOrEqual(p[1]);
    }
    const asked = Pipeline.fromJSON(saved).predict(data, { times: [5, 20] });
    expect(asked[0].survival?.map((s) => s.time)).toEqual([5, 20]);
    const before = JSON.parse(JSON.stringify(saved)) as SavedPipeline;
    delete before.model.survivalGrid;
    delete before.model.timeQuartiles;
    for (const tree of before.model.trees as Record<string, unknown>[]) delete tree.hazard;
    const old = Pipeline.fromJSON(before).predict(data);
    expect(old[0].survival).toBeUndefined();
    expect(old.map((r) => r.risk)).toEqual(rows.map((r) => r.risk));
  });
});
