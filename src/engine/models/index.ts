import type { Task } from '../metrics';
import { TREE } from './cart';
import { ConstantModel } from './constant';
import { FOREST } from './forest';
import type { ModelClass, ModelKind, SavedModel } from './kind';
import { LINEAR } from './linear';
import { SVM_KIND } from './svm';

export type { Design, Model, Target } from './common';
export { ConstantModel } from './constant';
export type { ModelKind, SavedModel } from './kind';

/**
 * Every kind of model, in the order the configuration grid lists them (the order is part of every configuration's
 * index, and so of its random seed). Each kind says what it is (models/kind.ts): a new kind of model is its module
 * and its line here.
 */
export const MODEL_KINDS = [LINEAR, TREE, FOREST, SVM_KIND] as const;

/** The model families from the most to the least interpretable, as the kinds name and rank them. */
export const MODEL_FAMILIES: string[] = MODEL_KINDS.flatMap((kind) => Object.entries(kind.families))
  .sort(([, a], [, b]) => a - b)
  .map(([name]) => name);

/** One model of the configuration grid: a spec of one of the kinds. The task decides the class (linear -> logistic, ridge or Cox). */
export type ModelSpec = ReturnType<(typeof MODEL_KINDS)[number]['grid']>[number];

/** The kind of a spec. */
export function kindOf(spec: ModelSpec): ModelKind<ModelSpec> {
  const kind = MODEL_KINDS.find((k) => k.kind === spec.kind);
  if (!kind) throw new Error(`Unknown kind of model ${spec.kind}`);
  // each kind reads only its own specs (methods are bivariant): `kind` matched the spec's
  return kind;
}

/** Whether the model is among the interpretable ones (linear models and decision trees). */
export function isInterpretable(spec: ModelSpec): boolean {
  return kindOf(spec).interpretable;
}

/** Whether the model can be fitted for a task (survival: linear models and forests). */
export function supports(spec: ModelSpec, task: Task): boolean {
  return kindOf(spec).tasks.includes(task);
}

/** A model for the spec and the task. */
export function createModel(spec: ModelSpec, task: Task): SavedModel {
  return kindOf(spec).create(spec, task);
}

/** Human-readable text of a model, as the result's `model` field. */
export function describeModel(spec: ModelSpec, task: Task, classCount: number): string {
  return kindOf(spec).describe(spec, task, classCount);
}

/**
 * Every class of model, by the `type` its toJSON writes: the kinds' classes and the constant model (an empty
 * signature's). modelFromJSON reads a saved model back through this table; the round-trip spec checks that every
 * kind's models come back as they were saved, and that each class here is one a kind makes.
 */
export const MODEL_CLASSES: Record<string, ModelClass> = MODEL_KINDS.reduce<Record<string, ModelClass>>(
  (all, kind) => ({ ...all, ...kind.classes }),
  { constant: ConstantModel },
);

export function modelFromJSON(json: Record<string, unknown>): SavedModel {
  const type = json.type;
  if (typeof type !== 'string' || !Object.hasOwn(MODEL_CLASSES, type)) throw new Error(`Unknown model type ${String(type)}`);
  return MODEL_CLASSES[type].fromJSON(json);
}
