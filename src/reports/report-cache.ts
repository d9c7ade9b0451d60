/**
 * Finished reports kept in memory, at most `maxBytes` of them, the least recently read dropped first: a finished
 * analysis's result never changes, so its page is drawn once per process and origin (until it is dropped), whoever
 * reads it. Pages larger than a quarter of the cache are not kept.
 */
export class ReportCache {
  private readonly pages = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): Buffer | undefined {
    const page = this.pages.get(key);
    if (page) {
      // the most recently read last
      this.pages.delete(key);
      this.pages.set(key, page);
    }
    return page;
  }

  set(key: string, page: Buffer): void {
    if (page.length > this.maxBytes / 4 || this.pages.has(key)) return;
    this.pages.set(key, page);
    this.bytes += page.length;
    for (const [k, v] of this.pages) {
      if (this.bytes <= this.maxBytes) break;
      this.pages.delete(k);
      this.bytes -= v.length;
    }
  }

  /** Bytes held (tests, diagnostics). */
  get size(): number {
    return this.bytes;
  }
}
