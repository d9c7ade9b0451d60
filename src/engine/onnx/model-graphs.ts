import type { OnnxOutputs } from '../models/common';
import { distinctSupportVectors, Expansion } from '../models/kernel-expansion';
import type { TreeArrays } from '../models/tree-rule';
import { GraphBuilder } from './graph';
import { DataType } from './proto';

/*
 * The parts of ONNX graphs that models are made of (each kind's `onnx` method puts its own together): every value a
 * double, computed as the engine's `predict` computes it.
 */

/** rows x heads: intercept[h] + X weights[h], in doubles. */
export function linearGraph(g: GraphBuilder, X: string, weights: ArrayLike<number>[], intercepts: number[]): string {
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
export function twoClasses(g: GraphBuilder, p: string): string {
  return g.concat([g.sub(g.scalar(1), p), p]);
}

export function softmax(g: GraphBuilder, scores: string): string {
  return g.op('Softmax', [scores], { axis: 1 });
}

/** Logistic regression's probabilities: the sigmoid of one head (two classes), a softmax of one head per class. */
export function logisticGraph(g: GraphBuilder, X: string, slopes: ArrayLike<number>[], intercepts: number[]): string {
  const s = linearGraph(g, X, slopes, intercepts);
  return slopes.length === 1 ? twoClasses(g, g.sigmoid(s)) : softmax(g, s);
}

/** What a Cox model's graph reads of it (CoxRegression). */
export interface CoxTerms {
  coefficients: Float64Array;
  centers: Float64Array;
  baselineTimes: Float64Array;
  baselineHazard: Float64Array;
  timeQuartiles: number[];
  baselineAt(t: number): number;
}

/**
 * Cox regression: the risk score sum (x_j - center_j) b_j, the relative risk exp(risk), the survival exp(-H0(t)
 * exp(risk)) at `times` from the Breslow baseline, and the median survival time: the first event time where H0 reaches
 * ln 2 / exp(risk) (CoxRegression.survival).
 */
export function coxGraph(g: GraphBuilder, X: string, model: CoxTerms): OnnxOutputs {
  const times = model.timeQuartiles;
  const d = model.coefficients.length;
  const risk =
    d > 0
      ? g.op('MatMul', [g.sub(X, g.doubles(model.centers, [1, d], 'centers')), g.doubles(model.coefficients, [d, 1], 'coefficients')])
      : g.doubles([0], [1, 1]);
  const relativeRisk = g.op('Exp', [risk]);
  if (model.baselineTimes.length === 0) return { risk, relativeRisk };
  const H0 = times.map((t) => model.baselineAt(t));
  const survival = g.op('Exp', [g.op('Neg', [g.mul(relativeRisk, g.doubles(H0, [1, H0.length], 'baseline'))])]);
  // the entries of the baseline below ln 2 / exp(risk) (a hair below, as the engine's search): their count indexes the event times
  const M = model.baselineHazard.length;
  const target = g.mul(g.div(g.scalar(Math.LN2), relativeRisk), g.scalar(1 - 1e-12));
  const below = g.op('Cast', [g.op('Less', [g.doubles(model.baselineHazard, [1, M], 'hazard'), target])], { to: DataType.INT64 });
  const first = g.op('ReduceSum', [below, g.int64s([1])], { keepdims: 1 });
  const eventTimes = g.doubles([...model.baselineTimes, NaN], [M + 1], 'eventTimes');
  const median = g.op('Gather', [eventTimes, first]);
  return { risk, relativeRisk, survival, survivalTimes: times, median };
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
export function treesGraph(g: GraphBuilder, X: string, trees: TreeArrays[], treeCount: number): string {
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

/** What a survival forest's curves read: its grid of times and each tree's leaves' hazard steps (forest-survival.ts). */
export interface ForestHazards {
  grid: Float64Array;
  hazards: { start: Int32Array; index: Int32Array; deaths: Int32Array; atRisk: Int32Array }[];
}

/**
 * A random survival forest's survival at `times`: exp(-H), H the mean over the trees of the Nelson-Aalen cumulative
 * hazard of the leaf reached at the last grid time at or before each time (forestSurvival).
 */
export function forestSurvivalGraph(
  g: GraphBuilder,
  X: string,
  trees: TreeArrays[],
  kept: ForestHazards,
  times: readonly number[],
): string {
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
export function machinesGraph(g: GraphBuilder, X: string, list: Expansion[], gamma: number): string {
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

/** What an SVM's scores read of it (SVM). */
export interface SvmTerms {
  machines: Expansion[];
  gamma: number;
  classCount: number;
  scheme: 'ovr' | 'ovo';
  pairs: [number, number][];
}

/**
 * An SVM's scores (SVM.predict): the logistic of the decision value (two classes), a softmax of the one-vs-rest
 * decision values, or of the one-vs-one class scores: votes plus the summed confidence squashed into (-1/3, 1/3).
 */
export function svmGraph(g: GraphBuilder, X: string, model: SvmTerms): string {
  const f = machinesGraph(g, X, model.machines, model.gamma);
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
