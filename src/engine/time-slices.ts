/**
 * Time slices for long loops on an analysis's own thread (BBC-CV's bootstraps, the tie rule, the plots' bands):
 * `next()` gives the event loop a turn once `sliceMs` have passed since the last turn, so the progress heartbeat and
 * the engine process's messages (abort, lease renewal) wait at most about one slice, whatever the data's size.
 */
export class TimeSlices {
  private last = performance.now();

  constructor(private readonly sliceMs = 20) {}

  /** Resolves at once inside a slice; after a turn of the event loop when the slice is spent. */
  async next(): Promise<void> {
    if (performance.now() - this.last < this.sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.last = performance.now();
  }
}
