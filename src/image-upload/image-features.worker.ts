import { parentPort, workerData } from 'node:worker_threads';
import { measureImage } from './image-features';

/** Input of the worker: a batch of images; output: their features, or the first sample that failed. */
export interface MeasureRequest {
  images: { sampleId: string; bytes: Uint8Array }[];
  /** MAX_IMAGE_PIXELS */
  maxPixels: number;
}
export type MeasureResponse = { ok: true; features: number[][] } | { ok: false; sampleId: string; message: string };

async function main(): Promise<MeasureResponse> {
  const { images, maxPixels } = workerData as MeasureRequest;
  const features: number[][] = [];
  for (const image of images) {
    try {
      features.push(await measureImage(image.bytes, maxPixels));
    } catch (e) {
      return { ok: false, sampleId: image.sampleId, message: (e as Error).message || String(e) };
    }
  }
  return { ok: true, features };
}

void main().then((m) => parentPort?.postMessage(m));
