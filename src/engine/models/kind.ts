import type { Task } from '../metrics';
import type { Thoroughness } from '../types';
import type { Model } from './common';
import type { ShapleyForm } from './shapley-form';

/** A model an analysis fits, saves and explains: every kind's models give their Shapley form (src/engine/explain/). */
export type SavedModel = Model & { shapleyForm(): ShapleyForm };

/** A class of model: what modelFromJSON reads a saved model back with. */
export type ModelClass = { fromJSON(json: Record<string, unknown>): SavedModel };

/**
 * A kind of model says what it is, as a scikit-learn estimator carries its tags: the grid, the analysis and the
 * winner rule ask the kind (models/index.ts lists the kinds), and the pipeline asks the fitted model what it can
 * show (Model's optional methods); nothing tests a model's class. A new kind is its module (its class or classes and
 * this descriptor) and its line in MODEL_KINDS.
 */
export interface ModelKind<S extends { kind: string }, C extends Record<string, ModelClass> = Record<string, ModelClass>> {
  /** the `kind` of its specs in the configuration grid */
  readonly kind: S['kind'];
  /** the classes `create` makes, by the `type` their toJSON writes */
  readonly classes: C;
  /** shown among the interpretable models (modelsConsidered: interpretable, the result's `interpretable` model) */
  readonly interpretable: boolean;
  /** the tasks it is fitted for */
  readonly tasks: readonly Task[];
  /** what a thoroughness tries of it, for a task and a dataset of `sampleCount` samples, in the grid's order */
  grid(level: Thoroughness, task: Task, sampleCount: number): S[];
  /**
   * Its families by name (as the leaderboard names them) with their place in the winner rule's order of
   * interpretability, from the most interpretable: linear 0, tree 1, svm-linear 2, forest 3, svm-rbf 4 (a new family
   * takes a number between or after them).
   */
  readonly families: Readonly<Record<string, number>>;
  /** The family of a spec: one of `families`. */
  family(spec: S): string;
  /** How flexible a spec is within its family (smaller = more strongly regularised): the winner rule's next key. */
  flexibility(spec: S): number;
  /** A model for the spec and the task: an instance of one of `classes` (the round-trip spec reads each back). */
  create(spec: S, task: Task): SavedModel;
  /** Human-readable text of the model, as the result's `model` field. */
  describe(spec: S, task: Task, classCount: number): string;
}

/** Declares a kind of model (the identity: it keeps the spec and class types of the declaration). */
export function defineModelKind<S extends { kind: string }, C extends Record<string, ModelClass>>(kind: ModelKind<S, C>): ModelKind<S, C> {
  return kind;
}

/** Every pair of `as` and `bs`, `as` outer (the grids' products of settings). */
export const cross = <A, B>(as: A[], bs: B[]): [A, B][] => as.flatMap((a) => bs.map((b): [A, B] => [a, b]));
