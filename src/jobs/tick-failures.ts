import type { Logger } from '@nestjs/common';
import { isDatabaseUnavailable } from '../common/database-errors';

/** The longest wait between two ticks of a runner whose ticks fail. */
export const MAX_TICK_BACKOFF_MS = 10_000;
/** While the ticks keep failing, one line says so at most this often. */
const REPEAT_LOG_MS = 60_000;

/**
 * The runner's view of its ticks failing (the database down or restarting, mostly): each failed tick doubles the wait
 * before the next one, from JOB_POLL_MS to MAX_TICK_BACKOFF_MS, and the operator reads one line when it starts (a
 * warning when the database cannot be reached, an error otherwise), one a minute while it lasts and one when it ends,
 * rather than an error line twice a second.
 */
export class TickFailures {
  private count = 0;
  private since = 0;
  private nextTick = 0;
  private lastLog = 0;

  constructor(
    private readonly logger: Logger,
    private readonly pollMs: number,
  ) {}

  /** Whether ticks are failing now. */
  get failing(): boolean {
    return this.count > 0;
  }

  /** Whether the next tick should wait (a tick that failed asks for a pause). */
  waiting(): boolean {
    return this.count > 0 && Date.now() < this.nextTick;
  }

  failed(e: unknown): void {
    const now = Date.now();
    if (this.count === 0) this.since = now;
    this.count++;
    this.nextTick = now + Math.min(MAX_TICK_BACKOFF_MS, this.pollMs * 2 ** this.count);
    if (this.count > 1 && now - this.lastLog < REPEAT_LOG_MS) return;
    this.lastLog = now;
    const reason = e instanceof Error ? e.message : String(e);
    const lasting = this.count > 1 ? ` (failing for ${Math.round((now - this.since) / 1000)} s)` : '';
    if (isDatabaseUnavailable(e)) {
      this.logger.warn(
        `the database cannot be reached${lasting}: workers wait, trying again every ${MAX_TICK_BACKOFF_MS / 1000} s at most: ${reason}`,
      );
    } else {
      this.logger.error(`job tick failed${lasting}: ${reason}`);
    }
  }

  succeeded(): void {
    if (this.count === 0) return;
    const seconds = Math.round((Date.now() - this.since) / 1000);
    this.logger.log(`job ticks succeed again after ${seconds} s (${this.count} failed): workers resume`);
    this.count = 0;
  }
}
