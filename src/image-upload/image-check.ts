import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { OUT_OF_MEMORY, ThreadPool, wholeBuffer } from '../common/thread-pool';
import { workerScript } from '../common/worker-thread';
import type { ImageCheck, ImageHeader } from './image-format';

export interface ImageCheckRequest {
  bytes: Uint8Array;
  maxPixels: number;
  /** the bytes were moved to the thread (not copied): it sends them back */
  returnBytes: boolean;
}

export interface ImageCheckResponse {
  check: ImageCheck;
  bytes?: Uint8Array;
}

/** Threads that check images at add: two checks run at once in an API process, the others wait their turn. */
const CHECK_THREADS = 2;
/** A check's heap (a PNG's inflated pieces, a JPEG's walk): the bytes themselves are outside it. */
const CHECK_HEAP_MB = 256;

const SCRIPT = workerScript(__dirname, __filename, 'image-check.worker');
let pool: ThreadPool | undefined;

/**
 * Checks the image `bytes` of an add off the event loop (image-check.worker.ts: checkImageBytes on a pooled thread)
 * and answers its header, with its bytes (moved to the thread and back when they own their memory, else copied
 * there); a refused image throws its ApiError, naming `name`.
 */
export async function checkImage(bytes: Buffer, name: string, maxPixels: number): Promise<{ header: ImageHeader; bytes: Buffer }> {
  pool ??= new ThreadPool(SCRIPT, CHECK_THREADS, CHECK_HEAP_MB);
  const whole = wholeBuffer(bytes);
  const request: ImageCheckRequest = { bytes, maxPixels, returnBytes: whole !== undefined };
  let answer: ImageCheckResponse;
  try {
    answer = await pool.run<ImageCheckResponse>(request, whole ? [whole] : []);
  } catch (e) {
    // the image took the check past its heap: it is no image to decode here
    if (e instanceof Error && e.message === OUT_OF_MEMORY) throw new ApiError(Codes.BadImage, `"${name.slice(0, 60)}": ${OUT_OF_MEMORY}`);
    throw e;
  }
  const back = answer.bytes ? Buffer.from(answer.bytes.buffer, answer.bytes.byteOffset, answer.bytes.byteLength) : bytes;
  if (!answer.check.ok) throw new ApiError(answer.check.code, `"${name.slice(0, 60)}": ${answer.check.problem}`);
  return { header: answer.check.header, bytes: back };
}
