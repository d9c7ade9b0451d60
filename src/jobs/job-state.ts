import { DataSource, EntityManager } from 'typeorm';
import { StringEnum, Type } from '../common/api-schema';
import type { Static } from '../common/api-schema';
import { Db, execute, rows } from '../database/sql';
import type { JobKind, JobSubject } from './job-kinds';
import type { Finished } from './jobs.types';

/**
 * The one state machine of long-running work, as clients see it on the subject (task, analysis,
 * prediction):
 *
 *   pending --start------> running --finish--> finished
 *      |    <--hand back--    |  \--fail----> failed
 *      \------fail------------+-----------------^
 *   any state --delete of the subject--> cancelled (the row goes, and its job row with it)
 *
 * A retry restarts a running subject (running -> running). A worker that stops hands its running jobs
 * back: their subjects wait again as they did before they started (pending; an image task stays running,
 * see JobKind's waitsAs). `fail` never overwrites a finished or failed subject: the first failure
 * recorded is the one the client sees.
 */
export const SubjectState = StringEnum(['pending', 'running', 'finished', 'failed']);
export type SubjectState = Static<typeof SubjectState>;

/** The error a failed task, analysis or prediction carries in its status. */
export const SubjectError = Type.Object(
  { code: Type.String({ description: 'an error code of the catalogue' }), message: Type.String() },
  { $id: 'StatusError' },
);
export type SubjectError = Static<typeof SubjectError>;

/**
 * The state as clients see it, as a SELECT column on the subject's table: a subject whose job waits in the queue
 * again (handed back at a shutdown, retried, its worker lost) is `pending`, not yet (re)started, rather than
 * `running` with a frozen progress; but not for a job whose kind waits as `running` (an image task stays running
 * from its commit on: pending means that it still takes images). `kinds`: the registered kinds.
 */
export function shownState(subject: JobSubject, kinds: readonly JobKind<unknown>[]): string {
  const t = subject.table;
  const running = kinds.filter((k) => k.subject === subject && k.waitsAs === 'running').map((k) => `'${k.name}'`);
  const which = running.length ? ` AND jobs.kind NOT IN (${running.join(', ')})` : '';
  return `CASE WHEN ${t}.state = 'running' AND EXISTS (SELECT 1 FROM jobs WHERE jobs.${subject.jobColumn} = ${t}.id AND jobs.state = 'queued'${which}) THEN 'pending' ELSE ${t}.state END AS state`;
}

/** The columns renderStatus reads, for a SELECT on the subject's table. */
export function statusColumns(subject: JobSubject, kinds: readonly JobKind<unknown>[]): string {
  return [
    shownState(subject, kinds),
    'error',
    ...(subject.showsTimes ? ['start_time', 'end_time', 'now() AS now'] : []),
    ...(subject.progress ? ['progress'] : []),
    ...(subject.dataset ? ['dataset_id'] : []),
  ].join(', ');
}

export interface StatusRow {
  state: SubjectState;
  error: SubjectError | null;
  start_time?: Date | null;
  end_time?: Date | null;
  now?: Date;
  progress?: number | null;
  dataset_id?: string | null;
}

/** The state part of every status response (api-v1 "States and transitions"). */
export interface StatusView {
  state: SubjectState;
  startTime?: string;
  executionTimeInSeconds?: number;
  progress?: number;
  datasetId?: string;
  error?: SubjectError;
}

/** Seconds between two instants, to the hundredth, never negative. */
export function seconds(from: Date, to: Date): number {
  return Math.max(0, Math.round((to.getTime() - from.getTime()) / 10) / 100);
}

/**
 * The one status view: tasks, analyses and predictions all render their state with it. Rules of api-v1:
 * times when running or finished (and failed after a start), progress iff running, datasetId when a task
 * is finished (kept after the dataset is deleted: rule 5), error when failed.
 */
export function renderStatus(s: JobSubject, r: StatusRow): StatusView {
  const view: StatusView = { state: r.state };
  if (s.showsTimes && r.start_time && r.state !== 'pending') {
    const now = r.now ?? new Date();
    view.startTime = r.start_time.toISOString();
    view.executionTimeInSeconds = seconds(r.start_time, r.state === 'running' ? now : (r.end_time ?? now));
  }
  if (s.progress && r.state === 'running') view.progress = Math.min(1, Math.max(0, r.progress ?? 0));
  if (s.dataset && r.state === 'finished' && r.dataset_id != null) view.datasetId = String(r.dataset_id);
  if (r.state === 'failed' && r.error) view.error = r.error;
  return view;
}

