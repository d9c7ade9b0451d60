import type { TreeArrays } from '../models/cart';
import { DecisionTree } from '../models/cart';
import { ConstantModel } from '../models/constant';
import { CoxRegression } from '../models/cox';
import { RandomForest } from '../models/forest';
import type { ForestSurvival } from '../models/forest-survival';
import { distinctSupportVectors, Expansion } from '../models/kernel-expansion';
import { RidgeRegression } from '../models/linear';
import { LogisticRegression } from '../models/logistic';
import { SVM, SVR } from '../models/svm';
import type { SavedModel } from '../models';
import { GraphBuilder } from './graph';
import { DataType } from './proto';

/** Raised for a pipeline whose model cannot be written as an ONNX graph that gives exactly the engine's outputs. */
export class OnnxExportRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'OnnxExportRefused';
  }
}

/** What a model's part of the graph gives, each value rows x width doubles. */
export interface ModelOutputs {
  /** classification: the model's class probabilities, before the floor and calibration */
  probabilities?: string;
  /** regression: the predicted value */
  value?: string;
  /** survival: the risk score (higher = earlier event) */
  risk?: string;
  /** survival: the survival probabilities at `times` */
  survival?: string;
  /** survival (Cox): the relative risk exp(risk) */
  relativeRisk?: string;
  /** survival (Cox): the median survival time, NaN where the curve never reaches 0.5 */
  median?: string;
}

/** Builds the model's outputs from the design matrix `X` (rows x d doubles, the engine's standardized columns). */
export function modelGraph(g: GraphBuilder, X: string, model: SavedModel, times: readonly number[]): ModelOutputs {
  if (model instanceof RidgeRegression) return { value: linear(g, X, [model.coefficients], [model.intercept]) };
  if (model instanceof LogisticRegression) return { probabilities: logistic(g, X, model) };
  if (model instanceof CoxRegression) return cox(g, X, model, times);
  if (model instanceof DecisionTree) return taskOutputs(model.task, forest(g, X, [model.tree], 1));
  if (model instanceof RandomForest) {
    const mean = forest(g, X, model.trees, model.trees.length);
    if (model.task !== 'survival') return taskOutputs(model.task, mean);
    return { risk: mean, ...(model.survivalKept ? { survival: forestSurvival(g, X, model.trees, model.survivalKept, times) } : {}) };
  }
  if (model instanceof SVM) return { probabilities: svm(g, X, model) };
  if (model instanceof SVR) {
    const f = machines(g, X, [model.machine], model.gamma);
    return { value: g.add(g.scalar(model.yMean), g.mul(g.scalar(model.yScale), f)) };
  }
  if (model instanceof ConstantModel)
    throw new OnnxExportRefused(
      'this model reads no feature (its signature is empty): it gives every row the same prediction, which an ONNX graph without inputs cannot repeat per row',
    );
  throw new OnnxExportRefused('this kind of model has no ONNX export');
}

function taskOutputs(task: 'classification' | 'regression', out: string): ModelOutputs {
  return task === 'classification' ? { probabilities: out } : { value: out };
}

/** rows x heads: intercept[h] + X weights[h], in doubles. */
function linear(g: GraphBuilder, X: string, weights: ArrayLike<number>[], intercepts: number[]): string {
  const d = weights[0].length;
  const H = weights.length;
  // d x H, column h = head h
  const W = new Float64Array(d * H);
  weights.forEach((w, h) => {
    for (let j = 0; j < d; j++) W[j * H + h] = w[j];
  });
  const scores = d > 0 ? g.op('MatMul', [X, g.doubles(W, [d, H], 'weights')]) : undefined;
  const b = g.doubles(intercepts, [1, H], 'intercepts');
  return scores ? g.add(scores, b) : b;
}

/** [1 - p, p] of a positive-class probability column. */
function twoClasses(g: GraphBuilder, p: string): string {
  return g.concat([g.sub(g.scalar(1), p), p]);
}

function softmax(g: GraphBuilder, scores: string): string {
  return g.op('Softmax', [scores], { axis: 1 });
}

function logistic(g: GraphBuilder, X: string, model: LogisticRegression): string {
  const slopes = model.slopes();
  const s = linear(g, X, slopes, model.intercepts());
  return slopes.length === 1 ? twoClasses(g, g.sigmoid(s)) : softmax(g, s);
}

/**
 * Cox regression: the risk score sum (x_j - center_j) b_j, the relative risk exp(risk), the survival exp(-H0(t)
 * exp(risk)) at `times` from the Breslow baseline, and the median survival time: the first event time where H0 reaches
 * ln 2 / exp(risk) (CoxRegression.survival).
 */
