/**
 * Worker thread entry: holds the analysis data (the matrix is a SharedArrayBuffer view, not a copy)
 * and runs the tasks (and compute.ts's computations) it is sent, one at a time.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runComputation } from './compute';
import { clearTaskCache, runTask, TaskData } from './pipeline';
import type { WorkerJob } from './pool';

const data = (workerData as { data: TaskData }).data;
clearTaskCache();

function failed(job: WorkerJob, e: unknown): void {
  const err = e as Error;
  const id = 'compute' in job ? job.compute : job.id;
  parentPort?.postMessage({ ok: false, id, error: `${err.name}: ${err.message}\n${err.stack ?? ''}` });
}

parentPort?.on('message', (job: WorkerJob) => {
  try {
    if ('compute' in job) {
      // the pool sends a thread its next job only after this one's result
      runComputation(job.compute, job.args as never).then(
        (result) => parentPort?.postMessage({ ok: true, result }),
        (e: unknown) => failed(job, e),
      );
      return;
    }
    const result = runTask(data, job);
    parentPort?.postMessage({ ok: true, result }, [result.predictions.buffer as ArrayBuffer]);
  } catch (e) {
    failed(job, e);
  }
});
