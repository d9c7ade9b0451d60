import type { EntityManager } from 'typeorm';
import type { ErrorCode } from '../common/error-codes';

/** Reports the fraction done (0 to 1). The runner throttles the writes; call it as often as you like. */
export type ReportProgress = (fraction: number) => void;

/** What a subject gains when its job finishes (a task: the dataset it built). */
export interface Finished {
  datasetId?: string;
}

/**
 * What a domain module supplies for one job kind (payload `P`): what runs, and where its result is stored. Everything
 * else (state changes, retries, giving up, progress writes, cancellation, logging) is the runner's.
 *
 * `execute` gets only its payload, a signal and a progress callback, and returns a plain value: nothing in
 * it depends on the runner's process, so it could run in a child process with the result sent back.
 */
export interface JobHandler<P, R = unknown> {
  /**
   * Does the work without writing the result. Must stop soon after `signal` aborts (the subject was
   * deleted, the worker lost its lease or is shutting down). Throw a JobFailure for a failure the client
   * should see with its code; any other error is retried while attempts remain.
   */
  execute(payload: P, signal: AbortSignal, report: ReportProgress): Promise<R>;
  /**
   * Stores the result inside the runner's transaction, which has locked the running subject and marks it
   * finished after this returns: the result is stored exactly when the subject ends finished.
   */
  store(tx: EntityManager, payload: P, result: R): Promise<Finished | void>;
  /**
   * Lets go of what `execute` gave once the runner is done with it, stored or not (a result that holds a
   * process or its data: a build's columns waiting in an engine process).
   */
  release?(result: R): void;
  /**
   * Clean-up when the job fails for good (e.g. uploaded images no longer needed), inside the runner's transaction that
   * marks the job and its subject failed: a client never sees the failure before the clean-up, nor one without the other.
   */
  onFailed?(tx: EntityManager, payload: P): Promise<void>;
}

/** An error that another attempt cannot fix (bad input): the job fails at once. */
export class FinalJobError extends Error {}

/** A final failure the client sees on the subject's status, with its code and a message saying what and where. */
export class JobFailure extends FinalJobError {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}
