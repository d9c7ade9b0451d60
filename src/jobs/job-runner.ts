import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/config';
import { dropSpareEngineProcess, keepSpareEngineProcess } from '../common/engine-process';
import { isDatabaseUnavailable } from '../common/database-errors';
import { untilAborted } from '../common/until-aborted';
import type { JobKind } from './job-kinds';
import { SubjectError } from './job-state';
import * as queries from './jobs.queries';
import { JobsService } from './jobs.service';
import { clientMessage, idsOf } from './job-messages';
import { FinalJobError, JobFailure, JobHandler } from './jobs.types';
import { ThrottledProgress } from './progress';
import { TickFailures } from './tick-failures';

/** A job this runner took, with its registered kind and handler. */
interface Job {
  id: string;
  kind: JobKind<unknown>;
  handler: JobHandler<unknown>;
  payload: unknown;
  subjectId: string;
  cost: number;
  attempts: number;
  maxAttempts: number;
}

interface Running {
  controller: AbortController;
  cost: number;
  done: Promise<void>;
}

/** How often the runner looks for deleted (cancelled) jobs among those it runs: a deletion stops within 2 s. */
const CANCEL_CHECK_MS = 1000;
/** How long a queued job that needs more cores than a worker has free may be passed by smaller jobs (see claim). */
export const RESERVE_AFTER_SECONDS = 30;
/** At most one progress write per job per this interval. */
const PROGRESS_WRITE_MS = 1000;
/**
 * The waits between tries to hand a job back when a try fails (the database busy or restarting): five tries within
 * about 4 s, well inside the process's forced exit (20 s). After the last, the job waits out its lease.
 */
const HAND_BACK_RETRY_MS = [250, 500, 1000, 2000];
/**
 * The waits between tries to hand back a job that failed because its worker lost the database: until the database
 * answers (a restart of the embedded server takes a second or two), every 5 s at most, while the runner runs; once it
 * stops, HAND_BACK_RETRY_MS's tries more.
 */
const LOST_DATABASE_RETRY_MS = [250, 500, 1000, 2000, 5000];
const LOST_WORKER = 'the worker running it stopped (lease expired) on its last attempt';

/**
 * How a run of a job ended in this runner: `cancelled` when it was aborted while running (its subject was
 * deleted, or another worker holds it); `discarded` when its subject was gone by the time it ended.
 */
export type JobOutcome = 'finished' | 'failed' | 'retried' | 'cancelled' | 'discarded' | 'handedBack';

export interface JobEnded {
  jobId: string;
  /** the kind's name */
  kind: string;
  subjectId: string;
  outcome: JobOutcome;
  /** from its claim to its end here */
  durationMs: number;
}

/** Why a job was aborted: its worker is stopping, and hands it back. */
class ShuttingDown extends Error {
  constructor() {
    super('worker shutting down');
  }
}

/** Why a job was aborted: its row is gone (subject deleted) or another worker holds it. */
class Cancelled extends Error {
  /** `subjectDeleted`: its subject (analysis, task, prediction) was deleted, rather than the job taken over */
  constructor(
    message: string,
    readonly subjectDeleted = false,
  ) {
    super(message);
  }
}

/**
 * Owns long-running work: claims jobs from the job table (FOR UPDATE SKIP LOCKED, under a lease it renews
 * while they run), moves their subjects through the state machine of job-state.ts, stores results,
 * retries, gives up, writes progress, and aborts a job whose subject was deleted. Several processes can
 * run it against one database; a job is never run by two at once while its lease holds, and its result
 * is stored only while this runner still holds it.
 */
