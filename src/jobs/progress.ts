/**
 * Throttles progress reports to at most one write per `intervalMs`: a report inside the interval is held
 * and written when the interval ends (so the last value before a pause is not lost). A failed write is
 * ignored: progress is advisory (and stored with greatest(), so writes landing out of order do no harm).
 */
export class ThrottledProgress {
  private lastWrite = -Infinity;
  private held: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly write: (fraction: number) => Promise<void>,
    private readonly intervalMs: number,
  ) {}

  readonly report = (fraction: number): void => {
    if (this.stopped || !Number.isFinite(fraction)) return;
    const wait = this.lastWrite + this.intervalMs - Date.now();
    if (wait <= 0 && !this.timer) return this.flush(fraction);
    this.held = fraction;
    this.timer ??= setTimeout(
      () => {
        this.timer = undefined;
        if (this.held !== undefined) this.flush(this.held);
      },
      Math.max(0, wait),
    );
  };

  private flush(fraction: number): void {
    this.held = undefined;
    this.lastWrite = Date.now();
    void this.write(fraction).catch(() => undefined);
  }

  /** No more writes (the job ended). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
