import { runInWorker, workerScript } from '../common/worker-thread';
import type { AnalysisOutput, AnalysisParameters, EngineDataset } from '../engine/types';
import type { AnalysisAnswer, AnalysisRequest } from './analysis.worker';

const SCRIPT = workerScript(__dirname, __filename, 'analysis.worker');

export class AnalysisInputError extends Error {}

/**
 * Runs the engine on `data` in an engine process (engine-process.ts: a child process at a lower priority,
 * so the event loop never runs engine code nor waits for a core behind it). The dataset's typed arrays
 * go down the engine process's data pipe (no copy on this event loop). Aborting `signal` kills that process, its
 * threads and pool at once. `startedAt` (epoch milliseconds): when the time limit, if any, started counting.
 */
export async function runAnalysisInWorker(
  data: EngineDataset,
  parameters: AnalysisParameters,
  run: { seed: number; startedAt: number },
  onProgress: (fraction: number) => void,
  signal: AbortSignal,
): Promise<AnalysisOutput> {
  const request: AnalysisRequest = { data, parameters, ...run };
  const answer = await runInWorker<AnalysisAnswer>(SCRIPT, request, { signal, onProgress });
  if (answer.type === 'result') return answer.output;
  throw answer.input ? new AnalysisInputError(answer.message) : new Error(answer.message);
}
