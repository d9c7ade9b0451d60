import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/config';
import { JobKind, JobPayloads, JOB_DEFINITIONS, JOB_KINDS, SubjectKind } from './job-kinds';
import { SubjectStates } from './job-state';
import { JobHandler } from './jobs.types';

export interface EnqueueOptions {
  /** The project the job works for: deleting the project deletes the job. */
  projectId?: string;
  /** Cores the job occupies (default 1). */
  cost?: number;
  maxAttempts?: number;
  /** Enqueue inside the caller's transaction, so the job exists if and only if the caller's rows do. */
  manager?: EntityManager;
  /** Show the subject as running from now on (an image task: pending means "still taking images"). */
  running?: boolean;
}

/** The jobs table's column that links a job to its subject (foreign key, ON DELETE CASCADE). */
const SUBJECT_COLUMN: Record<SubjectKind, string> = { task: 'task_id', analysis: 'analysis_id', prediction: 'prediction_id' };
/** The subject's table: the job is for its user. */
const SUBJECT_TABLE: Record<SubjectKind, string> = { task: 'tasks', analysis: 'analyses', prediction: 'predictions' };

/** Handlers by kind, one per kind; the union over kinds that the runner dispatches on. */
type AnyHandler = { [K in JobKind]: JobHandler<K> }[JobKind];

/** Enqueues jobs and keeps the registry of handlers by kind. */
@Injectable()
export class JobsService {
  private readonly handlers = new Map<JobKind, AnyHandler>();
  private readonly listeners: (() => void)[] = [];
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

  async enqueue<K extends JobKind>(kind: K, payload: JobPayloads[K], options: EnqueueOptions = {}): Promise<string> {
    const manager = options.manager ?? this.db.manager;
    const definition = JOB_DEFINITIONS[kind];
    const subjectId = definition.subjectId(payload);
    if (options.running && !(await this.states.start(definition.subject, subjectId, manager))) {
      throw new Error(`${definition.subject} ${subjectId} cannot run (gone or settled)`);
    }
    const rows: { id: string }[] = await manager.query(
      `INSERT INTO jobs (kind, project_id, ${SUBJECT_COLUMN[definition.subject]}, payload, cost, max_attempts, user_id)
       VALUES ($1, $2, $3, $4, $5, $6, (SELECT user_id FROM ${SUBJECT_TABLE[definition.subject]} WHERE id = $3)) RETURNING id`,
      [
        kind,
        options.projectId ?? null,
        subjectId,
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
