import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/config';
import { JobKind, JOB_KINDS } from './job-kinds';
import { JobHandler } from './jobs.types';

export interface EnqueueOptions {
  /** The project the job works for: deleting the project deletes the job. */
  projectId?: string;
  /** Cores the job occupies (default 1). */
  cost?: number;
  maxAttempts?: number;
  /** Enqueue inside the caller's transaction, so the job exists if and only if the caller's rows do. */
  manager?: EntityManager;
}

/** Enqueues jobs and keeps the registry of handlers by kind. */
@Injectable()
export class JobsService {
  private readonly handlers = new Map<JobKind, JobHandler<any>>();
  private readonly listeners: (() => void)[] = [];

  /** Called after a job is enqueued by this process (the local runner starts it without waiting for its poll). */
  onEnqueued(listener: () => void): void {
    this.listeners.push(listener);
  }

  constructor(
    private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  register<P>(kind: JobKind, handler: JobHandler<P>): void {
    if (this.handlers.has(kind)) throw new Error(`job kind ${kind} has two handlers`);
    this.handlers.set(kind, handler as JobHandler<any>);
  }

  handler(kind: string): JobHandler<any> | undefined {
    return this.handlers.get(kind as JobKind);
  }

  /** Kinds that have no handler; start-up fails on any. */
  missingHandlers(): JobKind[] {
    return JOB_KINDS.filter((k) => !this.handlers.has(k));
  }

  async enqueue(kind: JobKind, payload: Record<string, unknown>, options: EnqueueOptions = {}): Promise<string> {
    const manager = options.manager ?? this.db.manager;
    const rows: { id: string }[] = await manager.query(
      `INSERT INTO jobs (kind, project_id, payload, cost, max_attempts) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [
        kind,
        options.projectId ?? null,
        JSON.stringify(payload),
        Math.max(1, Math.min(options.cost ?? 1, this.config.workerCores)),
        options.maxAttempts ?? this.config.jobMaxAttempts,
      ],
    );
    const id = String(rows[0].id);
    // Inside a transaction the job is visible only after commit: the poll finds it then at the latest.
    setImmediate(() => this.listeners.forEach((l) => l()));
    return id;
  }
}
