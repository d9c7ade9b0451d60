import type { Design, Target } from '../models/common';
import { DecisionTree } from '../models/cart';
import { CoxRegression } from '../models/cox';
import { RandomForest } from '../models/forest';
import { RidgeRegression } from '../models/linear';
import { LogisticRegression } from '../models/logistic';
import type { ShapleyForm } from '../models/shapley-form';
import { SVM, SVR } from '../models/svm';
import { Rng } from '../rng';
import { gaussLegendre, rbfShapley } from './rbf';
import { shapleyValues } from './shapley';
import type { Players, ShapleyInput, ShapleyValues } from './types';

/**
 * Small synthetic data at the design level: x0 and x1 numerical, a categorical feature of three levels as two
 * indicator columns (ONE player), and a column the models ignore (0 in every training row). Players: x0, x1, cat, zero.
 */
const PLAYERS: Players = { of: Int32Array.from([0, 1, 2, 2, 3]), count: 4 };
const D = 5;

function rows(n: number, rng: Rng, ignored: 'zero' | 'random'): { X: Design; signal: Float64Array; cat: Int32Array } {
  const data = new Float64Array(n * D);
  const signal = new Float64Array(n);
  const cat = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const x0 = rng.normal();
    const x1 = rng.normal();
    const c = rng.int(3);
    data.set([x0, x1, c === 1 ? 1 : 0, c === 2 ? 1 : 0, ignored === 'zero' ? 0 : rng.normal()], i * D);
    signal[i] = 1.2 * x0 - 0.8 * x1 + (c === 1 ? 1 : c === 2 ? -0.7 : 0) + 0.6 * x0 * x1;
    cat[i] = c;
  }
  return { X: { data, rows: n, cols: D }, signal, cat };
}

const rng = new Rng(43);
const train = rows(80, rng, 'zero');
const noise = Float64Array.from({ length: 80 }, () => 0.5 * rng.normal());

const targets = {
  binary: { y: Float64Array.from(train.signal, (s, i) => (s + noise[i] > 0 ? 1 : 0)), classCount: 2 },
  three: { y: Float64Array.from(train.signal, (s, i) => (s + noise[i] < -0.6 ? 0 : s + noise[i] < 0.6 ? 1 : 2)), classCount: 3 },
  regression: { y: Float64Array.from(train.signal, (s, i) => 10 + 3 * s + noise[i]) },
  survival: {
    y: Float64Array.from(train.signal, (s, i) => Math.round(100 * Math.exp(-0.7 * s + noise[i])) + 1),
    event: Float64Array.from({ length: 80 }, (_, i) => (i % 4 === 3 ? 0 : 1)),
  },
} satisfies Record<string, Target>;

/** Background rows (from the training rows) and rows to explain: the ignored column random in the rows explained. */
const background: Design = { data: train.X.data.slice(0, 7 * D), rows: 7, cols: D };
const explained = rows(6, new Rng(7), 'random').X;
/** For kernel machines, which read every column: the same rows with the ignored column at 0, as in training. */
const explainedZero: Design = { ...explained, data: explained.data.map((v, k) => (k % D === 4 ? 0 : v)) };

/** The output a form's heads compute, evaluated row by row through the model's own prediction. */
type Output = (X: Design) => Float64Array;

/**
 * Brute force, independent of the library's weights and tables: v(S) = mean over the background of the output at the
 * hybrid row; each player's value the mean over all 4! orders of its marginal contribution.
 */
function bruteForce(output: Output, heads: number, X: Design, bg: Design, players: Players): { base: number[]; values: number[] } {
  const M = players.count;
  const value = (i: number, inS: boolean[]): number[] => {
    const data = new Float64Array(bg.rows * D);
    for (let r = 0; r < bg.rows; r++)
      for (let j = 0; j < D; j++) data[r * D + j] = inS[players.of[j]] ? X.data[i * D + j] : bg.data[r * D + j];
    const out = output({ data, rows: bg.rows, cols: D });
    return Array.from(
      { length: heads },
      (_, h) => Array.from({ length: bg.rows }, (_, r) => out[r * heads + h]).reduce((s, v) => s + v, 0) / bg.rows,
    );
  };
  const orders: number[][] = [];
  const permute = (prefix: number[], rest: number[]): void => {
    if (rest.length === 0) orders.push(prefix);
    rest.forEach((p, k) => permute([...prefix, p], [...rest.slice(0, k), ...rest.slice(k + 1)]));
  };
  permute(
    [],
    Array.from({ length: M }, (_, p) => p),
  );
  const values = new Array<number>(X.rows * heads * M).fill(0);
  for (let i = 0; i < X.rows; i++)
    for (const order of orders) {
      const inS = new Array<boolean>(M).fill(false);
      let before = value(i, inS);
      for (const p of order) {
        inS[p] = true;
        const after = value(i, inS);
        for (let h = 0; h < heads; h++) values[(i * heads + h) * M + p] += (after[h] - before[h]) / orders.length;
        before = after;
      }
    }
  return { base: value(0, new Array<boolean>(M).fill(false)), values };
}

