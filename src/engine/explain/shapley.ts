import type { ShapleyForm } from '../models/shapley-form';
import { ENUMERATION_MAX_PLAYERS, enumerationShapley, samplingShapley } from './coalitions';
import { linearShapley } from './linear';
import { rbfShapley } from './rbf';
import { treeShapley } from './trees';
import type { ShapleyInput, ShapleyOptions, ShapleyValues } from './types';

/**
 * Interventional Shapley values of a model's outputs at the rows of `input.X` against the background rows, by the
 * exact method its form allows: the closed form of linear outputs, interventional TreeSHAP for trees and forests, the
 * product form of RBF kernels; any other output by enumerating every coalition up to `maxEnumeratedPlayers` players
 * (default ENUMERATION_MAX_PLAYERS), and by permutation sampling beyond, with standard errors.
 */
export function shapleyValues(form: ShapleyForm, input: ShapleyInput, options: ShapleyOptions = {}): ShapleyValues {
  const { players } = input;
  const common = { scale: form.scale, players: players.count };
  switch (form.kind) {
    case 'linear':
      return { ...common, method: 'closedForm', heads: form.heads.length, ...linearShapley(form.heads, input) };
    case 'trees':
      return { ...common, method: 'exactTree', heads: form.columns.length, ...treeShapley(form.trees, form.columns, input) };
    case 'rbf':
      return {
        ...common,
        method: 'exactKernel',
        heads: form.machines.coefs.length,
        ...rbfShapley(form.machines, form.gamma, form.offset, form.factor, input),
      };
    case 'function': {
      const limit = options.maxEnumeratedPlayers ?? ENUMERATION_MAX_PLAYERS;
      if (players.count <= limit)
        return { ...common, method: 'enumeration', heads: form.heads, ...enumerationShapley(form.evaluate, form.heads, input) };
      return {
        ...common,
        method: 'sampling',
        heads: form.heads,
        ...samplingShapley(form.evaluate, form.heads, input, options.seed ?? 0x5a9),
      };
    }
  }
}
