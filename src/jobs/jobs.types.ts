import { JobKind } from './job-kinds';

export interface JobContext<P = Record<string, unknown>> {
  jobId: string;
  kind: JobKind;
  payload: P;
  /** 1 for the first run. */
  attempt: number;
  maxAttempts: number;
  /** Aborted when the lease is lost (job deleted, or taken over after expiry) or the process shuts down. */
  signal: AbortSignal;
}

export interface JobHandler<P = Record<string, unknown>> {
  /** Does the work. Throwing fails this attempt (retried while attempts remain unless the error is final). */
  run(ctx: JobContext<P>): Promise<void>;
  /**
   * Called once when the job is given up: last attempt failed, a final error, or its worker died on the
   * last attempt (lease expired). Marks the domain object (task, analysis, prediction) failed.
   */
  onGiveUp(payload: P, reason: string): Promise<void>;
}

/** Thrown by a handler for an error that another attempt cannot fix (bad input). */
export class FinalJobError extends Error {}
