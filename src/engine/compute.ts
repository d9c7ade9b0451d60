/**
 * The computations of an analysis's calling thread that a worker thread can run instead (TaskRunner.compute): the
 * serial steps between the parallel ones, split into pieces that run side by side on the pool (BBCD-CV's and the winner
 * rule's bootstraps, the calibration of each configuration, the plots). Each is a function of its arguments alone,
 * computed the same way wherever it runs, so a result never depends on the threads: the pieces' results are put
 * together in a fixed order. Arguments and results cross threads by structured cloning; arrays over a
 * SharedArrayBuffer (the out-of-fold predictions) are shared, not copied.
 */
import { calibrateConfiguration, ConfigurationCalibrationArgs } from './analysis/configuration-calibration';
import { gridOutputs } from './analysis/partial-dependence-grid';
import { BootstrapMatrix, bootstrapMatrix, localMatrix, MatrixRunner, MetricContext } from './bbc';
import { outOfFoldPlots } from './plots';
import { pooledPerformance } from './plots/bootstrap';
import { Rng } from './rng';

export const COMPUTATIONS = {
  bootstrapMatrix,
  calibrateConfigurations: (a: { configurations: ConfigurationCalibrationArgs[] }) =>
    a.configurations.map((c) => calibrateConfiguration(c)),
  outOfFoldPlots,
  partialDependenceGrids: gridOutputs,
  pooledPerformance: (a: { predictions: Float64Array; metrics: string[]; ctx: MetricContext; B: number; rng: number }) =>
    pooledPerformance(a.predictions, a.metrics, a.ctx, a.B, Rng.resume(a.rng)),
};

export type ComputeName = keyof typeof COMPUTATIONS;
export type ComputeArgs<K extends ComputeName> = Parameters<(typeof COMPUTATIONS)[K]>[0];
export type ComputeResult<K extends ComputeName> = ReturnType<(typeof COMPUTATIONS)[K]>;

/** Runs a computation here (a worker's message, or the inline runner). */
export async function runComputation<K extends ComputeName>(name: K, args: ComputeArgs<K>): Promise<Awaited<ComputeResult<K>>> {
  const compute = COMPUTATIONS[name] as (a: ComputeArgs<K>) => Awaited<ComputeResult<K>> | Promise<Awaited<ComputeResult<K>>>;
  return await compute(args);
}

/**
 * Splits [0, count) into consecutive pieces of at most `size` and runs `piece` on each (side by side when it runs on
 * the pool), giving their results in order.
 */
export function inPieces<T>(count: number, size: number, piece: (from: number, to: number) => Promise<T>): Promise<T[]> {
  const starts = Array.from({ length: Math.ceil(count / size) }, (_, k) => k * size);
  return Promise.all(starts.map((from) => piece(from, Math.min(count, from + size))));
}

/** What matrixOnPool needs of a TaskRunner (pool.ts, which imports this file). */
export interface ComputeRunner {
  /** worker threads alive (0: the inline runner) */
  readonly liveWorkers: number;
  compute<K extends ComputeName>(name: K, args: ComputeArgs<K>): Promise<Awaited<ComputeResult<K>>>;
}

/**
 * A MatrixRunner over the pool: the sets in pieces (about three per thread), each piece's bootstraps drawn from the
 * same position of the generator, the columns put back in order: the matrix of localMatrix to the bit. An inline
 * runner (no threads) computes it with localMatrix, in time slices.
 */
export function matrixOnPool(runner: ComputeRunner): MatrixRunner {
  return async (a) => {
    if (runner.liveWorkers === 0) return localMatrix(a);
    const m = a.sets.length;
    const size = Math.max(1, Math.ceil(m / (3 * Math.max(1, runner.liveWorkers))));
    const position = typeof a.rng === 'number' ? a.rng : a.rng.position;
    const pieces = await inPieces(m, size, (from, to) =>
      runner.compute('bootstrapMatrix', {
        ...a,
        sets: a.sets.slice(from, to),
        ...(a.losses ? { losses: a.losses.slice(from, to) } : {}),
        rng: position,
      }),
    );
    const out: BootstrapMatrix = {
      point: new Float64Array(m),
      values: new Float64Array(a.B * m),
      ...(a.losses ? { losses: new Float64Array(a.B * m) } : {}),
    };
    pieces.forEach(({ point, values, losses }, k) => {
      const from = k * size;
      const width = point.length;
      out.point.set(point, from);
      for (let b = 0; b < a.B; b++) {
        out.values.set(values.subarray(b * width, (b + 1) * width), b * m + from);
        if (losses) out.losses?.set(losses.subarray(b * width, (b + 1) * width), b * m + from);
      }
    });
    return out;
  };
}
