import { PassThrough } from 'node:stream';
import { BlobReader, extractBlobs, PipeClosedError, restoreBlobs, writeBlobs } from './blob-channel';

describe('blob channel (large typed arrays beside the IPC message)', () => {
  it('replaces the large typed arrays of a message by placeholders and restores them from the pipe, views included', async () => {
    const backing = new Float64Array(50_000).map((_, i) => i);
    const message = {
      columns: [
        { name: 'a', values: backing.subarray(10_000, 30_000), levels: ['x', 'y'] },
        { name: 'b', codes: new Int32Array(40_000).fill(-1), small: new Uint8Array([1, 2]) },
      ],
      seed: 7,
    };
    const { skeleton, blobs } = extractBlobs(message);
    expect(blobs).toHaveLength(2);
    // only a view's own bytes travel
    expect(JSON.stringify(skeleton)).toContain('"byteLength":160000');
    const pipe = new PassThrough({ highWaterMark: 1000 });
    const reader = new BlobReader(pipe);
    void writeBlobs(pipe, blobs);
    const { message: back, buffers } = await restoreBlobs(skeleton, blobs.length, reader);
    const cols = (back as { columns: [{ values: Float64Array; levels: string[] }, { codes: Int32Array; small: Uint8Array }] }).columns;
    expect(Array.from(cols[0].values.subarray(0, 3))).toEqual([10_000, 10_001, 10_002]);
    expect(cols[0].values.length).toBe(20_000);
    expect(cols[0].levels).toEqual(['x', 'y']);
    expect(cols[1].codes.every((c) => c === -1)).toBe(true);
    expect(Array.from(cols[1].small)).toEqual([1, 2]);
    // each restored array owns its buffer (movable to a thread)
    expect(buffers.map((b) => b.byteLength)).toEqual([160_000, 160_000]);
  });

  it('takes a Buffer (a file chunk, a view of a larger one) down the pipe too, and gives it back as a Buffer', async () => {
    const whole = Buffer.alloc(300_000);
    for (let i = 0; i < whole.length; i++) whole[i] = i % 251;
    const chunk = whole.subarray(1_000, 201_000);
    const { skeleton, blobs } = extractBlobs({ chunk });
    expect(blobs).toHaveLength(1);
    expect(JSON.stringify(skeleton)).toContain('"byteLength":200000');
    const pipe = new PassThrough({ highWaterMark: 1000 });
    const reader = new BlobReader(pipe);
    void writeBlobs(pipe, blobs);
    const { message } = await restoreBlobs(skeleton, 1, reader);
    const back = (message as { chunk: Buffer }).chunk;
    expect(Buffer.isBuffer(back)).toBe(true);
    expect(back.equals(chunk)).toBe(true);
  });

  it('a pipe that closes rejects the reads still waiting', async () => {
    const pipe = new PassThrough();
    const reader = new BlobReader(pipe);
    const read = reader.read(100_000);
    pipe.end(Buffer.alloc(10));
    pipe.resume();
    await expect(read).rejects.toBeInstanceOf(PipeClosedError);
  });
});
