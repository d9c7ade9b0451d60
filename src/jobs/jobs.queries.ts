import type { DataSource, EntityManager } from 'typeorm';
import { Db, execute, rows } from '../database/sql';
import type { JobSubject } from './job-kinds';

/**
 * The statements on the jobs table (the queue: claims, leases, settling). The subjects' state columns are
 * job-state.ts's alone.
 */

/** A job as the runner takes it. */
export interface JobRow {
  id: string;
  kind: string;
  payload: unknown;
  cost: number;
  attempts: number;
  max_attempts: number;
}

const JOB_COLUMNS = 'id, kind, payload, cost, attempts, max_attempts';

/** The first key of the advisory lock that serializes one user's enqueues (the second is the user's id). */
const QUEUE_LOCK = 0x5167_0001;

/** The user a subject belongs to (the job is that user's), or null when the subject is no user's. */
export async function subjectUser(db: Db, subject: JobSubject, id: string): Promise<string | null | undefined> {
  const [row] = await rows<{ user_id: string | null }>(db, `SELECT user_id FROM ${subject.table} WHERE id = $1`, [id]);
  return row?.user_id;
}

export interface NewJob {
  kind: string;
  projectId: string | null;
  subject: JobSubject;
  subjectId: string;
  payload: unknown;
  cost: number;
  maxAttempts: number;
  userId: string | null;
}

