import { Injectable, OnModuleDestroy } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * Whether the database answers, for readiness. Once readiness has been asked, a check (`SELECT 1` on the pool the
 * requests use) runs every CHECK_INTERVAL_MS; readiness answers from a successful check that started under
 * FRESH_MS ago, and otherwise checks there and then. So a probe does not wait behind the pool's queue when the API
 * is busy (it waits only for the event loop, which is what it should measure), and probes add no load of their own.
 * A failed check, or a pooled connection the server ended, makes the next answer a check of its own: readiness
 * turns to "unreachable" as soon as the database is gone, and back to "ok" as soon as it answers again.
 */
@Injectable()
export class DatabaseHealth implements OnModuleDestroy {
  static readonly CHECK_INTERVAL_MS = 1000;
  static readonly FRESH_MS = 1500;

  /** when the last successful check started (performance.now()); undefined after a failure or a lost connection */
  private okSince?: number;
  /** when a connection was last lost: a check that started before it proves nothing after it */
  private lostAt = -Infinity;
  private inFlight?: Promise<boolean>;
  private timer?: NodeJS.Timeout;
  private readonly forget = () => {
    this.okSince = undefined;
    this.lostAt = performance.now();
  };

  constructor(private readonly db: DataSource) {}

  /** Whether the database answers: from a check under FRESH_MS old that succeeded, or from a check now. */
  async ready(): Promise<boolean> {
    this.startChecking();
    if (this.okSince !== undefined && performance.now() - this.okSince < DatabaseHealth.FRESH_MS) return true;
    return this.check();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
    this.pool()?.off('error', this.forget);
  }

  /** Periodic checks start with the first readiness question: a worker process (never asked) makes none. */
  private startChecking(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.check(), DatabaseHealth.CHECK_INTERVAL_MS).unref();
    // pg-pool emits 'error' when the server ends an idle connection (restart, dropped database, admin kill)
    this.pool()?.on('error', this.forget);
  }

  private check(): Promise<boolean> {
    if (this.inFlight) return this.inFlight;
    const started = performance.now();
    const check = this.db.query('SELECT 1').then(
      () => true,
      () => false,
    );
    this.inFlight = check.then((ok) => {
      this.okSince = ok && started > this.lostAt ? started : undefined;
      this.inFlight = undefined;
      return ok;
    });
    return this.inFlight;
  }

  private pool(): Pool | undefined {
    return this.db.isInitialized ? ((this.db.driver as PostgresDriver).master as Pool) : undefined;
  }
}