function cox(g: GraphBuilder, X: string, model: CoxRegression, times: readonly number[]): ModelOutputs {
  const d = model.coefficients.length;
  const risk =
    d > 0
      ? g.op('MatMul', [g.sub(X, g.doubles(model.centers, [1, d], 'centers')), g.doubles(model.coefficients, [d, 1], 'coefficients')])
      : g.doubles([0], [1, 1]);
  const relativeRisk = g.op('Exp', [risk]);
  if (!model.hasBaseline()) return { risk, relativeRisk };
  const H0 = times.map((t) => model.baselineAt(t));
  const survival = g.op('Exp', [g.op('Neg', [g.mul(relativeRisk, g.doubles(H0, [1, H0.length], 'baseline'))])]);
  // the entries of the baseline below ln 2 / exp(risk) (a hair below, as the engine's search): their count indexes the event times
  const M = model.baselineHazard.length;
  const target = g.mul(g.div(g.scalar(Math.LN2), relativeRisk), g.scalar(1 - 1e-12));
  const below = g.op('Cast', [g.op('Less', [g.doubles(model.baselineHazard, [1, M], 'hazard'), target])], { to: DataType.INT64 });
  const first = g.op('ReduceSum', [below, g.int64s([1])], { keepdims: 1 });
  const eventTimes = g.doubles([...model.baselineTimes, NaN], [M + 1], 'eventTimes');
  const median = g.op('Gather', [eventTimes, first]);
  return { risk, relativeRisk, survival, median };
}

/** The flattened nodes of trees, each tree's node k at offset[t] + k; a leaf points to itself. */
interface FlatTrees {
  roots: number[];
  feature: number[];
  threshold: number[];
  left: number[];
  right: number[];
  /** the deepest leaf's depth */
  depth: number;
}

function flatten(trees: TreeArrays[]): FlatTrees {
  const flat: FlatTrees = { roots: [], feature: [], threshold: [], left: [], right: [], depth: 0 };
  for (const tree of trees) {
    const offset = flat.feature.length;
    flat.roots.push(offset);
    const n = tree.feature.length;
    for (let k = 0; k < n; k++) {
      const leaf = tree.feature[k] < 0;
      flat.feature.push(leaf ? 0 : tree.feature[k]);
      flat.threshold.push(leaf ? 0 : tree.threshold[k]);
      flat.left.push(offset + (leaf ? k : tree.left[k]));
      flat.right.push(offset + (leaf ? k : tree.right[k]));
    }
    const stack: [number, number][] = [[0, 0]];
    while (stack.length > 0) {
      const [k, depth] = stack.pop() as [number, number];
      if (tree.feature[k] < 0) flat.depth = Math.max(flat.depth, depth);
      else stack.push([tree.left[k], depth + 1], [tree.right[k], depth + 1]);
    }
  }
  return flat;
}

/**
 * The leaf each row reaches in each tree (rows x trees, indices into the flattened nodes): every row starts at each
 * tree's root and takes, as many times as the deepest leaf is deep, the left child where its value of the node's
 * column is at most the node's threshold (the engine's rule, in doubles), else the right one; a leaf keeps it.
 */
function leaves(g: GraphBuilder, X: string, flat: FlatTrees): string {
  const T = flat.roots.length;
  const rows = g.op('Shape', [X], { start: 0, end: 1 });
  let node = g.op('Expand', [g.int64s(flat.roots, [1, T], 'roots'), g.op('Concat', [rows, g.int64s([T])], { axis: 0 })]);
  const feature = g.int64s(flat.feature, [flat.feature.length], 'feature');
  const threshold = g.doubles(flat.threshold, [flat.threshold.length], 'threshold');
  const left = g.int64s(flat.left, [flat.left.length], 'left');
  const right = g.int64s(flat.right, [flat.right.length], 'right');
  for (let step = 0; step < flat.depth; step++) {
    const x = g.op('GatherElements', [X, g.op('Gather', [feature, node])], { axis: 1 });
    const goLeft = g.op('LessOrEqual', [x, g.op('Gather', [threshold, node])]);
    node = g.op('Where', [goLeft, g.op('Gather', [left, node]), g.op('Gather', [right, node])]);
  }
  return node;
}

/** rows x width: the mean over the trees of the values (rows of `values`, per flattened node) of the leaves reached. */
function meanOverTrees(g: GraphBuilder, node: string, values: Float64Array, width: number, treeCount: number): string {
  const leafValues = g.op('Gather', [g.doubles(values, [values.length / width, width], 'leafValues'), node]);
  const sum = g.op('ReduceSum', [leafValues, g.int64s([1])], { keepdims: 0 });
  return treeCount === 1 ? sum : g.div(sum, g.scalar(treeCount));
}

/** A tree's (one) or a forest's mean leaf values: class proportions, the value, or the risk. */
function forest(g: GraphBuilder, X: string, trees: TreeArrays[], treeCount: number): string {
  const width = trees[0].width;
  const flat = flatten(trees);
  const values = new Float64Array(flat.feature.length * width);
  let at = 0;
  for (const tree of trees) {
    values.set(tree.value, at);
    at += tree.value.length;
  }
  return meanOverTrees(g, leaves(g, X, flat), values, width, treeCount);
}

