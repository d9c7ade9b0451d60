import { Rng } from '../rng';
import { Design, Model, OnnxOutputs, Target } from './common';
import type { GraphBuilder } from '../onnx/graph';
import { machinesGraph, svmGraph } from '../onnx/model-graphs';
import {
  decision,
  distinctSupportVectors,
  expansion,
  Expansion,
  expansionFromJSON,
  expansionToJSON,
  Kernel,
  KEPT_ROWS_MAX,
  KernelRows,
  sharedDecisions,
} from './kernel-expansion';
import { dualPasses, linearDualCD, linearSvrDualCD } from './linear-dual';
import type { KernelExpansions, LinearHead, ShapleyForm } from './shapley-form';
import { smo } from './smo';
import type { Task } from '../metrics';
import { cross, defineModelKind } from './kind';

export type { Kernel } from './kernel-expansion';
export { KernelRows } from './kernel-expansion';
export { smo } from './smo';

/**
 * C-SVM classifier (more than two classes: one-vs-one with a kernel, as LIBSVM; one-vs-rest with the linear solver). Outputs scores that order like the decision
 * values: the logistic of the decision value (binary, column 1 = second class) or a softmax of the
 * one-vs-rest decision values (one-vs-one: of the class scores of `pairScores`); these are scores for AUC, not
 * calibrated probabilities. Pipelines saved before one-vs-one (no `scheme`) still predict one-vs-rest.
 */
export class SVM implements Model {
  outputWidth = 2;
  classCount = 2;
  machines: Expansion[] = [];
  /** 'ovr': a machine per class against the rest (two classes, linear kernels); 'ovo': a machine per pair of classes */
  scheme: 'ovr' | 'ovo' = 'ovr';
  /** ovo: the classes (a, b) of each machine; a positive decision votes for a */
  pairs: [number, number][] = [];

  constructor(
    readonly kernel: Kernel,
    readonly C: number,
    /** RBF gamma as a multiple of 1 / (number of features) */
    readonly gammaFactor = 1,
    public gamma = 0,
  ) {}

  fit(X: Design, target: Target, rng: Rng): this {
    const n = X.rows;
    this.classCount = target.classCount ?? 2;
    this.outputWidth = this.classCount;
    this.gamma = this.gammaFactor / Math.max(1, X.cols);
    const heads = this.classCount === 2 ? [1] : Array.from({ length: this.classCount }, (_, c) => c);
    const labels = (cls: number): Int8Array => Int8Array.from(target.y, (v) => (v === cls ? 1 : -1));
    if (this.kernel === 'linear') {
      const passes = dualPasses(X);
      this.machines = heads.map((cls) => linearDualCD(X, labels(cls), this.C, rng, 1e-3, passes));
      return this;
    }
    if (this.classCount > 2) return this.fitPairs(X, target);
    const K = new KernelRows(X, this.kernel, this.gamma);
    const QD = K.diagonal;
    const p = new Float64Array(n).fill(-1);
    this.machines = heads.map((cls) => {
      const y = labels(cls);
      const { alpha, rho } = smo(n, n, (i) => K.row(i), QD, p, y, this.C);
      const coef = new Float64Array(n);
      for (let i = 0; i < n; i++) coef[i] = alpha[i] * y[i];
      return expansion(X, this.kernel, coef, rho);
    });
    K.release();
    return this;
  }

