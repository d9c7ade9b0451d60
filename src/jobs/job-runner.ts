import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/config';
import { JobsService } from './jobs.service';
import { FinalJobError } from './jobs.types';
import { JobKind } from './job-kinds';
import { returning } from '../database/sql';

interface JobRow {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
  cost: number;
  attempts: number;
  max_attempts: number;
}

interface Running {
  controller: AbortController;
  cost: number;
  done: Promise<void>;
}

/**
 * Runs jobs from the job table: claims with FOR UPDATE SKIP LOCKED under a lease, renews the lease while
 * a job runs, requeues or fails jobs whose worker died (lease expired). Several processes can run it
 * against one database; a job is never run by two at once while its lease holds.
 */
@Injectable()
export class JobRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  readonly workerId = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly running = new Map<string, Running>();
  private ticking = false;
  private stopped = false;

  constructor(
    private readonly db: DataSource,
    private readonly jobs: JobsService,
    private readonly scheduler: SchedulerRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const missing = this.jobs.missingHandlers();
    if (missing.length) throw new Error(`no handler registered for job kinds: ${missing.join(', ')}`);
    if (!this.config.runWorkers) return;
    const timer = setInterval(() => void this.tick(), this.config.jobPollMs);
    // a job enqueued here is usually committed a few ms later: look then rather than at the next poll
    this.jobs.onEnqueued(() => setTimeout(() => void this.tick(), 20));
    this.scheduler.addInterval('job-runner', timer);
    const lease = setInterval(() => void this.renewLeases(), Math.max(500, (this.config.jobLeaseSeconds * 1000) / 3));
    this.scheduler.addInterval('job-leases', lease);
    this.logger.log(`worker ${this.workerId} polling every ${this.config.jobPollMs} ms, ${this.config.workerCores} cores`);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    for (const r of this.running.values()) r.controller.abort(new Error('worker shutting down'));
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  private freeCores(): number {
    let used = 0;
    for (const r of this.running.values()) used += r.cost;
    return this.config.workerCores - used;
  }

  /** One scheduler tick: recover expired leases, then claim and start what fits. Tests call it directly. */
  async tick(): Promise<number> {
    if (this.ticking || this.stopped) return 0;
    this.ticking = true;
    let started = 0;
    try {
      await this.recoverExpired();
      for (;;) {
        const free = this.freeCores();
        if (free <= 0) break;
        const job = await this.claim(free);
        if (!job) break;
        this.start(job);
        started++;
      }
    } catch (e) {
      this.logger.error(`job tick failed: ${(e as Error).message}`);
    } finally {
      this.ticking = false;
    }
    return started;
  }

  /** Jobs this runner is running now. */
  runningCount(): number {
    return this.running.size;
  }

  /** Waits for every job this runner has started to end (tests). */
  async drain(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  private async claim(freeCores: number): Promise<JobRow | undefined> {
    const rows = await returning<JobRow>(this.db, 
      `UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = $1,
              lease_expires_at = now() + make_interval(secs => $2), updated_at = now()
        WHERE id = (SELECT id FROM jobs WHERE state = 'queued' AND run_after <= now() AND cost <= $3
                     ORDER BY run_after, id FOR UPDATE SKIP LOCKED LIMIT 1)
        RETURNING id, kind, payload, cost, attempts, max_attempts`,
      [this.workerId, this.config.jobLeaseSeconds, freeCores],
    );
    const r = rows[0];
    return r ? { ...r, id: String(r.id) } : undefined;
  }

  private start(job: JobRow): void {
    const controller = new AbortController();
    const done = this.execute(job, controller.signal).finally(() => this.running.delete(job.id));
    this.running.set(job.id, { controller, cost: job.cost, done });
  }

  private async execute(job: JobRow, signal: AbortSignal): Promise<void> {
    const handler = this.jobs.handler(job.kind);
    // Structured lines for operators: what ran (an analysis, a prediction, a dataset build), when it started,
    // how it ended and how long it took. The payload's ids (analysisId, taskId, ...) say which one.
    const subject = { event: '', jobId: job.id, kind: job.kind, attempt: job.attempts, ...idsOf(job.payload) };
    const t0 = Date.now();
    this.logger.log({ ...subject, event: 'job.started' }, `${job.kind} job ${job.id} started`);
    try {
      if (!handler) throw new FinalJobError(`no handler for job kind ${job.kind}`);
      await handler.run({
        jobId: job.id,
        kind: job.kind as JobKind,
        payload: job.payload,
        attempt: job.attempts,
        maxAttempts: job.max_attempts,
        signal,
      });
      await this.db.query(
        // lease_owner stays: it records which worker ran the job
        `UPDATE jobs SET state = 'done', lease_expires_at = NULL, updated_at = now()
          WHERE id = $1 AND lease_owner = $2`,
        [job.id, this.workerId],
      );
      this.logger.log({ ...subject, event: 'job.finished', durationMs: Date.now() - t0 }, `${job.kind} job ${job.id} finished`);
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      if (signal.aborted && this.stopped) {
        // Shutting down: hand the job back at once rather than waiting for the lease to expire.
        await this.db
          .query(
            `UPDATE jobs SET state = 'queued', attempts = greatest(attempts - 1, 0), lease_owner = NULL,
                    lease_expires_at = NULL, updated_at = now() WHERE id = $1 AND lease_owner = $2`,
            [job.id, this.workerId],
          )
          .catch(() => undefined);
        return;
      }
      if (signal.aborted) {
        // Lease lost: the job's subject was deleted (a cancelled analysis) or another worker took it over.
        this.logger.log({ ...subject, event: 'job.cancelled', durationMs: Date.now() - t0 }, `${job.kind} job ${job.id} cancelled`);
        return;
      }
      const final = e instanceof FinalJobError || job.attempts >= job.max_attempts;
      if (!final) {
        this.logger.warn({ ...subject, event: 'job.retry', reason }, `${job.kind} job ${job.id} attempt ${job.attempts} failed, will retry`);
        await this.db.query(
          `UPDATE jobs SET state = 'queued', error = $3, lease_owner = NULL, lease_expires_at = NULL,
                  run_after = now() + make_interval(secs => $4), updated_at = now()
            WHERE id = $1 AND lease_owner = $2`,
          [job.id, this.workerId, reason, 2 ** job.attempts],
        );
        return;
      }
      this.logger.warn({ ...subject, event: 'job.failed', reason, durationMs: Date.now() - t0 }, `${job.kind} job ${job.id} failed`);
      const rows = await returning(this.db, 
        `UPDATE jobs SET state = 'failed', error = $3, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
          WHERE id = $1 AND lease_owner = $2 RETURNING id`,
        [job.id, this.workerId, reason],
      );
      if (rows.length && handler) await handler.onGiveUp(job.payload, reason).catch(() => undefined);
    }
  }

  /** Extends the leases of running jobs; a job whose row is gone or taken is aborted here. */
  async renewLeases(): Promise<void> {
    if (!this.running.size) return;
    const ids = [...this.running.keys()];
    const rows = await returning<{ id: string }>(
      this.db,
        `UPDATE jobs SET lease_expires_at = now() + make_interval(secs => $3), updated_at = now()
          WHERE id = ANY($1::bigint[]) AND lease_owner = $2 AND state = 'running' RETURNING id`,
      [ids, this.workerId, this.config.jobLeaseSeconds],
    ).catch(() => ids.map((id) => ({ id }))); // database unreachable: keep running, retry next time
    const kept = new Set(rows.map((r) => String(r.id)));
    for (const id of ids) {
      if (!kept.has(id)) this.running.get(id)?.controller.abort(new Error('job lease lost'));
    }
  }

  /** Jobs whose worker died: requeue them, or give up after their last attempt. */
  async recoverExpired(): Promise<void> {
    const rows = await returning<JobRow>(this.db, 
      `UPDATE jobs SET state = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'queued' END,
              error = 'worker lost (lease expired)', lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
        WHERE id IN (SELECT id FROM jobs WHERE state = 'running' AND lease_expires_at < now()
                      FOR UPDATE SKIP LOCKED)
        RETURNING id, kind, payload, cost, attempts, max_attempts`,
    );
    for (const r of rows) {
      const givenUp = r.attempts >= r.max_attempts;
      this.logger.warn(`job ${r.id} (${r.kind}) lost its worker; ${givenUp ? 'failed' : 'requeued'}`);
      if (givenUp) {
        await this.jobs
          .handler(r.kind)
          ?.onGiveUp(r.payload, 'the worker running it stopped (lease expired) on its last attempt')
          .catch(() => undefined);
      }
    }
  }
}

/** The identifiers in a job's payload (`analysisId`, `taskId`, ...), for its log lines. */
function idsOf(payload: unknown): Record<string, string> {
  if (!payload || typeof payload !== 'object') return {};
  const ids: Record<string, string> = {};
  for (const [k, v] of Object.entries(payload)) {
    if (/Id$/.test(k) && (typeof v === 'string' || typeof v === 'number')) ids[k] = String(v);
  }
  return ids;
}
