/**
 * Worker thread entry: holds the analysis data (the matrix is a SharedArrayBuffer view, not a copy)
 * and runs the tasks it is sent, one at a time.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { clearTaskCache, runTask, TaskData, TaskSpec } from './pipeline';

const data = (workerData as { data: TaskData }).data;
clearTaskCache();

parentPort?.on('message', (spec: TaskSpec) => {
  try {
    const result = runTask(data, spec);
    parentPort?.postMessage({ ok: true, result }, [result.predictions.buffer as ArrayBuffer]);
  } catch (e) {
    const err = e as Error;
    parentPort?.postMessage({ ok: false, id: spec.id, error: `${err.name}: ${err.message}\n${err.stack ?? ''}` });
  }
});