  /**
   * More than two classes with a kernel: one machine per pair of classes on the samples of those two, as LIBSVM
   * (and scikit-learn's SVC) do; each solves a problem of about 2n / K samples instead of n, so K classes cost about
   * K / 2 times less than one-vs-rest. The kernel rows of all samples are computed once, as first needed, and shared by the pairs.
   */
  private fitPairs(X: Design, target: Target): this {
    const n = X.rows;
    this.scheme = 'ovo';
    this.pairs = [];
    this.machines = [];
    // the rows of all samples over the samples in class order: a pair's entries of a row are then two runs of it
    // (where spread over all of a row they missed the processor's cache). Too many samples to keep every row: each
    // pair computes its own (a cache of recent rows of all samples would compute rows K / 2 times longer, and
    // again when they fall out)
    const d = X.cols;
    const rowsOf = (idx: ArrayLike<number>): Design => {
      const data = new Float64Array(idx.length * d);
      for (let k = 0; k < idx.length; k++) for (let j = 0; j < d; j++) data[k * d + j] = X.data[idx[k] * d + j];
      return { rows: idx.length, cols: d, data };
    };
    const order = Int32Array.from({ length: n }, (_, i) => i).sort((i, j) => target.y[i] - target.y[j] || i - j);
    const at = new Int32Array(n);
    order.forEach((i, p) => (at[i] = p));
    const K = n <= KEPT_ROWS_MAX ? new KernelRows(rowsOf(order), this.kernel, this.gamma) : null;
    for (let a = 0; a < this.classCount; a++)
      for (let b = a + 1; b < this.classCount; b++) {
        const idx: number[] = [];
        for (let i = 0; i < n; i++) if (target.y[i] === a || target.y[i] === b) idx.push(i);
        const y = Int8Array.from(idx, (i) => (target.y[i] === a ? 1 : -1));
        const coef = new Float64Array(n);
        let rho: number;
        if (y.includes(1) && y.includes(-1)) {
          // the rows of all samples, read at the pair's samples (two runs of a row): a sample's row is computed
          // once for the K - 1 pairs of its class
          const l = idx.length;
          const p = new Float64Array(l).fill(-1);
          let fitted: { alpha: Float64Array; rho: number };
          if (K) {
            const index = Int32Array.from(idx, (i) => at[i]);
            const QD = Float64Array.from(index, (q) => K.diagonal[q]);
            fitted = smo(l, n, (q) => K.row(q), QD, p, y, this.C, 1e-3, true, index);
          } else {
            const pairK = new KernelRows(rowsOf(idx), this.kernel, this.gamma);
            fitted = smo(l, l, (i) => pairK.row(i), pairK.diagonal, p, y, this.C);
            pairK.release();
          }
          idx.forEach((i, k) => (coef[i] = fitted.alpha[k] * y[k]));
          rho = fitted.rho;
        } else rho = y.includes(1) ? -1 : 1; // a class absent from these rows: the pair always votes for the other
        this.machines.push(expansion(X, this.kernel, coef, rho));
        this.pairs.push([a, b]);
      }
    K?.release();
    return this;
  }

  /** Raw decision values, one column per machine. */
  decisionValues(X: Design): Float64Array {
    const m = this.machines.length;
    const out = new Float64Array(X.rows * m);
    if (this.scheme === 'ovo' && this.kernel === 'rbf') {
      sharedDecisions(this.machines, X, this.gamma, out);
      return out;
    }
    this.machines.forEach((e, k) => decision(e, X, this.kernel, this.gamma, out, m, k));
    return out;
  }

  predict(X: Design): Float64Array {
    const f = this.scheme === 'ovo' ? this.pairScores(this.decisionValues(X), X.rows) : this.decisionValues(X);
    const K = this.classCount;
    const out = new Float64Array(X.rows * K);
    for (let i = 0; i < X.rows; i++) {
      if (K === 2) {
        const p = 1 / (1 + Math.exp(-f[i]));
        out[i * 2] = 1 - p;
        out[i * 2 + 1] = p;
      } else {
        let mx = -Infinity;
        for (let c = 0; c < K; c++) mx = Math.max(mx, f[i * K + c]);
        let z = 0;
        for (let c = 0; c < K; c++) z += Math.exp(f[i * K + c] - mx);
        for (let c = 0; c < K; c++) out[i * K + c] = Math.exp(f[i * K + c] - mx) / z;
      }
    }
    return out;
  }

