/** Column indexes in write batches: up to 1,000 columns (9,000 parameters, far below PostgreSQL's 65,535) or about 16 MiB of data each, in order. */
export function batchesOf(sizes: number[], maxColumns = 1000, maxBytes = 16 * 1048576): number[][] {
  const batches: number[][] = [];
  let bytes = 0;
  sizes.forEach((size, i) => {
    const last = batches[batches.length - 1];
    if (!last || last.length >= maxColumns || bytes >= maxBytes) {
      batches.push([i]);
      bytes = size;
    } else {
      last.push(i);
      bytes += size;
    }
  });
  return batches;
}

/** `work` on every item, at most `lanes` at a time; results in the items' order. */
export async function inLanes<T, R>(items: T[], lanes: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const k = next++;
      results[k] = await work(items[k]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
  return results;
}