/**
 * The state changes of subjects, and the status columns of their SELECTs, with the kinds registered with
 * JobsService. Only the job runner (and enqueue, and an image upload that expires) change states.
 */
export class SubjectStates {
  constructor(
    private readonly db: DataSource,
    private readonly kinds: () => readonly JobKind<unknown>[],
  ) {}

  /** shownState with the registered kinds. */
  shownState(subject: JobSubject): string {
    return shownState(subject, this.kinds());
  }

  /** statusColumns with the registered kinds. */
  statusColumns(subject: JobSubject): string {
    return statusColumns(subject, this.kinds());
  }

  /** pending|running -> running. False when the subject is gone or already settled: nothing to run. */
  async start(subject: JobSubject, id: string, db: Db = this.db): Promise<boolean> {
    const started = await rows<{ id: string }>(
      db,
      `UPDATE ${subject.table} SET ${changes(subject, 'running').join(', ')}
        WHERE id = $1 AND state IN ('pending', 'running') RETURNING id`,
      [id],
    );
    return started.length > 0;
  }

  /**
   * running -> pending, in the transaction that hands its job back to the queue: the subject is again "not yet
   * started" (no start time, no progress) until a worker takes the job. A subject that waits as running (an
   * image task) keeps its state.
   */
  async handBack(tx: EntityManager, kind: JobKind<unknown>, id: string): Promise<void> {
    if (kind.waitsAs === 'running') return;
    const s = kind.subject;
    const sets = [`state = 'pending'`];
    if (s.updatedAt) sets.push('updated_at = now()');
    if (s.times) sets.push('start_time = NULL');
    if (s.progress) sets.push('progress = NULL');
    await execute(tx, `UPDATE ${s.table} SET ${sets.join(', ')} WHERE id = $1 AND state = 'running'`, [id]);
  }

  /** Locks a running subject for its finish; false when it is gone (deleted) or no longer running. */
  async lockRunning(tx: EntityManager, subject: JobSubject, id: string): Promise<boolean> {
    const locked = await rows<{ id: string }>(tx, `SELECT id FROM ${subject.table} WHERE id = $1 AND state = 'running' FOR UPDATE`, [id]);
    return locked.length > 0;
  }

  /** running -> finished, in the transaction that stored the result (after lockRunning). */
  async finish(tx: EntityManager, subject: JobSubject, id: string, finished: Finished): Promise<void> {
    const sets = [...changes(subject, 'finished'), 'error = NULL'];
    const params: unknown[] = [id];
    if (subject.dataset && finished.datasetId !== undefined) {
      params.push(finished.datasetId);
      sets.push(`dataset_id = $${params.length}`);
    }
    await execute(tx, `UPDATE ${subject.table} SET ${sets.join(', ')} WHERE id = $1`, params);
  }

  /** pending|running -> failed with `error`; a finished or failed subject keeps its state (first failure wins). */
  async fail(subject: JobSubject, id: string, error: SubjectError, db: Db = this.db): Promise<void> {
    await execute(
      db,
      `UPDATE ${subject.table} SET ${[...changes(subject, 'failed'), 'error = $2'].join(', ')}
        WHERE id = $1 AND state IN ('pending', 'running')`,
      [id, JSON.stringify(error)],
    );
  }

  /** The fraction done of a running subject; it never goes back. No-op for subjects without progress. */
  async progress(subject: JobSubject, id: string, fraction: number): Promise<void> {
    if (!subject.progress) return;
    await execute(
      this.db,
      `UPDATE ${subject.table} SET progress = greatest(coalesce(progress, 0), $2) WHERE id = $1 AND state = 'running'`,
      [id, fraction],
    );
  }
}

/** The SET clauses of a move to `state`: the state, and the columns the subject has that go with it. */
function changes(s: JobSubject, state: SubjectState): string[] {
  const sets = [`state = '${state}'`];
  if (s.updatedAt) sets.push('updated_at = now()');
  if (state === 'running' && s.times) sets.push('start_time = coalesce(start_time, now())');
  if (state === 'running' && s.progress) sets.push('progress = coalesce(progress, 0)');
  if ((state === 'finished' || state === 'failed') && s.times) sets.push('end_time = now()');
  if ((state === 'finished' || state === 'failed') && s.progress) sets.push('progress = NULL');
  return sets;
}