const logit = (p: number): number => Math.log(p / (1 - p));
/** Column c of an n x K prediction. */
const column = (p: Float64Array, K: number, c: number, f: (v: number) => number = (v) => v): Float64Array =>
  Float64Array.from({ length: p.length / K }, (_, i) => f(p[i * K + c]));

interface Case {
  name: string;
  method: ShapleyValues['method'];
  scale: ShapleyValues['scale'];
  form: ShapleyForm;
  /** the explained outputs (rows x heads) from the model's public predictions */
  output: Output;
  heads: number;
  /** kernel machines read every column: explain rows whose ignored column is at its training value */
  kernel?: boolean;
}

/** The models of the cases, fitted once. */
function fitModels() {
  const X = train.X;
  const ridge = new RidgeRegression(0.01).fit(X, targets.regression);
  const binary = new LogisticRegression(0.01).fit(X, targets.binary);
  const multi = new LogisticRegression(0.01).fit(X, targets.three);
  const cox = new CoxRegression(0.01).fit(X, targets.survival);
  const treeC = new DecisionTree('classification', 4, 3).fit(X, targets.three, new Rng(1));
  const treeR = new DecisionTree('regression', 4, 3).fit(X, targets.regression, new Rng(1));
  const forestC = new RandomForest('classification', 15, 1, 2).fit(X, targets.binary, new Rng(2));
  const forestR = new RandomForest('regression', 15, 1, 2).fit(X, targets.regression, new Rng(3));
  const forestS = new RandomForest('survival', 15, 1, 5).fit(X, targets.survival, new Rng(4));
  const svmLinear = new SVM('linear', 1).fit(X, targets.binary, new Rng(5));
  const svmLinear3 = new SVM('linear', 1).fit(X, targets.three, new Rng(5));
  const svmRbf = new SVM('rbf', 1, 1).fit(X, targets.binary, new Rng(6));
  const svmRbf3 = new SVM('rbf', 1, 1).fit(X, targets.three, new Rng(6));
  const svrLinear = new SVR('linear', 1, 0.1).fit(X, targets.regression, new Rng(7));
  const svrRbf = new SVR('rbf', 1, 0.1).fit(X, targets.regression, new Rng(7));
  const softmaxScores = (X2: Design): Float64Array => {
    const w = multi.weights;
    const out = new Float64Array(X2.rows * 3);
    for (let i = 0; i < X2.rows; i++)
      for (let h = 0; h < 3; h++) {
        let s = w[h * (D + 1)];
        for (let j = 0; j < D; j++) s += w[h * (D + 1) + 1 + j] * X2.data[i * D + j];
        out[i * 3 + h] = s;
      }
    return out;
  };
  return {
    ridge,
    binary,
    multi,
    cox,
    treeC,
    treeR,
    forestC,
    forestR,
    forestS,
    svmLinear,
    svmLinear3,
    svmRbf,
    svmRbf3,
    svrLinear,
    svrRbf,
    softmaxScores,
  };
}

const m = fitModels();

/** Linear outputs: closed forms. */
function linearCases(): Case[] {
  const { ridge, binary, multi, cox, softmaxScores } = m;
  return [
    {
      name: 'ridge linear',
      method: 'closedForm',
      scale: 'prediction',
      form: ridge.shapleyForm(),
      output: (x) => ridge.predict(x),
      heads: 1,
    },
    {
      name: 'binary logistic (log-odds)',
      method: 'closedForm',
      scale: 'log-odds',
      form: binary.shapleyForm(),
      output: (x) => column(binary.predict(x), 2, 1, logit),
      heads: 1,
    },
    {
      name: 'multinomial logistic',
      method: 'closedForm',
      scale: 'softmax score',
      form: multi.shapleyForm(),
      output: softmaxScores,
      heads: 3,
    },
    { name: 'Cox', method: 'closedForm', scale: 'log relative hazard', form: cox.shapleyForm(), output: (x) => cox.predict(x), heads: 1 },
  ];
}

