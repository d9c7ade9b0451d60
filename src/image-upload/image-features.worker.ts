import { parentPort, workerData } from 'node:worker_threads';
import { IMAGE_FEATURES } from './image-features';
import { measureImage } from './image-decode';

/**
 * The feature thread of one imageDataset job: started once with MeasureSetup, it then answers each batch of
 * images it is sent (MeasureRequest) with their features, or with the first sample that failed. The service
 * ends it (kills its engine process) when the job is done.
 */
export interface MeasureSetup {
  /** MAX_IMAGE_PIXELS */
  maxPixels: number;
}
export interface MeasureRequest {
  images: { sampleId: string; bytes: Uint8Array }[];
}
/** `features`: the batch's features, image after image, IMAGE_FEATURES.length each. */
export type MeasureResponse = { ok: true; features: Float64Array } | { ok: false; sampleId: string; message: string };

/** Images decoded at once: sharp decodes on libuv's threads while this thread computes features. */
const DECODING = 4;

async function measureBatch({ images }: MeasureRequest, maxPixels: number): Promise<MeasureResponse> {
  const width = IMAGE_FEATURES.length;
  const features = new Float64Array(images.length * width);
  // the first image (in the batch's order) that failed: after a failure, no further image starts
  const failures: { k: number; message: string }[] = [];
  let next = 0;
  const lane = async () => {
    while (!failures.length && next < images.length) {
      const k = next++;
      try {
        features.set(await measureImage(images[k].bytes, maxPixels), k * width);
      } catch (e) {
        failures.push({ k, message: (e as Error).message || String(e) });
      }
    }
  };
  await Promise.all(Array.from({ length: DECODING }, lane));
  if (!failures.length) return { ok: true, features };
  const first = failures.reduce((a, b) => (b.k < a.k ? b : a));
  return { ok: false, sampleId: images[first.k].sampleId, message: first.message };
}

const { maxPixels } = workerData as MeasureSetup;
parentPort?.on('message', (request: MeasureRequest) => {
  void measureBatch(request, maxPixels).then((m) => parentPort?.postMessage(m));
});