/**
 * A random survival forest's survival at `times`: exp(-H), H the mean over the trees of the Nelson-Aalen cumulative
 * hazard of the leaf reached at the last grid time at or before each time (forestSurvival).
 */
function forestSurvival(g: GraphBuilder, X: string, trees: TreeArrays[], kept: ForestSurvival, times: readonly number[]): string {
  const flat = flatten(trees);
  const at = times.map((t) => {
    let k = 0;
    while (k < kept.grid.length && kept.grid[k] <= t) k++;
    return k - 1;
  });
  const W = times.length;
  const hazards = new Float64Array(flat.feature.length * W);
  trees.forEach((tree, t) => {
    const { start, index, deaths, atRisk } = kept.hazards[t];
    const offset = flat.roots[t];
    for (let k = 0; k < tree.feature.length; k++)
      for (let s = start[k]; s < start[k + 1]; s++)
        at.forEach((g, w) => {
          if (index[s] <= g) hazards[(offset + k) * W + w] += deaths[s] / atRisk[s];
        });
  });
  const H = meanOverTrees(g, leaves(g, X, flat), hazards, W, trees.length);
  return g.op('Exp', [g.op('Neg', [H])]);
}

/** rows x machines decision values sum coef K(sv, x) - rho (RBF) or x w - rho (linear). */
function machines(g: GraphBuilder, X: string, list: Expansion[], gamma: number): string {
  const m = list.length;
  const rho = g.doubles(
    list.map((e) => e.rho),
    [1, m],
    'rho',
  );
  if (list.every((e) => e.w)) {
    const d = (list[0].w as Float64Array).length;
    const W = new Float64Array(d * m);
    list.forEach((e, k) => (e.w as Float64Array).forEach((v, j) => (W[j * m + k] = v)));
    return d > 0 ? g.sub(g.op('MatMul', [X, g.doubles(W, [d, m], 'weights')]), rho) : g.sub(g.doubles([0], [1, 1]), rho);
  }
  const d = list.reduce((w, e) => (e.coef.length > 0 ? e.sv.length / e.coef.length : w), 0);
  const { sv, count, refs } = distinctSupportVectors(list, d);
  if (count === 0) return g.sub(g.doubles(new Float64Array(m), [1, m]), rho);
  const coef = new Float64Array(count * m);
  list.forEach((e, k) => e.coef.forEach((v, j) => (coef[refs[k][j] * m + k] += v)));
  // |x - sv|^2 = |x|^2 - 2 x.sv + |sv|^2, as the engine's kernels compute it
  const svNorms = new Float64Array(count);
  for (let u = 0; u < count; u++) for (let j = 0; j < d; j++) svNorms[u] += sv[u * d + j] ** 2;
  const svT = new Float64Array(d * count);
  for (let u = 0; u < count; u++) for (let j = 0; j < d; j++) svT[j * count + u] = sv[u * d + j];
  const xNorms = g.op('ReduceSum', [g.mul(X, X), g.int64s([1])], { keepdims: 1 });
  const dots = g.op('MatMul', [X, g.doubles(svT, [d, count], 'supportVectors')]);
  const distance = g.op('Max', [g.add(g.sub(xNorms, g.mul(g.scalar(2), dots)), g.doubles(svNorms, [1, count], 'svNorms')), g.scalar(0)]);
  const kernel = g.op('Exp', [g.mul(g.scalar(-gamma), distance)]);
  return g.sub(g.op('MatMul', [kernel, g.doubles(coef, [count, m], 'coefficients')]), rho);
}

/**
 * An SVM's scores (SVM.predict): the logistic of the decision value (two classes), a softmax of the one-vs-rest
 * decision values, or of the one-vs-one class scores: votes plus the summed confidence squashed into (-1/3, 1/3).
 */
function svm(g: GraphBuilder, X: string, model: SVM): string {
  const f = machines(g, X, model.machines, model.gamma);
  const K = model.classCount;
  if (K === 2) return twoClasses(g, g.sigmoid(f));
  if (model.scheme !== 'ovo') return softmax(g, f);
  const m = model.pairs.length;
  const forA = new Float64Array(m * K);
  const forB = new Float64Array(m * K);
  model.pairs.forEach(([a, b], k) => {
    forA[k * K + a] = 1;
    forB[k * K + b] = 1;
  });
  const A = g.doubles(forA, [m, K], 'pairFirst');
  const B = g.doubles(forB, [m, K], 'pairSecond');
  const wins = g.op('Cast', [g.op('Greater', [f, g.scalar(0)])], { to: DataType.DOUBLE });
  const votes = g.add(g.op('MatMul', [wins, A]), g.op('MatMul', [g.sub(g.scalar(1), wins), B]));
  const confidence = g.op('MatMul', [f, g.sub(A, B)]);
  const squashed = g.div(confidence, g.mul(g.scalar(3), g.add(g.op('Abs', [confidence]), g.scalar(1))));
  return softmax(g, g.add(votes, squashed));
}
