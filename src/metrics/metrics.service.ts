import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/config';
import { engineFailures } from '../common/engine-process';
import { embeddedServerState } from '../database/embedded-postgres';
import { poolOf, rows } from '../database/sql';
import { DatabaseHealth } from '../health/database-health';
import { JobRunner } from '../jobs/job-runner';
import { JobsService } from '../jobs/jobs.service';

/** Seconds: from a status read (a few ms) to a request held by a slow upload (minutes). */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120];
/** Seconds: from a prediction (under a second) to an extensive analysis (hours). */
const JOB_BUCKETS = [0.5, 1, 5, 15, 60, 300, 900, 1800, 3600, 7200, 21600];

/**
 * Prometheus metrics of one process (API or worker), on a registry of its own (several applications in one test
 * process do not mix). Labels are the route's pattern, HTTP status, the job's kind and outcome: never an id, a name
 * or anything a user sent. Gauges that describe the shared queue (jobs by kind and state) are read from the database
 * at each scrape, so every process reports the same queue and any one of them can be scraped for scaling.
 */
@Injectable()
export class Metrics implements OnModuleInit, OnModuleDestroy {
  readonly registry = new Registry();
  private readonly httpDuration = new Histogram({
    name: 'signet_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status, from arrival to the last byte sent',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  private readonly jobDuration = new Histogram({
    name: 'signet_job_duration_seconds',
    help: "Runs of jobs in this process's workers, from their claim to their end, by kind and outcome",
    labelNames: ['kind', 'outcome'] as const,
    buckets: JOB_BUCKETS,
    registers: [this.registry],
  });
  private stopListening?: () => void;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly db: DataSource,
    private readonly jobs: JobsService,
    private readonly runner: JobRunner,
    private readonly health: DatabaseHealth,
  ) {
    collectDefaultMetrics({ register: this.registry });
    this.queueGauges();
    this.processGauges();
  }

  onModuleInit(): void {
    this.stopListening = this.runner.onJobEnded((e) => this.jobDuration.observe({ kind: e.kind, outcome: e.outcome }, e.durationMs / 1000));
  }

  onModuleDestroy(): void {
    this.stopListening?.();
  }

  /** One HTTP request answered: `route` is its pattern ('/api/public/v1/analysis/:analysisId/status'), or 'unmatched'. */
  observeRequest(method: string, route: string, status: number | 'aborted', seconds: number): void {
    this.httpDuration.observe({ method, route, status: String(status) }, seconds);
  }

  /** The text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Jobs queued and running by kind, and the age of the oldest queued one: read from the jobs table at each scrape. */
  private queueGauges(): void {
    const { jobs } = this;
    // one query answers both gauges: prom-client calls each collect, the second reuses the first's rows
    let pending: Promise<QueueRow[]> | undefined;
    const queue = () => (pending ??= this.readQueue().finally(() => setImmediate(() => (pending = undefined))));
    new Gauge({
      name: 'signet_jobs',
      help: 'Jobs in the queue (every worker on this database), by kind and state (queued: waiting to run; running)',
      labelNames: ['kind', 'state'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const kind of jobs.kindNames()) for (const state of ['queued', 'running']) this.set({ kind, state }, 0);
        for (const r of await queue()) this.set({ kind: r.kind, state: r.state }, Number(r.n));
      },
    });
    new Gauge({
      name: 'signet_jobs_oldest_queued_seconds',
      help: 'How long the oldest queued job of each kind has waited to run (0: none waiting)',
      labelNames: ['kind'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const kind of jobs.kindNames()) this.set({ kind }, 0);
        for (const r of await queue()) if (r.state === 'queued') this.set({ kind: r.kind }, Number(r.waited));
      },
    });
  }

  private async readQueue(): Promise<QueueRow[]> {
    // database down: the gauges keep their zeros and signet_database_up says why
    return rows<QueueRow>(
      this.db,
      `SELECT kind, state, count(*) AS n, GREATEST(0, EXTRACT(EPOCH FROM now() - min(run_after))) AS waited
         FROM jobs WHERE state IN ('queued', 'running') GROUP BY kind, state`,
    ).catch(() => []);
  }

  /** This process's workers, engine processes, connection pool, database and embedded server. */
  private processGauges(): void {
    const { config, runner, db, health } = this;
    const registers = [this.registry];
    new Gauge({
      name: 'signet_worker_cores',
      help: 'Cores the job workers of this process use (WORKER_CORES; 0 when it runs none)',
      registers,
      collect() {
        this.set(config.runWorkers ? config.workerCores : 0);
      },
    });
    new Gauge({
      name: 'signet_worker_jobs_running',
      help: 'Jobs running in the workers of this process',
      registers,
      collect() {
        this.set(runner.runningCount());
      },
    });
    new Counter({
      name: 'signet_engine_process_failures_total',
      help: 'Engine processes (analyses, predictions, dataset builds) that ended without being asked, by reason',
      labelNames: ['reason'] as const,
      registers,
      collect() {
        this.reset();
        for (const [reason, n] of Object.entries(engineFailures())) this.inc({ reason }, n);
      },
    });
    const pool = new Gauge({
      name: 'signet_db_pool_connections',
      help: "This process's PostgreSQL connections by state (idle, busy), and the queries waiting for one (waiting)",
      labelNames: ['state'] as const,
      registers,
      collect() {
        const p = db.isInitialized ? poolOf(db) : undefined;
        pool.set({ state: 'idle' }, p?.idleCount ?? 0);
        pool.set({ state: 'busy' }, p ? p.totalCount - p.idleCount : 0);
        pool.set({ state: 'waiting' }, p?.waitingCount ?? 0);
      },
    });
    new Gauge({
      name: 'signet_db_pool_size',
      help: 'Connections the pool may open (DB_POOL_SIZE)',
      registers,
      collect() {
        this.set(config.dbPoolSize);
      },
    });
    new Gauge({
      name: 'signet_database_up',
      help: 'Whether the database answers (1) or not (0), as readiness sees it',
      registers,
      async collect() {
        this.set((await health.ready()) ? 1 : 0);
      },
    });
    new Gauge({
      name: 'signet_embedded_postgres_state',
      help: 'The embedded PostgreSQL of this process (absent with DATABASE_URL): 1 for its current state',
      labelNames: ['state'] as const,
      registers,
      collect() {
        this.reset();
        const now = embeddedServerState()?.state;
        if (!now) return;
        for (const state of ['running', 'stopped', 'restarting']) this.set({ state }, state === now ? 1 : 0);
      },
    });
    new Counter({
      name: 'signet_embedded_postgres_restarts_total',
      help: 'Times this process started its embedded PostgreSQL again after it exited unasked (0 with DATABASE_URL)',
      registers,
      collect() {
        this.reset();
        const server = embeddedServerState();
        if (server) this.inc(server.restarts);
      },
    });
  }
}

interface QueueRow {
  kind: string;
  state: string;
  n: string;
  waited: string;
}
