import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/config';
import { JobKind, JobSubject } from './job-kinds';
import { SubjectStates } from './job-state';
import { insertJob, lockAndCountQueued, subjectUser } from './jobs.queries';
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

/** Requests of one user that queue jobs, run at once in this process (each holds a pooled connection)... */
export const ENQUEUE_TURNS = 2;
/** ...and that wait their turn, holding no connection; one more gets tooMany-1-0-1 at once. */
export const ENQUEUE_WAITING = 32;

/** A kind of job with its handler, as its module registered it. */
export interface Registration {
  kind: JobKind<unknown>;
  handler: JobHandler<unknown>;
}

/** Enqueues jobs and keeps the registry of job kinds with their handlers. */
@Injectable()
export class JobsService {
  private readonly registry = new Map<string, Registration>();
  private readonly listeners: (() => void)[] = [];
  /** Per user, the requests that queue jobs in this process (enqueueTurn). */
  private readonly turns = new Map<string, Semaphore>();
  readonly states: SubjectStates;

  constructor(
    private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.states = new SubjectStates(db, () => [...this.registry.values()].map((r) => r.kind));
  }

  /** Called after a job is enqueued by this process (the local runner starts it without waiting for its poll). */
  onEnqueued(listener: () => void): void {
    this.listeners.push(listener);
  }

  /**
   * Registers a kind of job with its handler (a module's onModuleInit). R is the handler's own result type: the
   * runner hands execute's value to store unchanged.
   */
  register<P, R>(kind: JobKind<P>, handler: JobHandler<P, R>): void {
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(kind.name)) throw new Error(`job kind "${kind.name}": a name is letters and digits`);
    if (this.registry.has(kind.name)) throw new Error(`job kind ${kind.name} is registered twice`);
    const subject = this.subjects().find((s) => s.name === kind.subject.name);
    if (subject && subject !== kind.subject) throw new Error(`job kind ${kind.name}: two subjects are named ${subject.name}`);
    this.registry.set(kind.name, { kind, handler });
  }

  /** The kind named `name` with its handler, if it was registered in this process. */
  registration(name: string): Registration | undefined {
    return this.registry.get(name);
  }

  /** The names of the registered kinds: the jobs this process can run. */
  kindNames(): string[] {
    return [...this.registry.keys()];
  }

  /** The subjects of the registered kinds, each once. */
  subjects(): JobSubject[] {
    return [...new Set([...this.registry.values()].map((r) => r.kind.subject))];
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

  async enqueue<P>(kind: JobKind<P>, payload: P, options: EnqueueOptions = {}): Promise<string> {
    if (this.registry.get(kind.name)?.kind !== kind) {
      throw new Error(`job kind ${kind.name} has no handler: register it in its module's onModuleInit`);
    }
    const manager = options.manager ?? this.db.manager;
    const subjectId = kind.subjectId(payload);
    // a kind whose subject waits as running (an image task) shows running from now on
    if (kind.waitsAs === 'running' && !(await this.states.start(kind.subject, subjectId, manager))) {
      throw new Error(`${kind.subject.name} ${subjectId} cannot run (gone or settled)`);
    }
    const userId = (await subjectUser(manager, kind.subject, subjectId)) ?? null;
    if (userId !== null) await this.checkQueue(manager, userId);
    const id = await insertJob(manager, {
      kind: kind.name,
      projectId: options.projectId ?? null,
      subject: kind.subject,
      subjectId,
      payload,
      cost: Math.max(1, Math.min(options.cost ?? 1, this.config.workerCores)),
      maxAttempts: options.maxAttempts ?? this.config.jobMaxAttempts,
      userId,
    });
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
    const n = await lockAndCountQueued(manager, userId);
    if (n >= max) {
      throw new ApiError(Codes.TooManyQueuedJobs, `you have ${n} jobs waiting to run (at most ${max}): retry when some have started`);
    }
  }
}