/** Queues a job; its id. */
export async function insertJob(db: Db, job: NewJob): Promise<string> {
  const [row] = await rows<{ id: string }>(
    db,
    `INSERT INTO jobs (kind, project_id, ${job.subject.jobColumn}, payload, cost, max_attempts, user_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
    [job.kind, job.projectId, job.subjectId, JSON.stringify(job.payload), job.cost, job.maxAttempts, job.userId],
  );
  return String(row.id);
}

/**
 * The jobs of `userId` waiting to run, counted under an advisory lock held to the end of the transaction `tx`:
 * concurrent enqueues of one user take turns here, so they cannot pass a limit together.
 */
export async function lockAndCountQueued(tx: EntityManager, userId: string): Promise<number> {
  await execute(tx, `SELECT pg_advisory_xact_lock($1, $2)`, [QUEUE_LOCK, Number(userId) % 2 ** 31]);
  const [{ n }] = await rows<{ n: number }>(tx, `SELECT count(*)::int AS n FROM jobs WHERE user_id = $1 AND state = 'queued'`, [userId]);
  return n;
}

export interface Claim {
  workerId: string;
  leaseSeconds: number;
  freeCores: number;
  workerCores: number;
  reserveAfterSeconds: number;
  /** The kinds this runner can run (those registered in this process). */
  kinds: string[];
}

/**
 * Claims the next queued job that fits in `freeCores`, in a fair order: of the user with the fewest jobs running (on
 * every worker), among those of the user served least recently, then the oldest. A job at the head of that order
 * that needs more cores than are free is passed by smaller jobs only until it has waited `reserveAfterSeconds`; the
 * head is the first job this worker could ever run (cost within its cores).
 */
export async function claimJob(db: DataSource, c: Claim): Promise<JobRow | undefined> {
  const fairOrder = `(SELECT count(*) FROM jobs r WHERE r.state = 'running' AND r.user_id = j.user_id),
                     (SELECT max(claimed_at) FROM jobs c WHERE c.user_id = j.user_id) NULLS FIRST, run_after, id`;
  const [row] = await rows<JobRow>(
    db,
    `WITH head AS (SELECT cost, run_after FROM jobs j WHERE state = 'queued' AND run_after <= now() AND cost <= $4 AND kind = ANY($6)
                    ORDER BY ${fairOrder} LIMIT 1)
     UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = $1, claimed_at = clock_timestamp(),
            lease_expires_at = now() + make_interval(secs => $2), updated_at = now()
      WHERE id = (SELECT id FROM jobs j WHERE state = 'queued' AND run_after <= now() AND cost <= $3 AND kind = ANY($6)
                     AND NOT EXISTS (SELECT 1 FROM head WHERE head.cost > $3 AND head.run_after <= now() - make_interval(secs => $5))
                   ORDER BY ${fairOrder}
                   FOR UPDATE SKIP LOCKED LIMIT 1)
      RETURNING ${JOB_COLUMNS}`,
    [c.workerId, c.leaseSeconds, c.freeCores, c.workerCores, c.reserveAfterSeconds, c.kinds],
  );
  return row;
}

/**
 * Marks this worker's job done (`running`: only while it is running, as when its result was stored). False when
 * it is no longer this worker's (deleted, or taken over). lease_owner stays: it records which worker ran the job.
 */
export async function markDone(db: Db, jobId: string, workerId: string, running: boolean): Promise<boolean> {
  const done = await rows<{ id: string }>(
    db,
    `UPDATE jobs SET state = 'done', lease_expires_at = NULL, updated_at = now()
      WHERE id = $1 AND lease_owner = $2${running ? ` AND state = 'running'` : ''} RETURNING id`,
    [jobId, workerId],
  );
  return done.length > 0;
}

/** Queues this worker's job again after a failed attempt, to run after `delaySeconds`; false when its row is gone. */
export async function requeueForRetry(db: Db, jobId: string, workerId: string, reason: string, delaySeconds: number): Promise<boolean> {
  const requeued = await rows<{ id: string }>(
    db,
    `UPDATE jobs SET state = 'queued', error = $3, lease_owner = NULL, lease_expires_at = NULL,
            run_after = now() + make_interval(secs => $4), updated_at = now()
      WHERE id = $1 AND lease_owner = $2 RETURNING id`,
    [jobId, workerId, reason, delaySeconds],
  );
  return requeued.length > 0;
}

/** Queues this worker's running job again with its attempt given back (a clean stop); false when it is no longer its. */
export async function handBackJob(tx: EntityManager, jobId: string, workerId: string): Promise<boolean> {
  const handed = await rows<{ id: string }>(
    tx,
    `UPDATE jobs SET state = 'queued', attempts = greatest(attempts - 1, 0), lease_owner = NULL,
            lease_expires_at = NULL, updated_at = now()
      WHERE id = $1 AND lease_owner = $2 AND state = 'running' RETURNING id`,
    [jobId, workerId],
  );
  return handed.length > 0;
}

/**
 * Fails a job with `message` when it is still the caller's to fail: `where` says when (its lease holder, or an
 * expired lease), with `params` from $3 on. False when it is not.
 */
export async function failJob(tx: EntityManager, jobId: string, message: string, where: string, params: unknown[]): Promise<boolean> {
  const failed = await rows<{ id: string }>(
    tx,
    `UPDATE jobs SET state = 'failed', error = $2, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
      WHERE id = $1 AND ${where} RETURNING id`,
    [jobId, message, ...params],
  );
  return failed.length > 0;
}

/** Of the jobs `ids`, those whose row still exists, and whether each is still this worker's running job. */
export async function stillMine(db: DataSource, ids: string[], workerId: string): Promise<Map<string, boolean>> {
  const found = await rows<{ id: string; mine: boolean }>(
    db,
    `SELECT id, (lease_owner = $2 AND state = 'running') AS mine FROM jobs WHERE id = ANY($1::bigint[])`,
    [ids, workerId],
  );
  return new Map(found.map((r) => [String(r.id), r.mine]));
}

/** Extends the leases of this worker's running jobs `ids`; the ids renewed (a job not among them lost its row or lease). */
export async function renewLeases(db: DataSource, ids: string[], workerId: string, leaseSeconds: number): Promise<Set<string>> {
  const renewed = await rows<{ id: string }>(
    db,
    `UPDATE jobs SET lease_expires_at = now() + make_interval(secs => $3), updated_at = now()
      WHERE id = ANY($1::bigint[]) AND lease_owner = $2 AND state = 'running' RETURNING id`,
    [ids, workerId, leaseSeconds],
  );
  return new Set(renewed.map((r) => String(r.id)));
}

/** Queued jobs of `kinds` that need more than `cores` and have not changed for `seconds`. */
export async function strandedJobs(db: DataSource, kinds: string[], cores: number, seconds: number): Promise<JobRow[]> {
  return rows<JobRow>(
    db,
    `SELECT ${JOB_COLUMNS} FROM jobs
      WHERE state = 'queued' AND cost > $1 AND updated_at < now() - make_interval(secs => $2) AND kind = ANY($3)`,
    [cores, seconds, kinds],
  );
}

/** Running jobs of `kinds` whose lease expired with attempts left, of workers other than `workerId`: queued again (their worker died). */
export async function requeueExpired(db: DataSource, kinds: string[], workerId: string): Promise<JobRow[]> {
  return rows<JobRow>(
    db,
    `UPDATE jobs SET state = 'queued', error = 'worker lost (lease expired)', lease_owner = NULL, lease_expires_at = NULL,
            updated_at = now()
      WHERE id IN (SELECT id FROM jobs WHERE state = 'running' AND lease_expires_at < now() AND attempts < max_attempts
                      AND kind = ANY($1) AND lease_owner IS DISTINCT FROM $2 FOR UPDATE SKIP LOCKED)
      RETURNING ${JOB_COLUMNS}`,
    [kinds, workerId],
  );
}

/** Running jobs of `kinds` whose lease expired on their last attempt, of workers other than `workerId`. */
export async function expiredOnLastAttempt(db: DataSource, kinds: string[], workerId: string): Promise<JobRow[]> {
  return rows<JobRow>(
    db,
    `SELECT ${JOB_COLUMNS} FROM jobs WHERE state = 'running' AND lease_expires_at < now() AND attempts >= max_attempts AND kind = ANY($1)
        AND lease_owner IS DISTINCT FROM $2`,
    [kinds, workerId],
  );
}

/**
 * The jobs of work that passed to another user (a deleted user's tasks, analyses and predictions in projects of
 * others) follow it: jobs.user_id becomes its subject's user_id again (the per-user queue limits and the claim order
 * go by it). The step of deleting a user that the jobs module provides (USER_DELETION_STEP, common/user-deletion.ts).
 */
export async function jobsFollowTheirSubjects(tx: EntityManager, userId: string): Promise<void> {
  await execute(
    tx,
    `UPDATE jobs j SET user_id = coalesce(
        (SELECT user_id FROM tasks WHERE id = j.task_id),
        (SELECT user_id FROM analyses WHERE id = j.analysis_id),
        (SELECT user_id FROM predictions WHERE id = j.prediction_id))
      WHERE j.user_id = $1`,
    [userId],
  );
}