/** Trees, forests and kernel machines, and an output known only through rows. */
function otherCases(): Case[] {
  const { treeC, treeR, forestC, forestR, forestS, svmLinear, svmLinear3, svmRbf, svmRbf3, svrLinear, svrRbf } = m;
  return [
    {
      name: 'CART classification',
      method: 'exactTree',
      scale: 'probability',
      form: treeC.shapleyForm(),
      output: (x) => treeC.predict(x),
      heads: 3,
    },
    {
      name: 'CART regression',
      method: 'exactTree',
      scale: 'prediction',
      form: treeR.shapleyForm(),
      output: (x) => treeR.predict(x),
      heads: 1,
    },
    {
      name: 'random forest classification',
      method: 'exactTree',
      scale: 'probability',
      form: forestC.shapleyForm(),
      output: (x) => column(forestC.predict(x), 2, 1),
      heads: 1,
    },
    {
      name: 'random forest regression',
      method: 'exactTree',
      scale: 'prediction',
      form: forestR.shapleyForm(),
      output: (x) => forestR.predict(x),
      heads: 1,
    },
    {
      name: 'random survival forest',
      method: 'exactTree',
      scale: 'risk',
      form: forestS.shapleyForm(),
      output: (x) => forestS.predict(x),
      heads: 1,
    },
    {
      name: 'linear SVM',
      method: 'closedForm',
      scale: 'decision value',
      form: svmLinear.shapleyForm(),
      output: (x) => svmLinear.decisionValues(x),
      heads: 1,
    },
    {
      name: 'linear SVM, three classes (one-vs-rest)',
      method: 'closedForm',
      scale: 'decision value',
      form: svmLinear3.shapleyForm(),
      output: (x) => svmLinear3.decisionValues(x),
      heads: 3,
    },
    {
      name: 'RBF SVM',
      method: 'exactKernel',
      scale: 'decision value',
      form: svmRbf.shapleyForm(),
      output: (x) => svmRbf.decisionValues(x),
      heads: 1,
      kernel: true,
    },
    {
      name: 'RBF SVM, three classes (one-vs-one: the summed pairwise decision values of each class)',
      method: 'exactKernel',
      scale: 'one-vs-one decision sum',
      form: svmRbf3.shapleyForm(),
      output: (x) => {
        const f = svmRbf3.decisionValues(x);
        const out = new Float64Array(x.rows * 3);
        for (let i = 0; i < x.rows; i++)
          svmRbf3.pairs.forEach(([a, b], k) => {
            out[i * 3 + a] += f[i * 3 + k];
            out[i * 3 + b] -= f[i * 3 + k];
          });
        return out;
      },
      heads: 3,
      kernel: true,
    },
    {
      name: 'any output of rows (the three class probabilities of the RBF SVM, by enumeration)',
      method: 'enumeration',
      scale: 'probability',
      form: { kind: 'function', scale: 'probability', heads: 3, evaluate: (x) => svmRbf3.predict(x) },
      output: (x) => svmRbf3.predict(x),
      heads: 3,
      kernel: true,
    },
    {
      name: 'linear SVR',
      method: 'closedForm',
      scale: 'prediction',
      form: svrLinear.shapleyForm(),
      output: (x) => svrLinear.predict(x),
      heads: 1,
    },
    {
      name: 'RBF SVR',
      method: 'exactKernel',
      scale: 'prediction',
      form: svrRbf.shapleyForm(),
      output: (x) => svrRbf.predict(x),
      heads: 1,
      kernel: true,
    },
  ];
}

function cases(): Case[] {
  return [...linearCases(), ...otherCases()];
}

describe('interventional Shapley values of every model kind', () => {
  for (const c of cases()) {
    describe(c.name, () => {
      const X = c.kernel ? explainedZero : explained;
      const input: ShapleyInput = { X, background, players: PLAYERS };
      const sv = shapleyValues(c.form, input);
      const M = PLAYERS.count;
      const H = c.heads;

      it(`is computed by ${c.method} on the ${c.scale} scale`, () => {
        expect(sv.method).toBe(c.method);
        expect(sv.scale).toBe(c.scale);
        expect(sv.heads).toBe(H);
        expect(sv.players).toBe(M);
      });

      it('explains the output the model predicts, and base + contributions equal it to 1e-9', () => {
        const out = c.output(X);
        for (let i = 0; i < X.rows; i++)
          for (let h = 0; h < H; h++) {
            expect(sv.output[i * H + h]).toBeCloseTo(out[i * H + h], 10);
            let sum = sv.base[h];
            for (let p = 0; p < M; p++) sum += sv.values[(i * H + h) * M + p];
            expect(Math.abs(sum - out[i * H + h])).toBeLessThan(1e-9);
          }
      });

      it('equals a brute-force Shapley computation over every order of the players', () => {
        const brute = bruteForce(c.output, H, X, background, PLAYERS);
        for (let h = 0; h < H; h++) expect(Math.abs(sv.base[h] - brute.base[h])).toBeLessThan(1e-9);
        for (let k = 0; k < brute.values.length; k++) expect(Math.abs(sv.values[k] - brute.values[k])).toBeLessThan(1e-9);
        // and is not trivially zero
        expect(Math.max(...Array.from(sv.values, Math.abs))).toBeGreaterThan(1e-3);
      });

      it('gives the ignored feature nothing', () => {
        for (let i = 0; i < X.rows; i++) for (let h = 0; h < H; h++) expect(sv.values[(i * H + h) * M + 3]).toBe(0);
      });
    });
  }
});

