/**
 * An in-process counting semaphore: at most `limit` holders at once, the others wait in arrival order.
 * `tryAcquire` takes a permit only when one is free (for a caller that answers "busy" rather than wait).
 */
export class Semaphore {
  private held = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  get inUse(): number {
    return this.held;
  }

  get waitingCount(): number {
    return this.waiting.length;
  }

  tryAcquire(): (() => void) | undefined {
    if (this.held >= this.limit) return undefined;
    this.held++;
    return this.releaser();
  }

  async acquire(): Promise<() => void> {
    const now = this.tryAcquire();
    if (now) return now;
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    // the releaser handed its permit over: `held` is unchanged
    return this.releaser();
  }

  /** Runs `fn` holding a permit. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.held--;
    };
  }
}
