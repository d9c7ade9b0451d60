import type { ErrorCode } from '../common/error-codes';

/**
 * What a module registers with the job owner: the rows its jobs work for (a JobSubject) and its kinds of job
 * (a JobKind each, with a handler: JobsService.register in its onModuleInit). The job owner knows no table or
 * kind by name. Adding a kind of job is one JobKind and its handler; adding a kind of subject is one JobSubject
 * and one migration (its table, and the jobs table's column that refers to it).
 */

/**
 * A kind of row that jobs work for (a task, an analysis, a prediction), as the module that owns its table defines
 * it. Its state is the state clients see (job-state.ts moves it); its job row goes with it (the jobs table's
 * foreign key `jobColumn`, ON DELETE CASCADE), so deleting the subject cancels its job.
 */
export interface JobSubject {
  /** What log lines and messages call it ('analysis'); its deletion is logged as `<name>.cancelled`. */
  readonly name: string;
  /** Its table, with the columns `id`, `state`, `error` (jsonb) and `user_id`, and those flagged below. */
  readonly table: string;
  /** The jobs table's column that refers to it; its migration adds it, and adds it to the jobs_one_subject check. */
  readonly jobColumn: string;
  /** start_time and end_time columns. */
  readonly times?: boolean;
  /** Shows startTime and executionTimeInSeconds in its status (with `times`). */
  readonly showsTimes?: boolean;
  /** A progress column, shown while running. */
  readonly progress?: boolean;
  /** An updated_at column. */
  readonly updatedAt?: boolean;
  /** A dataset_id column, set when it finishes (the datasetId its handler's store returns). */
  readonly dataset?: boolean;
}

/**
 * One kind of job, as the module that runs it defines it (in its `*.job.ts`, beside its handler). `P` is its
 * payload (the jobs table's `payload` column): JobsService.enqueue takes only a payload of that type.
 */
export interface JobKind<P> {
  /** Its name in the jobs table's `kind` column (letters and digits). */
  readonly name: string;
  /** The row it works for. */
  readonly subject: JobSubject;
  /** The subject's id, read from the payload. */
  subjectId(payload: P): string;
  /** The code a failure gets when the job gives up on an error that carries none (a crash, a lost worker). */
  readonly failureCode: ErrorCode;
  /**
   * What the subject shows while its job waits to run, from enqueue and again when a stopping worker hands it back:
   * `pending` (not started), or `running` for an image task, whose `pending` means it still takes images.
   */
  readonly waitsAs: 'pending' | 'running';
}