describe('closed form of linear models', () => {
  it('is the coefficient times the distance to the background mean, a categorical feature its columns summed', () => {
    const ridge = new RidgeRegression(0.01).fit(train.X, targets.regression);
    const sv = shapleyValues(ridge.shapleyForm(), { X: explained, background, players: PLAYERS });
    const mean = (j: number): number => Array.from({ length: 7 }, (_, r) => background.data[r * D + j]).reduce((s, v) => s + v, 0) / 7;
    const b = ridge.coefficients;
    for (let i = 0; i < explained.rows; i++) {
      const x = (j: number): number => explained.data[i * D + j];
      expect(sv.values[i * 4]).toBeCloseTo(b[0] * (x(0) - mean(0)), 12);
      expect(sv.values[i * 4 + 1]).toBeCloseTo(b[1] * (x(1) - mean(1)), 12);
      expect(sv.values[i * 4 + 2]).toBeCloseTo(b[2] * (x(2) - mean(2)) + b[3] * (x(3) - mean(3)), 12);
    }
  });
});

describe('RBF kernel machines', () => {
  const svr = new SVR('rbf', 1, 0.1).fit(train.X, targets.regression, new Rng(7));
  const form = svr.shapleyForm();
  if (form.kind !== 'rbf') throw new Error('an RBF SVR has the rbf form');
  const input = { X: explainedZero, background, players: PLAYERS };

  it('gives the same values by the coalition table and by Owen quadrature', () => {
    const a = rbfShapley(form.machines, form.gamma, form.offset, form.factor, input, 'coalitions');
    const b = rbfShapley(form.machines, form.gamma, form.offset, form.factor, input, 'quadrature');
    for (let k = 0; k < a.values.length; k++) expect(Math.abs(a.values[k] - b.values[k])).toBeLessThan(1e-10);
  });

  it('integrates polynomials exactly with Gauss-Legendre nodes on [0, 1]', () => {
    const { nodes, weights } = gaussLegendre(4);
    // degree 7 = 2 x 4 - 1: exact
    const integral = nodes.reduce((s, t, g) => s + weights[g] * (t ** 7 - 3 * t ** 4 + t), 0);
    expect(integral).toBeCloseTo(1 / 8 - 3 / 5 + 1 / 2, 14);
  });
});

describe('permutation sampling', () => {
  const svm = new SVM('rbf', 1, 1).fit(train.X, targets.three, new Rng(6));
  const form: ShapleyForm = { kind: 'function', scale: 'probability', heads: 3, evaluate: (x) => svm.predict(x) };
  const input = { X: explainedZero, background, players: PLAYERS };
  const exact = shapleyValues(form, input);
  const sampled = shapleyValues(form, input, { maxEnumeratedPlayers: 2 });

  it('is used beyond the enumeration limit, its values sum exactly to the output and come with standard errors', () => {
    expect(sampled.method).toBe('sampling');
    const H = 3;
    for (let i = 0; i < explainedZero.rows; i++)
      for (let h = 0; h < H; h++) {
        let sum = sampled.base[h];
        for (let p = 0; p < 4; p++) sum += sampled.values[(i * H + h) * 4 + p];
        expect(Math.abs(sum - exact.output[i * H + h])).toBeLessThan(1e-9);
      }
    expect(sampled.standardErrors?.length).toBe(sampled.values.length);
  });

  it('lands within four standard errors of the exact values', () => {
    const se = sampled.standardErrors as Float64Array;
    let checked = 0;
    for (let k = 0; k < exact.values.length; k++) {
      expect(Math.abs(sampled.values[k] - exact.values[k])).toBeLessThanOrEqual(4 * se[k] + 1e-12);
      if (se[k] > 0) checked++;
    }
    expect(checked).toBeGreaterThan(10);
  });
});
