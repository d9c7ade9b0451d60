import { threadId } from 'node:worker_threads';
import { OUT_OF_MEMORY, ThreadPool, wholeBuffer } from './thread-pool';

/**
 * A thread speaking the pool's protocol (thread-task.ts) by hand: it answers with its thread id and the bytes it was
 * sent (moved back), waits when asked, throws when asked, and grows its heap without bound when asked.
 */
const SCRIPT = new URL(
  'data:text/javascript,' +
    encodeURIComponent(`
      import { parentPort, threadId } from 'node:worker_threads';
      parentPort.on('message', async ({ id, data }) => {
        if (data.wait) await new Promise((r) => setTimeout(r, data.wait));
        if (data.fail) return parentPort.postMessage({ id, ok: false, message: data.fail });
        if (data.hog) { const all = []; for (;;) all.push(new Array(1e6).fill(all.length)); }
        const bytes = data.bytes;
        parentPort.postMessage({ id, ok: true, value: { threadId, bytes, sum: bytes ? bytes.reduce((a, b) => a + b, 0) : 0 } }, bytes ? [bytes.buffer] : []);
      });`),
);

interface Answer {
  threadId: number;
  bytes?: Uint8Array;
  sum: number;
}

describe('ThreadPool', () => {
  let pool: ThreadPool;
  afterEach(async () => {
    await pool.close();
  });

  it('runs each task on a thread of its own, not this one, at most `size` at once, the others in turn', async () => {
    pool = new ThreadPool(SCRIPT, 2);
    const started = performance.now();
    const answers = await Promise.all([1, 2, 3, 4].map(() => pool.run<Answer>({ wait: 200 })));
    const threads = new Set(answers.map((a) => a.threadId));
    expect(threads.has(threadId)).toBe(false);
    expect(threads.size).toBe(2);
    // four tasks of 200 ms on two threads: two rounds
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
    expect(pool.load).toBe(0);
  });

  it('moves a whole buffer there and back, and copies a view of a larger one', async () => {
    pool = new ThreadPool(SCRIPT, 1);
    const whole = Buffer.alloc(64 * 1024, 1);
    const moved = wholeBuffer(whole)!;
    const answer = await pool.run<Answer>({ bytes: whole }, [moved]);
    expect(whole.byteLength).toBe(0); // moved: detached here
    expect({ length: answer.bytes!.byteLength, sum: answer.sum }).toEqual({ length: 64 * 1024, sum: 64 * 1024 });

    const larger = Buffer.alloc(100, 2);
    const view = larger.subarray(10, 20);
    expect(wholeBuffer(view)).toBeUndefined();
    expect((await pool.run<Answer>({ bytes: view })).sum).toBe(20);
    expect(larger.byteLength).toBe(100); // copied: the neighbours stay
  });

  it('rejects with what a task threw, and a thread that runs out of memory is replaced', async () => {
    pool = new ThreadPool(SCRIPT, 1, 32);
    await expect(pool.run({ fail: 'no good' })).rejects.toThrow('no good');
    await expect(pool.run({ hog: true })).rejects.toThrow(OUT_OF_MEMORY);
    expect((await pool.run<Answer>({})).sum).toBe(0);
  });
});
