import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/config';
import { JobKind, JobPayloads, JOB_DEFINITIONS, JOB_KINDS, SubjectKind } from './job-kinds';
import { SubjectStates } from './job-state';
import { JobHandler } from './jobs.types';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { Semaphore } from '../common/semaphore';

export interface EnqueueOptions {
  /** The project the job works for: deleting the project deletes the job. */
  projectId?: string;
  /** Cores the job occupies (default 1). */
  cost?: number;
  maxAttempts?: number;
  /** Enqueue inside the caller's transaction, so the job exists if and only if the caller's rows do. */
  manager?: EntityManager;
}

/** The jobs table's column that links a job to its subject (foreign key, ON DELETE CASCADE). */
const SUBJECT_COLUMN: Record<SubjectKind, string> = { task: 'task_id', analysis: 'analysis_id', prediction: 'prediction_id' };
/** The subject's table: the job is for its user. */
const SUBJECT_TABLE: Record<SubjectKind, string> = { task: 'tasks', analysis: 'analyses', prediction: 'predictions' };

/** The first key of the advisory lock that serializes one user's enqueues (the second is the user's id). */
const QUEUE_LOCK = 0x5167_0001;

/** Requests of one user that queue jobs, run at once in this process (each holds a pooled connection)... */
export const ENQUEUE_TURNS = 2;
/** ...and that wait their turn, holding no connection; one more gets tooMany-1-0-1 at once. */
export const ENQUEUE_WAITING = 32;

/** Handlers by kind, one per kind; the union over kinds that the runner dispatches on. */
type AnyHandler = { [K in JobKind]: JobHandler<K> }[JobKind];

/** Enqueues jobs and keeps the registry of handlers by kind. */
@Injectable()
export class JobsService {
  private readonly handlers = new Map<JobKind, AnyHandler>();
  private readonly listeners: (() => void)[] = [];
  /** Per user, the requests that queue jobs in this process (enqueueTurn). */
  private readonly turns = new Map<string, Semaphore>();
  readonly states: SubjectStates;

  constructor(
    private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.states = new SubjectStates(db);
  }

  /** Called after a job is enqueued by this process (the local runner starts it without waiting for its poll). */
  onEnqueued(listener: () => void): void {
    this.listeners.push(listener);
  }

  // R is the handler's own result type: the runner hands execute's value to store unchanged
  register<K extends JobKind, R>(kind: K, handler: JobHandler<K, R>): void {
    if (this.handlers.has(kind)) throw new Error(`job kind ${kind} has two handlers`);
    this.handlers.set(kind, handler as AnyHandler);
  }

  handler<K extends JobKind>(kind: K): JobHandler<K> | undefined {
    return this.handlers.get(kind) as JobHandler<K> | undefined;
  }

  /** Kinds that have no handler; start-up fails on any. */
  missingHandlers(): JobKind[] {
    return JOB_KINDS.filter((k) => !this.handlers.has(k));
  }

  /**
   * Runs `fn`, a request of `userId` that queues a job (analyze, predict, createDataset, image commit), in its
   * turn: at most ENQUEUE_TURNS of one user's run at once in this process, at most ENQUEUE_WAITING more wait
   * for theirs holding no pooled connection, and any further one gets tooMany-1-0-1 at once. Their enqueues
   * take turns on the user's lock anyway (checkQueue); without this, a burst of 250 predictions held every
   * pooled connection waiting for that lock, and another user's reads waited 5 s for one.
   */
  async enqueueTurn<T>(userId: string, fn: () => Promise<T>): Promise<T> {
    let turns = this.turns.get(userId);
    if (!turns) {
      turns = new Semaphore(ENQUEUE_TURNS);
      this.turns.set(userId, turns);
    }
    if (turns.inUse >= ENQUEUE_TURNS && turns.waitingCount >= ENQUEUE_WAITING) {
      throw new ApiError(
        Codes.TooManyQueuedJobs,
        `you have ${ENQUEUE_TURNS + ENQUEUE_WAITING} requests queueing jobs at once: retry when they have been answered`,
      );
    }
    try {
      return await turns.run(fn);
    } finally {
      if (turns.inUse === 0 && turns.waitingCount === 0) this.turns.delete(userId);
    }
  }

  async enqueue<K extends JobKind>(kind: K, payload: JobPayloads[K], options: EnqueueOptions = {}): Promise<string> {
    const manager = options.manager ?? this.db.manager;
    const definition = JOB_DEFINITIONS[kind];
    const subjectId = definition.subjectId(payload);
    // a kind whose subject waits as running (an image task) shows running from now on
    if (definition.waitsAs === 'running' && !(await this.states.start(definition.subject, subjectId, manager))) {
      throw new Error(`${definition.subject} ${subjectId} cannot run (gone or settled)`);
    }
    const [subject]: { user_id: string | null }[] = await manager.query(
      `SELECT user_id FROM ${SUBJECT_TABLE[definition.subject]} WHERE id = $1`,
      [subjectId],
    );
    const userId = subject?.user_id ?? null;
    if (userId !== null) await this.checkQueue(manager, userId);
    const rows: { id: string }[] = await manager.query(
      `INSERT INTO jobs (kind, project_id, ${SUBJECT_COLUMN[definition.subject]}, payload, cost, max_attempts, user_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [
        kind,
        options.projectId ?? null,
        subjectId,
        JSON.stringify(payload),
        Math.max(1, Math.min(options.cost ?? 1, this.config.workerCores)),
        options.maxAttempts ?? this.config.jobMaxAttempts,
        userId,
      ],
    );
    const id = String(rows[0].id);
    // Inside a transaction the job is visible only after commit: the poll finds it then at the latest.
    setImmediate(() => this.listeners.forEach((l) => l()));
    return id;
  }

  /**
   * At most MAX_QUEUED_JOBS_PER_USER jobs of one user wait to run: a client that queues predictions by the hundred
   * per second is told to wait (tooMany-1-0-1) rather than fill the table. Concurrent enqueues of one user take
   * turns on an advisory lock held to the end of the caller's transaction, so they cannot pass the limit together.
   */
  private async checkQueue(manager: EntityManager, userId: string): Promise<void> {
    const max = this.config.maxQueuedJobsPerUser;
    if (!max) return;
    await manager.query(`SELECT pg_advisory_xact_lock($1, $2)`, [QUEUE_LOCK, Number(userId) % 2 ** 31]);
    const [{ n }]: { n: number }[] = await manager.query(`SELECT count(*)::int AS n FROM jobs WHERE user_id = $1 AND state = 'queued'`, [
      userId,
    ]);
    if (n >= max) {
      throw new ApiError(Codes.TooManyQueuedJobs, `you have ${n} jobs waiting to run (at most ${max}): retry when some have started`);
    }
  }
}
