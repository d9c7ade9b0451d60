import type { Writable } from 'node:stream';

/** Resolves when `stream` can take more writes, or is closed (destroyed by an error: no 'drain' comes then). */
export function drainedOrClosed(stream: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
    if (stream.destroyed) done();
  });
}