  /**
   * One score per class from the pairs' decision values, as scikit-learn's one-vs-rest shaped decision function of
   * SVC: the votes of a class plus its summed confidence squashed into (-1/3, 1/3), so ties of votes are broken by
   * confidence and no confidence outweighs a vote.
   */
  private pairScores(f: Float64Array, rows: number): Float64Array {
    const K = this.classCount;
    const m = this.pairs.length;
    const votes = new Float64Array(rows * K);
    const confidence = new Float64Array(rows * K);
    for (let i = 0; i < rows; i++)
      this.pairs.forEach(([a, b], k) => {
        const v = f[i * m + k];
        votes[i * K + (v > 0 ? a : b)]++;
        confidence[i * K + a] += v;
        confidence[i * K + b] -= v;
      });
    return votes.map((v, j) => v + confidence[j] / (3 * (Math.abs(confidence[j]) + 1)));
  }

  /**
   * The decision value of each machine (binary: of the positive class; one-vs-rest: of each class), linear in the
   * design columns or an RBF expansion. One-vs-one: each class's sum of its pairs' decision values (the confidence
   * of pairScores, signed towards the class), one expansion over the pairs' support vectors. Its votes, steps of
   * those decision values, are not explained: the class score is votes + that sum squashed into (-1/3, 1/3).
   */
  shapleyForm(): ShapleyForm {
    if (this.scheme === 'ovo') {
      const signs = Array.from({ length: this.classCount }, (_, c) => this.pairs.map(([a, b]) => (a === c ? 1 : b === c ? -1 : 0)));
      return machineForm(this.machines, this.gamma, 'one-vs-one decision sum', 0, 1, signs);
    }
    return machineForm(this.machines, this.gamma, 'decision value', 0, 1);
  }

  /** Its ONNX part: the scores predict gives (the logistic of the decision value, or a softmax of the class scores). */
  onnx(g: GraphBuilder, X: string): OnnxOutputs {
    return { probabilities: svmGraph(g, X, this) };
  }

  toJSON(): Record<string, unknown> {
    return {
      type: 'svm',
      scheme: this.scheme,
      ...(this.scheme === 'ovo' ? { pairs: this.pairs } : {}),
      kernel: this.kernel,
      C: this.C,
      gammaFactor: this.gammaFactor,
      gamma: this.gamma,
      classCount: this.classCount,
      machines: this.machines.map(expansionToJSON),
    };
  }

  static fromJSON(json: Record<string, unknown>): SVM {
    const m = new SVM(json.kernel as Kernel, json.C as number, json.gammaFactor as number, json.gamma as number);
    m.classCount = json.classCount as number;
    m.outputWidth = m.classCount;
    m.machines = (json.machines as Record<string, unknown>[]).map(expansionFromJSON);
    // pipelines saved before one-vs-one have no scheme: one-vs-rest
    if (json.scheme === 'ovo') {
      m.scheme = 'ovo';
      m.pairs = json.pairs as [number, number][];
    }
    return m;
  }
}

/**
 * epsilon-SVR on the target standardized internally: with a kernel, LIBSVM's formulation (2n dual variables, SMO,
 * unpenalized bias); linear, LIBLINEAR's L1-loss SVR by dual coordinate descent (the bias a penalized constant
 * feature, as the linear C-SVM's; on diabetes a training R squared of 0.5122 where LIBSVM's gives 0.5127, at a
 * third of scikit-learn's time). Saved models of either kind load and predict as before.
 */
export class SVR implements Model {
  readonly outputWidth = 1;
  machine: Expansion;
  yMean = 0;
  yScale = 1;

  constructor(
    readonly kernel: Kernel,
    readonly C: number,
    readonly epsilon: number,
    readonly gammaFactor = 1,
    public gamma = 0,
  ) {}

