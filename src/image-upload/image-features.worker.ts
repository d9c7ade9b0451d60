import { parentPort, workerData } from 'node:worker_threads';
import { IMAGE_FEATURES } from './image-features';
import { measureImage } from './image-decode';

/**
 * The feature thread of one imageDataset job: started once with MeasureSetup, it then answers each batch of
 * images it is sent (MeasureRequest) with their features, or with the first sample that failed, in the order the
 * batches came. The service ends it (kills its engine process) when the job is done.
 */
export interface MeasureSetup {
  /** MAX_IMAGE_PIXELS */
  maxPixels: number;
  /**
   * Images decoded at once, whatever their batch: sharp decodes on libuv's threads (4) while this thread computes
   * features, so that 4 keep two cores busy; 1 takes one core (decode, then features, image after image).
   */
  decoding: number;
}
/** A batch: its images' bytes one after another (one block down the data pipe), `sizes[k]` bytes for sample k. */
export interface MeasureRequest {
  sampleIds: string[];
  sizes: number[];
  bytes: Uint8Array;
}
/** `features`: the batch's features, image after image, IMAGE_FEATURES.length each. */
export type MeasureResponse = { ok: true; features: Float64Array } | { ok: false; sampleId: string; message: string };

const { maxPixels, decoding } = workerData as MeasureSetup;
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

async function measureBatch({ sampleIds, sizes, bytes }: MeasureRequest): Promise<MeasureResponse> {
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
        features.set(await measureImage(bytes.subarray(offsets[k], offsets[k] + sizes[k]), maxPixels), k * width);
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

/** The last answer sent: each batch's answer goes after the one before it. */
let answered: Promise<void> = Promise.resolve();
parentPort?.on('message', (request: MeasureRequest) => {
  const measured = measureBatch(request);
  answered = answered.then(() => measured).then((m) => parentPort?.postMessage(m));
});
