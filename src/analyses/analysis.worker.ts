import { parentPort, workerData } from 'node:worker_threads';
import { EngineInputError, runAnalysis } from '../engine';
import type { AnalysisOutput, AnalysisParameters, EngineDataset } from '../engine/types';
import type { ProgressMessage } from '../common/worker-thread';

export interface AnalysisRequest {
  data: EngineDataset;
  parameters: AnalysisParameters;
  seed: number;
  /** when the time limit started counting (epoch milliseconds; the engine process shares the clock) */
  startedAt: number;
}

/** The answer, after any number of progress messages. */
export type AnalysisAnswer = { type: 'result'; output: AnalysisOutput } | { type: 'error'; input: boolean; message: string };

/**
 * One analysis, off the main thread: runs the engine (which starts its own pool of `coreCount` threads),
 * posts progress messages, then its answer. Terminating this thread cancels it.
 */
const { data, parameters, seed, startedAt } = workerData as AnalysisRequest;
const post = (m: ProgressMessage | AnalysisAnswer) => parentPort?.postMessage(m);

runAnalysis(data, parameters, {
  seed,
  threads: parameters.coreCount,
  startedAt,
  onProgress: (value) => post({ type: 'progress', value }),
}).then(
  (output) => post({ type: 'result', output }),
  (e: unknown) => {
    const input = e instanceof EngineInputError;
    post({ type: 'error', input, message: input ? e.detail : String((e as Error)?.stack ?? e) });
  },
);