@Injectable()
export class JobRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  readonly workerId = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly running = new Map<string, Running>();
  private readonly endedListeners: ((e: JobEnded) => void)[] = [];
  private ticking = false;
  private stopped = false;
  private tickAgain = false;
  private readonly tickFailures: TickFailures;

  constructor(
    private readonly db: DataSource,
    private readonly jobs: JobsService,
    private readonly scheduler: SchedulerRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.tickFailures = new TickFailures(this.logger, config.jobPollMs);
  }

  onApplicationBootstrap(): void {
    if (!this.config.runWorkers) return;
    // jobs start in an engine process started ahead of them
    keepSpareEngineProcess();
    const timer = setInterval(() => void this.tick(), this.config.jobPollMs);
    // a job enqueued here is usually committed a few ms later: look then rather than at the next poll
    this.jobs.onEnqueued(() => setTimeout(() => void this.tick(), 20));
    this.scheduler.addInterval('job-runner', timer);
    const lease = setInterval(() => void this.renewLeases(), Math.max(500, (this.config.jobLeaseSeconds * 1000) / 3));
    this.scheduler.addInterval('job-leases', lease);
    this.scheduler.addInterval(
      'job-cancel',
      setInterval(() => void this.checkCancelled(), CANCEL_CHECK_MS),
    );
    this.logger.log(`worker ${this.workerId} polling every ${this.config.jobPollMs} ms, ${this.config.workerCores} cores`);
  }

  /**
   * Shutdown (app.close(), on SIGTERM / SIGINT): claim nothing more, stop the running jobs and hand each back to the
   * queue without spending its attempt, so that the next worker (this one restarted, or another) takes it at once.
   * Before the application's shutdown hooks, while the database connections are certainly open.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /** Stops taking jobs, hands the running ones back, and returns once every one has ended here. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const r of this.running.values()) r.controller.abort(new ShuttingDown());
    // a tick under way may still be claiming a job: start() aborts any it starts from now on
    while (this.ticking) await new Promise((r) => setTimeout(r, 10));
    await this.drain();
    await dropSpareEngineProcess();
  }

  private freeCores(): number {
    let used = 0;
    for (const r of this.running.values()) used += r.cost;
    return this.config.workerCores - used;
  }

  /**
   * One scheduler tick: recover expired leases, then claim and start what fits. Tests call it directly. After a tick
   * failed (the database down), the next ones wait longer and longer (TickFailures), and the first to succeed renews
   * the leases of the jobs still running here before anything else.
   */
  async tick(): Promise<number> {
    if (this.stopped || this.tickFailures.waiting()) return 0;
    if (this.ticking) {
      // a job ended (or was enqueued) during this tick: look again once it is over
      this.tickAgain = true;
      return 0;
    }
    this.ticking = true;
    let started = 0;
    try {
      do {
        this.tickAgain = false;
        if (this.tickFailures.failing) await this.renewLeases();
        await this.recoverExpired();
        await this.failStranded();
        for (;;) {
          const free = this.freeCores();
          if (free <= 0) break;
          const job = await this.claim(free);
          if (!job) break;
          this.start(job);
          started++;
        }
      } while (this.tickAgain && !this.stopped);
      this.tickFailures.succeeded();
    } catch (e) {
      this.tickFailures.failed(e);
    } finally {
      this.ticking = false;
    }
    return started;
  }

  /** Called each time a run of a job ends in this runner, with how it ended (tests, metrics). */
  onJobEnded(listener: (e: JobEnded) => void): () => void {
    this.endedListeners.push(listener);
    return () => {
      const i = this.endedListeners.indexOf(listener);
      if (i >= 0) this.endedListeners.splice(i, 1);
    };
  }

  private emit(job: Job, outcome: JobOutcome, durationMs: number): void {
    for (const l of [...this.endedListeners]) l({ jobId: job.id, kind: job.kind.name, subjectId: job.subjectId, outcome, durationMs });
  }

  /** Jobs this runner is running now. */
  runningCount(): number {
    return this.running.size;
  }

  /** Waits for every job this runner has started to end (tests). */
  async drain(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  /**
   * Claims the next job that fits in `freeCores`, in a fair order: of the user with the fewest jobs running (on
   * every worker), among those of the user served least recently, then the oldest. One user's queue of hundreds of
   * jobs takes turns with everyone else's, never goes before them.
   *
   * A job at the head of that order that needs more cores than are free is passed by smaller jobs (they fill the
   * free cores) only until it has waited RESERVE_AFTER_SECONDS: then this worker claims nothing more, its running
   * jobs end and free their cores, and the head is taken. A stream of 1-core jobs cannot hold a 2-core analysis
   * back for ever. The head is the first job this worker could ever run (cost within its cores). Only kinds
   * registered in this process are claimed.
   */
  private async claim(freeCores: number): Promise<Job | undefined> {
    const row = await queries.claimJob(this.db, {
      workerId: this.workerId,
      leaseSeconds: this.config.jobLeaseSeconds,
      freeCores,
      workerCores: this.config.workerCores,
      reserveAfterSeconds: RESERVE_AFTER_SECONDS,
      kinds: this.jobs.kindNames(),
    });
    return row && this.jobOf(row);
  }

  /** A row of the jobs table as a Job of its registered kind. */
  private jobOf(row: queries.JobRow): Job {
    const registered = this.jobs.registration(row.kind);
    if (!registered) throw new Error(`job ${row.id} is of kind ${row.kind}, which is not registered here`);
    return {
      id: String(row.id),
      kind: registered.kind,
      handler: registered.handler,
      payload: row.payload,
      subjectId: registered.kind.subjectId(row.payload),
      cost: row.cost,
      attempts: row.attempts,
      maxAttempts: row.max_attempts,
    };
  }

  private start(job: Job): void {
    const controller = new AbortController();
    const began = performance.now();
    const done = this.execute(job, controller.signal)
      .catch((e: Error) => {
        this.logger.error(`${this.describe(job)} could not be settled: ${e.message}`); // the lease expiry retries it
        return 'retried' as const;
      })
      .then((outcome) => {
        this.running.delete(job.id);
        this.emit(job, outcome, performance.now() - began);
        // its cores are free: take the next job now rather than at the next poll (short jobs, such as
        // predictions, would otherwise run one per JOB_POLL_MS)
        if (this.config.runWorkers) void this.tick();
      });
    this.running.set(job.id, { controller, cost: job.cost, done });
    // claimed by a tick that was under way when the runner stopped: straight back to the queue
    if (this.stopped) controller.abort(new ShuttingDown());
  }

  /** "analysis 12 (job 40)": what the log lines name. */
  private describe(job: Job): string {
    return `${job.kind.subject.name} ${job.subjectId} (${job.kind.name} job ${job.id})`;
  }

  /**
   * The structured fields of a job's log lines, for operators: which job, its kind and attempt, and the ids of
   * its payload (analysisId, taskId, predictionId) that say what ran. `event` names what happened.
   */
  private fields(job: Job, event: string, more: Record<string, unknown> = {}): Record<string, unknown> {
    return { event, jobId: job.id, kind: job.kind.name, attempt: job.attempts, ...idsOf(job.payload), ...more };
  }

  /** A job's whole life in this runner: start, execute, store and finish, or retry, give up or stop. */
  private async execute(job: Job, signal: AbortSignal): Promise<JobOutcome> {
    const { kind, handler, subjectId } = job;
    const states = this.jobs.states;
    const progress = new ThrottledProgress((p) => states.progress(kind.subject, subjectId, p), PROGRESS_WRITE_MS);
    const began = Date.now();
    /** What execute gave, handed to the handler's release once stored or not. */
    let result: { value: unknown } | undefined;
    try {
      if (!(await states.start(kind.subject, subjectId))) {
        // the subject is settled (or gone with its job row): nothing to run
        return (await queries.markDone(this.db, job.id, this.workerId, false)) ? 'finished' : 'discarded';
      }
      this.logger.log(this.fields(job, 'job.started'), `${this.describe(job)} started, attempt ${job.attempts} of ${job.maxAttempts}`);
      // a handler that does not heed the abort (a bug) still frees its cores when its job is cancelled
      result = { value: await untilAborted(handler.execute(job.payload, signal, progress.report), signal) };
      progress.stop();
      signal.throwIfAborted();
      const executed = result.value;
      const stored = await this.db.transaction(async (tx) => {
        if (!(await states.lockRunning(tx, kind.subject, subjectId))) return false;
        const finished = (await handler.store(tx, job.payload, executed)) ?? {};
        await states.finish(tx, kind.subject, subjectId, finished);
        // another worker took the job over: its run stores the result, this one's is rolled back
        if (!(await queries.markDone(tx, job.id, this.workerId, true))) throw new Cancelled('the job was taken over');
        return true;
      });
      if (!stored) {
        this.logger.log(this.fields(job, 'job.discarded'), `${this.describe(job)} discarded: deleted before its result was stored`);
        return 'discarded';
      }
      this.logger.log(
        this.fields(job, 'job.finished', { durationMs: Date.now() - began }),
        `${this.describe(job)} finished in ${((Date.now() - began) / 1000).toFixed(1)} s`,
      );
      return 'finished';
    } catch (e) {
      progress.stop();
      return this.ended(job, signal, e);
    } finally {
      if (result) handler?.release?.(result.value);
    }
  }

  /** A job's run threw: hand it back (shutdown, its worker lost the database), drop it (cancelled), retry it or give up. */
  private async ended(job: Job, signal: AbortSignal, e: unknown): Promise<JobOutcome> {
    const reason = e instanceof Error ? e.message : String(e);
    if (signal.aborted && signal.reason instanceof ShuttingDown) return this.handBack(job, 'shutting down');
    // the database was lost under the job (not a fault of the job): back to the queue with its attempt, once it answers
    if (!signal.aborted && isDatabaseUnavailable(e)) return this.handBack(job, `its worker lost the database (${reason})`);
    if (signal.aborted) {
      // deleted subject: "analysis.cancelled" (or task / prediction); another worker took it over: "job.cancelled"
      const deleted = signal.reason instanceof Cancelled && signal.reason.subjectDeleted;
      const event = deleted ? `${job.kind.subject.name}.cancelled` : 'job.cancelled';
      this.logger.log(this.fields(job, event), `${this.describe(job)} cancelled: ${(signal.reason as Error).message}`);
      return 'cancelled';
    }
    if (e instanceof Cancelled) {
      this.logger.log(this.fields(job, 'job.discarded'), `${this.describe(job)} discarded: ${reason}`);
      return 'discarded';
    }
    if (!(e instanceof FinalJobError) && job.attempts < job.maxAttempts) {
      if (!(await queries.requeueForRetry(this.db, job.id, this.workerId, reason, 2 ** job.attempts))) {
        this.logger.log(this.fields(job, 'job.discarded'), `${this.describe(job)} discarded: its row is gone`);
        return 'discarded';
      }
      this.logger.warn(
        this.fields(job, 'job.retry', { reason }),
        `${this.describe(job)} attempt ${job.attempts} failed, will retry: ${reason}`,
      );
      return 'retried';
    }
    const error =
      e instanceof JobFailure
        ? { code: e.code, message: e.message }
        : { code: job.kind.failureCode, message: clientMessage({ id: job.id, subject: job.kind.subject.name }, e) };
    if (error.message !== reason)
      this.logger.error(this.fields(job, 'job.fault', { reason }), `${this.describe(job)} internal fault: ${reason}`);
    return (await this.giveUp(job, error, 'lease_owner = $3', [this.workerId])) ? 'failed' : 'discarded';
  }

  /**
   * Hands a job back to the queue at once, rather than leaving it to wait out its lease: queued again with the attempt
   * it was on given back (a clean stop, or the database lost under it, is no failure of the job), its subject waiting
   * as it did before it started (job-state.ts). A failed try (database busy or restarting) is logged and tried again
   * (a pooled connection the server ended fails its try and leaves the pool with it: pg-pool drops a connection that
   * errored, so the next try takes a sound one or opens one): on shutdown up to HAND_BACK_RETRY_MS; for a job that lost
   * the database until it answers (LOST_DATABASE_RETRY_MS) and, once the runner stops, HAND_BACK_RETRY_MS more. After
   * the last, the job is taken again when its lease expires, that attempt spent. `why` is the log's.
   */
  private async handBack(job: Job, why: string): Promise<JobOutcome> {
    const lost = why !== 'shutting down';
    let sinceStop = 0;
    for (let attempt = 0; ; attempt++) {
      try {
        const handed = await this.db.transaction(async (tx) => {
          const mine = await queries.handBackJob(tx, job.id, this.workerId);
          if (mine) await this.jobs.states.handBack(tx, job.kind, job.subjectId);
          return mine;
        });
        if (!handed) {
          // deleted meanwhile, or already taken by another worker (its lease had expired)
          this.logger.log(this.fields(job, 'job.discarded'), `${this.describe(job)} discarded on shutdown: no longer this worker's`);
          return 'discarded';
        }
        this.logger.log(this.fields(job, 'job.handedBack'), `${this.describe(job)} handed back to the queue: ${why}`);
        return 'handedBack';
      } catch (e) {
        const reason = e instanceof Error ? e.message : String(e);
        const wait =
          lost && !this.stopped
            ? LOST_DATABASE_RETRY_MS[Math.min(attempt, LOST_DATABASE_RETRY_MS.length - 1)]
            : HAND_BACK_RETRY_MS[sinceStop++];
        if (wait === undefined) {
          this.logger.error(
            this.fields(job, 'job.handBackFailed', { reason }),
            `${this.describe(job)} could not be handed back (${attempt + 1} tries, last: ${reason}): it is taken again when its lease expires, in at most ${this.config.jobLeaseSeconds} s`,
          );
          return 'retried';
        }
        this.logger.warn(
          this.fields(job, 'job.handBackRetry', { reason }),
          `${this.describe(job)} hand-back failed, trying again in ${wait} ms: ${reason}`,
        );
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  /**
   * The one give-up path: the job row and its subject fail together with the handler's clean-up, in one transaction.
   * `where` says when the job is still this caller's to fail (its lease holder, or an expired lease).
   */
  private async giveUp(job: Job, error: SubjectError, where: string, params: unknown[]): Promise<boolean> {
    const failed = await this.db.transaction(async (tx) => {
      const mine = await queries.failJob(tx, job.id, error.message, where, params);
      if (!mine) return false;
      await this.jobs.states.fail(job.kind.subject, job.subjectId, error, tx);
      await job.handler.onFailed?.(tx, job.payload);
      return true;
    });
    if (!failed) return false;
    this.logger.warn(
      this.fields(job, 'job.failed', { code: error.code, reason: error.message }),
      `${this.describe(job)} failed: ${error.code} ${error.message}`,
    );
    return true;
  }

  /**
   * Aborts the running jobs whose row is gone (their subject was deleted: the row went with it) or is no
   * longer this runner's. One query per second for all of this runner's jobs, none when it runs none.
   */
  async checkCancelled(): Promise<void> {
    if (!this.running.size) return;
    const ids = [...this.running.keys()];
    const mine = await queries.stillMine(this.db, ids, this.workerId).catch(() => undefined); // unreachable: look again next time
    if (!mine) return;
    for (const id of ids) {
      if (!mine.has(id)) this.running.get(id)?.controller.abort(new Cancelled('its subject was deleted', true));
      else if (!mine.get(id)) this.running.get(id)?.controller.abort(new Cancelled('job lease lost'));
    }
  }

  /** Extends the leases of running jobs; a job whose row is gone or taken is aborted (by checkCancelled). */
  async renewLeases(): Promise<void> {
    if (!this.running.size) return;
    const ids = [...this.running.keys()];
    // database unreachable: keep running, retry next time
    const kept = await queries.renewLeases(this.db, ids, this.workerId, this.config.jobLeaseSeconds).catch(() => new Set(ids));
    // a job not renewed lost its row (its subject was deleted) or its lease: checkCancelled tells which, and aborts it
    if (ids.some((id) => !kept.has(id))) await this.checkCancelled();
  }

  /**
   * Queued jobs that need more cores than this worker has (an analysis queued with coreCount 2 before a restart
   * with WORKER_CORES=1) and that no worker has taken for JOB_STRANDED_SECONDS: fail them with the reason, which
   * frees their user's cores. They waited for ever, shown running with a frozen progress.
   */
  async failStranded(): Promise<void> {
    const { workerCores, jobStrandedSeconds } = this.config;
    for (const r of await queries.strandedJobs(this.db, this.jobs.kindNames(), workerCores, jobStrandedSeconds)) {
      const job = this.jobOf(r);
      const message =
        `no worker can run it: it needs ${job.cost} cores and the workers have ${this.config.workerCores} (WORKER_CORES); ` +
        `it waited ${this.config.jobStrandedSeconds} s (JOB_STRANDED_SECONDS). Start it again with fewer cores`;
      await this.giveUp(job, { code: job.kind.failureCode, message }, `state = 'queued' AND cost > $3`, [workerCores]);
    }
  }

  /**
   * Jobs whose worker died: requeue them, or give up after their last attempt. Not this runner's own: they run here
   * (their lease lapsed while the database was down) or are being handed back.
   */
  async recoverExpired(): Promise<void> {
    const kinds = this.jobs.kindNames();
    for (const r of await queries.requeueExpired(this.db, kinds, this.workerId))
      this.logger.warn(`${this.describe(this.jobOf(r))} lost its worker; requeued`);
    for (const r of await queries.expiredOnLastAttempt(this.db, kinds, this.workerId)) {
      const job = this.jobOf(r);
      await this.giveUp(job, { code: job.kind.failureCode, message: LOST_WORKER }, `state = 'running' AND lease_expires_at < now()`, []);
    }
  }
}
