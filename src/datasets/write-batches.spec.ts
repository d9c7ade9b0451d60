import { batchesOf, inLanes } from './write-batches';

describe('batchesOf', () => {
  it('puts up to 1,000 small columns in a batch (wide tables: few round trips)', () => {
    const batches = batchesOf(new Array<number>(2500).fill(800));
    expect(batches.map((b) => b.length)).toEqual([1000, 1000, 500]);
    expect(batches.flat()).toEqual(Array.from({ length: 2500 }, (_, i) => i));
    expect(batchesOf(new Array<number>(150).fill(800), 64).map((b) => b.length)).toEqual([64, 64, 22]);
  });

  it('closes a batch once it holds 16 MiB or more (long tables: bounded buffers)', () => {
    const MiB = 1048576;
    expect(batchesOf([6 * MiB, 6 * MiB, 6 * MiB, 6 * MiB, 40 * MiB, 1 * MiB])).toEqual([[0, 1, 2], [3, 4], [5]]);
    expect(batchesOf([40 * MiB, 1 * MiB])).toEqual([[0], [1]]);
    expect(batchesOf([])).toEqual([]);
  });
});

describe('inLanes', () => {
  it("runs at most `lanes` at a time and gives results in the items' order", async () => {
    let running = 0;
    let most = 0;
    const results = await inLanes([30, 5, 20, 1, 10, 2], 2, async (ms) => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, ms));
      running--;
      return ms * 2;
    });
    expect(results).toEqual([60, 10, 40, 2, 20, 4]);
    expect(most).toBe(2);
  });

  it('rejects with the first failure', async () => {
    await expect(
      inLanes([1, 2, 3], 2, async (x) => {
        if (x === 2) throw new Error('two');
        return x;
      }),
    ).rejects.toThrow('two');
  });
});