  /** `rng` orders the linear solver's passes (a fixed seed when absent); the kernel solver does not use it. */
  fit(X: Design, target: Target, rng: Rng = new Rng(0)): this {
    const n = X.rows;
    this.gamma = this.gammaFactor / Math.max(1, X.cols);
    let s = 0;
    for (let i = 0; i < n; i++) s += target.y[i];
    this.yMean = s / n;
    let v = 0;
    for (let i = 0; i < n; i++) v += (target.y[i] - this.yMean) ** 2;
    this.yScale = Math.sqrt(v / Math.max(1, n - 1)) || 1;
    const z = Float64Array.from(target.y, (t) => (t - this.yMean) / this.yScale);
    if (this.kernel === 'linear') {
      this.machine = linearSvrDualCD(X, z, this.C, this.epsilon, rng);
      return this;
    }
    const K = new KernelRows(X, this.kernel, this.gamma);
    const l = 2 * n;
    const y = new Int8Array(l);
    const p = new Float64Array(l);
    const QD = new Float64Array(l);
    for (let i = 0; i < n; i++) {
      y[i] = 1;
      y[i + n] = -1;
      p[i] = this.epsilon - z[i];
      p[i + n] = this.epsilon + z[i];
      QD[i] = QD[i + n] = K.diagonal[i];
    }
    const { alpha, rho } = smo(l, n, (i) => K.row(i), QD, p, y, this.C);
    K.release();
    const coef = new Float64Array(n);
    for (let i = 0; i < n; i++) coef[i] = alpha[i] - alpha[i + n];
    this.machine = expansion(X, this.kernel, coef, rho);
    return this;
  }

  predict(X: Design): Float64Array {
    const out = new Float64Array(X.rows);
    decision(this.machine, X, this.kernel, this.gamma, out, 1, 0);
    for (let i = 0; i < X.rows; i++) out[i] = this.yMean + this.yScale * out[i];
    return out;
  }

  /** The prediction: yMean + yScale x the machine's decision value, linear or an RBF expansion. */
  shapleyForm(): ShapleyForm {
    return machineForm([this.machine], this.gamma, 'prediction', this.yMean, this.yScale);
  }

  /** Its ONNX part: yMean + yScale x the machine's decision value. */
  onnx(g: GraphBuilder, X: string): OnnxOutputs {
    return { value: g.add(g.scalar(this.yMean), g.mul(g.scalar(this.yScale), machinesGraph(g, X, [this.machine], this.gamma))) };
  }

  toJSON(): Record<string, unknown> {
    return {
      type: 'svr',
      kernel: this.kernel,
      C: this.C,
      epsilon: this.epsilon,
      gammaFactor: this.gammaFactor,
      gamma: this.gamma,
      yMean: this.yMean,
      yScale: this.yScale,
      machine: expansionToJSON(this.machine),
    };
  }

  static fromJSON(json: Record<string, unknown>): SVR {
    const m = new SVR(json.kernel as Kernel, json.C as number, json.epsilon as number, json.gammaFactor as number, json.gamma as number);
    m.yMean = json.yMean as number;
    m.yScale = json.yScale as number;
    m.machine = expansionFromJSON(json.machine as Record<string, unknown>);
    return m;
  }
}

/**
 * Kernel machines as a Shapley form: offset + factor x the decision value of each head, head h being the machines
 * summed with the signs `signs[h]` (default: head h is machine h alone). Linear machines (kept w) give linear heads; RBF
 * ones, heads over their distinct support vectors (a sample is a support vector of several one-vs-one pairs).
 */
function machineForm(
  machines: Expansion[],
  gamma: number,
  scale: 'decision value' | 'one-vs-one decision sum' | 'prediction',
  offset: number,
  factor: number,
  signs: number[][] = machines.map((_, h) => machines.map((__, k) => (k === h ? 1 : 0))),
): ShapleyForm {
  const rho = signs.map((sign) => machines.reduce((s, e, k) => s + sign[k] * e.rho, 0));
  if (machines.every((e) => e.w)) {
    const heads = signs.map((sign, h): LinearHead => {
      const w = new Float64Array((machines[0]?.w as Float64Array | undefined)?.length ?? 0);
      machines.forEach((e, k) => {
        if (sign[k] !== 0) (e.w as Float64Array).forEach((v, j) => (w[j] += factor * sign[k] * v));
      });
      return { intercept: offset - factor * rho[h], weights: w };
    });
    return { kind: 'linear', scale, heads };
  }
  return { kind: 'rbf', scale, gamma, machines: sharedExpansions(machines, signs, rho), offset, factor };
}

