import { parentPort, workerData } from 'node:worker_threads';
import { safePool } from '../database/pg-pool';
import { copyBytes } from '../database/copy-bytes';
import { IMAGE_FEATURES } from './image-features';
import { measureImage } from './image-decode';

/**
 * The feature thread of one imageDataset job: started once with MeasureSetup, it then answers each batch of
 * samples it is sent (MeasureRequest) with their features, or with the first sample that failed, in the order the
 * batches came. It reads each batch's images from the database itself, over a connection of its own (the service
 * relayed them before: 0.4 s of its CPU and of this process's for 500 images of 256 x 256, read, piped and copied
 * again). The service ends it (kills its engine process) when the job is done.
 */
export interface MeasureSetup {
  /** MAX_IMAGE_PIXELS */
  maxPixels: number;
  /** IMAGE_DECODE_TIMEOUT_SECONDS, in ms: an image whose measuring takes longer fails the batch (the service then kills this process) */
  decodeTimeoutMs: number;
  /**
   * Images decoded at once, whatever their batch: sharp decodes on libuv's threads (4) while this thread computes
   * features, so that 4 keep two cores busy; 1 takes one core (decode, then features, image after image).
   */
  decoding: number;
  /** Where the images are: the database, and the upload's task. */
  databaseUrl: string;
  taskId: string;
  /** The largest batch's bytes: each batch is read into a buffer of this size, filled again by a later batch. */
  batchBytes: number;
}
/** A batch: the samples `start` to `end` (excluded) of the sample table, `sizes[k]` bytes the image of the k-th. */
export interface MeasureRequest {
  start: number;
  end: number;
  sampleIds: string[];
  sizes: number[];
}
/**
 * `features`: the batch's features, image after image, IMAGE_FEATURES.length each. A failure names the sample whose
 * image could not be decoded, or (`read`) says why the images could not be read.
 */
export type MeasureResponse =
  | { ok: true; features: Float64Array }
  | { ok: false; sampleId: string; message: string }
  | { ok: false; read: 'changed' | 'failed'; message: string };

/**
 * The text of a binary COPY of the images of samples `start` to `end` (excluded), in order (copy-bytes.ts: raw bytes,
 * never hex text). The numbers are the caller's, checked here.
 */
export function imagesCopy(taskId: string, start: number, end: number): string {
  return `SELECT image FROM image_samples WHERE task_id = ${Number(taskId)} AND idx >= ${Number(start)} AND idx < ${Number(end)} ORDER BY idx`;
}

const { maxPixels, decodeTimeoutMs, decoding, databaseUrl, taskId, batchBytes } = workerData as MeasureSetup;
// a connection lost, idle or held between statements: the read that needs it fails (pg-pool.ts)
const pool = safePool({ connectionString: databaseUrl, max: 1 });
/** Batch buffers measured and done with, to fill again (a new 6 MB buffer costs 10-13 ms of page faults here). */
const spare: Buffer[] = [];
/** Images being decoded, and those waiting for a slot (a batch that arrives while one is measured waits). */
let inFlight = 0;
const queued: (() => void)[] = [];

async function decodeSlot(): Promise<void> {
  if (inFlight < decoding) {
    inFlight++;
    return;
  }
  await new Promise<void>((resolve) => queued.push(resolve));
}

function freeSlot(): void {
  const next = queued.shift();
  if (next) next();
  else inFlight--;
}

/** The batch's images, one after another, or why they could not be read. */
async function readBatch({ start, end, sizes }: MeasureRequest): Promise<Buffer | MeasureResponse> {
  const pieces: Buffer[] = [];
  try {
    for await (const piece of copyBytes(pool, imagesCopy(taskId, start, end), batchBytes, 1, spare)) pieces.push(piece);
  } catch (e) {
    return { ok: false, read: 'failed', message: (e as Error).message || String(e) };
  }
  const bytes = pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (bytes.length !== total) return { ok: false, read: 'changed', message: 'the stored images changed while they were read' };
  return bytes;
}

async function measureBatch(request: MeasureRequest): Promise<MeasureResponse> {
  const bytes = await readBatch(request);
  if (!Buffer.isBuffer(bytes)) return bytes;
  try {
    return await measureImages(request, bytes);
  } finally {
    // a batch of fewer bytes is a view of the start of such a buffer
    if (bytes.byteOffset === 0 && bytes.buffer.byteLength === batchBytes) spare.push(Buffer.from(bytes.buffer));
  }
}

async function measureImages({ sampleIds, sizes }: MeasureRequest, bytes: Buffer): Promise<MeasureResponse> {
  const width = IMAGE_FEATURES.length;
  const offsets: number[] = [];
  let at = 0;
  for (const size of sizes) {
    offsets.push(at);
    at += size;
  }
  const features = new Float64Array(sizes.length * width);
  // the first image (in the batch's order) that failed: after a failure, no further image starts
  const failures: { k: number; message: string }[] = [];
  let next = 0;
  const lane = async () => {
    while (!failures.length && next < sizes.length) {
      const k = next++;
      await decodeSlot();
      try {
        if (failures.length) continue;
        features.set(await withinTime(measureImage(bytes.subarray(offsets[k], offsets[k] + sizes[k]), maxPixels)), k * width);
      } catch (e) {
        failures.push({ k, message: (e as Error).message || String(e) });
      } finally {
        freeSlot();
      }
    }
  };
  await Promise.all(Array.from({ length: decoding }, lane));
  if (!failures.length) return { ok: true, features };
  const first = failures.reduce((a, b) => (b.k < a.k ? b : a));
  return { ok: false, sampleId: sampleIds[first.k], message: first.message };
}

/**
 * `measuring`, or a failure once it has taken decodeTimeoutMs: a native decode cannot be stopped from here, so the
 * failure ends the batch, and the service ends this process (and the decode with it).
 */
function withinTime<T>(measuring: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`it took longer than ${decodeTimeoutMs / 1000} s to decode (IMAGE_DECODE_TIMEOUT_SECONDS)`)),
      decodeTimeoutMs,
    );
  });
  return Promise.race([measuring, late]).finally(() => clearTimeout(timer));
}

/** The last answer sent: each batch's answer goes after the one before it. */
let answered: Promise<void> = Promise.resolve();
parentPort?.on('message', (request: MeasureRequest) => {
  const measured = measureBatch(request);
  answered = answered.then(() => measured).then((m) => parentPort?.postMessage(m));
});
