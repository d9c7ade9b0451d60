import { EngineWorker } from '../common/engine-process';
import { workerScript } from '../common/worker-thread';
import type { AnalysisOutput, AnalysisParameters, EngineDataset } from '../engine/types';

const SCRIPT = workerScript(__dirname, __filename, 'analysis.worker');

export class AnalysisInputError extends Error {}

type Message =
  { type: 'progress'; value: number } | { type: 'result'; output: AnalysisOutput } | { type: 'error'; input: boolean; message: string };

/**
 * Runs the engine on `data` in an engine process (engine-process.ts: a child process at a lower priority,
 * so the event loop never runs engine code nor waits for a core behind it). The dataset's typed arrays
 * go down the engine process's data pipe (no copy on this event loop). Aborting `signal` kills that process, its threads and pool at once.
 */
export function runAnalysisInWorker(
  data: EngineDataset,
  parameters: AnalysisParameters,
  seed: number,
  onProgress: (fraction: number) => void,
  signal: AbortSignal,
): Promise<AnalysisOutput> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortReason(signal));
    const worker = new EngineWorker(SCRIPT, { workerData: { data, parameters, seed } });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      void worker.terminate();
      fn();
    };
    const onAbort = () => settle(() => reject(abortReason(signal)));
    signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: Message) => {
      if (m.type === 'progress') onProgress(m.value);
      else if (m.type === 'result') settle(() => resolve(m.output));
      else settle(() => reject(m.input ? new AnalysisInputError(m.message) : new Error(m.message)));
    });
    worker.once('error', (e: Error) => settle(() => reject(e)));
    worker.once('exit', (code: number) => settle(() => reject(new Error(`analysis thread exited (${code})`))));
  });
}

/** What aborted `signal`, as an Error (an abort reason can be any value). */
function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