/** The machines' support vectors, each once, with each head's summed coefficients over them. */
function sharedExpansions(machines: Expansion[], signs: number[][], rho: number[]): KernelExpansions {
  const d = machines.reduce((w, e) => (e.coef.length > 0 ? e.sv.length / e.coef.length : w), 0);
  const { sv, count, refs } = distinctSupportVectors(machines, d);
  const coefs = signs.map((sign) => {
    const coef = new Float64Array(count);
    machines.forEach((e, k) => {
      if (sign[k] !== 0) e.coef.forEach((v, j) => (coef[refs[k][j]] += sign[k] * v));
    });
    return coef;
  });
  return { sv, coefs, rho };
}

/** SVM settings each thoroughness tries: linear C, RBF C x gamma factor, SVR epsilons. */
const SVMS = {
  preliminary: { linearC: [1], rbf: [{ C: 1, gammaFactor: 1 }], epsilons: [0.1] },
  typical: {
    linearC: [0.1, 1],
    rbf: cross([0.3, 1, 3, 10], [0.5, 1, 2]).map(([C, gammaFactor]) => ({ C, gammaFactor })),
    epsilons: [0.1, 0.5],
  },
  extensive: {
    linearC: [0.01, 0.1, 1, 10],
    rbf: cross([0.03, 0.1, 0.3, 1, 3, 10, 30, 100], [0.1, 0.3, 0.5, 1, 2, 4]).map(([C, gammaFactor]) => ({ C, gammaFactor })),
    epsilons: [0.05, 0.1, 0.5],
  },
};

/** Above this many samples, kernel SVMs and SVRs (quadratic in n) are left out of the grid. */
export const MAX_KERNEL_SAMPLES = 5000;

export type SvmSpec = { kind: 'svm'; kernel: Kernel; C: number; gammaFactor: number; epsilon: number };

/**
 * Support vector machines (classification) and support vector regression: linear and RBF kernels; regression tries
 * each epsilon with the linear C values and the RBF settings of gamma factor at most 1. Above MAX_KERNEL_SAMPLES
 * samples the RBF machines are left out, and with them every SVR.
 */
export const SVM_KIND = defineModelKind({
  kind: 'svm',
  classes: { svm: SVM, svr: SVR },
  interpretable: false,
  tasks: ['classification', 'regression'],
  grid(level, task, sampleCount): SvmSpec[] {
    const kernels = sampleCount <= MAX_KERNEL_SAMPLES;
    const { linearC, rbf, epsilons } = SVMS[level];
    const linear = (epsilon: number) => linearC.map((C): SvmSpec => ({ kind: 'svm', kernel: 'linear', C, gammaFactor: 1, epsilon }));
    const rbfs = (epsilon: number, settings: typeof rbf) =>
      settings.map((s): SvmSpec => ({ kind: 'svm', kernel: 'rbf', C: s.C, gammaFactor: s.gammaFactor, epsilon }));
    if (task === 'classification') return [...linear(0), ...(kernels ? rbfs(0, rbf) : [])];
    if (task !== 'regression' || !kernels) return [];
    return epsilons.flatMap((e) => [
      ...linear(e),
      ...rbfs(
        e,
        rbf.filter((s) => s.gammaFactor <= 1),
      ),
    ]);
  },
  families: { 'svm-linear': 2, 'svm-rbf': 4 },
  family: (s: SvmSpec) => `svm-${s.kernel}`,
  flexibility: (s: SvmSpec) => Math.log(s.C) + Math.log(s.gammaFactor),
  create(s: SvmSpec, task: Task) {
    if (task === 'survival') throw new Error('No survival SVM');
    return task === 'classification' ? new SVM(s.kernel, s.C, s.gammaFactor) : new SVR(s.kernel, s.C, s.epsilon, s.gammaFactor);
  },
  describe(s: SvmSpec, task: Task, classCount: number) {
    const k = s.kernel === 'linear' ? 'linear kernel' : `RBF kernel, gamma = ${s.gammaFactor} / features`;
    return task === 'classification'
      ? `Support vector machine (${k}, C = ${s.C}${classCount > 2 ? (s.kernel === 'rbf' ? ', one-vs-one' : ', one-vs-rest') : ''})`
      : `Support vector regression (${k}, C = ${s.C}, epsilon = ${s.epsilon})`;
  },
});
