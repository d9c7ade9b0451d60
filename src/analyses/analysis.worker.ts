import { parentPort, workerData } from 'node:worker_threads';
import { EngineInputError, runAnalysis } from '../engine';
import type { AnalysisParameters, EngineDataset } from '../engine/types';

/**
 * One analysis, off the main thread: runs the engine (which starts its own pool of `coreCount` threads)
 * and posts `{ type: 'progress' | 'result' | 'error' }` messages. Terminating this thread cancels it.
 */
const { data, parameters, seed } = workerData as { data: EngineDataset; parameters: AnalysisParameters; seed: number };

runAnalysis(data, parameters, {
  seed,
  threads: parameters.coreCount,
  onProgress: (value) => parentPort?.postMessage({ type: 'progress', value }),
}).then(
  (output) => parentPort?.postMessage({ type: 'result', output }),
  (e: unknown) => {
    const input = e instanceof EngineInputError;
    parentPort?.postMessage({ type: 'error', input, message: input ? e.detail : String((e as Error)?.stack ?? e) });
  },
);
