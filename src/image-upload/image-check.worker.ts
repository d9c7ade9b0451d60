import { serveTasks } from '../common/thread-task';
import { checkImageBytes } from './image-format';
import type { ImageCheckRequest, ImageCheckResponse } from './image-check';

/**
 * The structural check of an image at add (checkImageBytes: its header, its pixel limit, a PNG's chunks and inflated
 * data, a JPEG's segments and scans, a BMP's run-length data), on a pooled thread of the API process: its cost grows
 * with the bytes sent (a PNG of 4.4 million chunks held the event loop 4.5-6.3 s). The image's bytes come back with
 * the answer when they were moved here.
 */
serveTasks<ImageCheckResponse>(async (data) => {
  const { bytes, maxPixels, returnBytes } = data as ImageCheckRequest;
  const check = await checkImageBytes(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), maxPixels);
  return returnBytes ? { value: { check, bytes }, transfer: [bytes.buffer as ArrayBuffer] } : { value: { check } };
});
