/** What a job's log lines and its subject's error say, beside the runner (job-runner.ts). */
import { EngineCrash } from '../common/engine-process';
import { FinalJobError } from './jobs.types';

/**
 * What a client reads of a failure that is not a JobFailure: the messages written for clients (FinalJobError, an
 * engine crash), else a reference to the log. A fault of ours (SQL, a library's or Node's words, a path) is
 * never shown.
 */
export function clientMessage(job: { id: string; subject: string }, e: unknown): string {
  if (e instanceof FinalJobError || e instanceof EngineCrash) return e.message;
  return `the ${job.subject} stopped on an internal fault (logged with job ${job.id}): retry, or report it with this number`;
}

/** The identifiers in a job's payload (`analysisId`, `taskId`, ...), for its log lines. */
export function idsOf(payload: unknown): Record<string, string> {
  if (!payload || typeof payload !== 'object') return {};
  const ids: Record<string, string> = {};
  for (const [k, v] of Object.entries(payload)) {
    if (/Id$/.test(k) && (typeof v === 'string' || typeof v === 'number')) ids[k] = String(v);
  }
  return ids;
}
