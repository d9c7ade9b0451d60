import type { Task } from '../metrics';
import { DecisionTree } from './cart';
import type { Model } from './common';
import { ConstantModel } from './constant';
import { CoxRegression } from './cox';
import { RandomForest } from './forest';
import { RidgeRegression } from './linear';
import { LogisticRegression } from './logistic';
import { SVM, SVR } from './svm';

export type { Design, Model, Target } from './common';
export { ConstantModel } from './constant';

/** One model of the configuration grid. The task decides the concrete class (e.g. linear -> logistic, ridge or Cox). */
export type ModelSpec =
  | { kind: 'linear'; lambda: number }
  | { kind: 'tree'; maxDepth: number; minLeaf: number }
  | { kind: 'forest'; trees: number; mtryFactor: number; minLeaf: number }
  | { kind: 'svm'; kernel: 'linear' | 'rbf'; C: number; gammaFactor: number; epsilon: number };

/** Linear models and decision trees are interpretable. */
export function isInterpretable(spec: ModelSpec): boolean {
  return spec.kind === 'linear' || spec.kind === 'tree';
}

/** Whether the model can be fitted for a task (no trees or SVMs for survival, only the forest). */
export function supports(spec: ModelSpec, task: Task): boolean {
  return task !== 'survival' || spec.kind === 'linear' || spec.kind === 'forest';
}

/**
 * Every class of model, by the `type` its toJSON writes: modelFromJSON reads a saved model back through this table.
 * createModel returns only instances of these (a SavedModel), so a new class of model is a compile error there until
 * it has its entry here; the round-trip spec checks that each entry reads back what its class writes.
 */
const MODEL_CLASSES = {
  logistic: LogisticRegression,
  ridge: RidgeRegression,
  cox: CoxRegression,
  tree: DecisionTree,
  forest: RandomForest,
  svm: SVM,
  svr: SVR,
  constant: ConstantModel,
} satisfies Record<string, { fromJSON(json: Record<string, unknown>): Model }>;

/** A model that modelFromJSON can read back: an instance of one of MODEL_CLASSES. */
export type SavedModel = InstanceType<(typeof MODEL_CLASSES)[keyof typeof MODEL_CLASSES]>;

export function createModel(spec: ModelSpec, task: Task): SavedModel {
  switch (spec.kind) {
    case 'linear':
      if (task === 'classification') return new LogisticRegression(spec.lambda);
      if (task === 'regression') return new RidgeRegression(spec.lambda);
      return new CoxRegression(spec.lambda);
    case 'tree':
      if (task === 'survival') throw new Error('No survival decision tree');
      return new DecisionTree(task, spec.maxDepth, spec.minLeaf);
    case 'forest':
      return new RandomForest(task, spec.trees, spec.mtryFactor, spec.minLeaf);
    case 'svm':
      if (task === 'survival') throw new Error('No survival SVM');
      return task === 'classification'
        ? new SVM(spec.kernel, spec.C, spec.gammaFactor)
        : new SVR(spec.kernel, spec.C, spec.epsilon, spec.gammaFactor);
  }
}

export function modelFromJSON(json: Record<string, unknown>): SavedModel {
  const type = json.type;
  if (typeof type !== 'string' || !Object.hasOwn(MODEL_CLASSES, type)) throw new Error(`Unknown model type ${String(type)}`);
  return MODEL_CLASSES[type as keyof typeof MODEL_CLASSES].fromJSON(json);
}

/** Human-readable text of a model, as the result's `model` field. */
export function describeModel(spec: ModelSpec, task: Task, classCount: number): string {
  switch (spec.kind) {
    case 'linear':
      if (task === 'classification')
        return `${classCount > 2 ? 'Multinomial' : 'Binary'} logistic regression with ridge penalty (lambda = ${spec.lambda})`;
      if (task === 'regression') return `Ridge linear regression (lambda = ${spec.lambda})`;
      return `Cox proportional hazards regression with ridge penalty (lambda = ${spec.lambda}, Efron ties)`;
    case 'tree':
      return `Decision tree (CART, ${task === 'classification' ? 'Gini' : 'squared error'} splits, max depth ${spec.maxDepth}, at least ${spec.minLeaf} samples per leaf)`;
    case 'forest':
      return task === 'survival'
        ? `Random survival forest (${spec.trees} trees, log-rank splits, mtry = ${spec.mtryFactor} x sqrt(features), at least ${spec.minLeaf} samples per leaf)`
        : `Random forest (${spec.trees} trees, mtry = ${spec.mtryFactor} x ${task === 'classification' ? 'sqrt(features)' : 'features / 3'}, at least ${spec.minLeaf} samples per leaf)`;
    case 'svm': {
      const k = spec.kernel === 'linear' ? 'linear kernel' : `RBF kernel, gamma = ${spec.gammaFactor} / features`;
      return task === 'classification'
        ? `Support vector machine (${k}, C = ${spec.C}${classCount > 2 ? (spec.kernel === 'rbf' ? ', one-vs-one' : ', one-vs-rest') : ''})`
        : `Support vector regression (${k}, C = ${spec.C}, epsilon = ${spec.epsilon})`;
    }
  }
}
