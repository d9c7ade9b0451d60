import type { Writable } from 'node:stream';

/**
 * Resolves when `stream` can take more writes, or is closed (destroyed by an error: no 'drain' comes then), or
 * `stop` is aborted (the writer has no more to write).
 */
export function drainedOrClosed(stream: Writable, stop?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      stop?.removeEventListener('abort', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
    stop?.addEventListener('abort', done);
    if (stream.destroyed || stop?.aborted) done();
  });
}
