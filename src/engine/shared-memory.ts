/** A Float64Array on shared memory: worker threads write into it and the calling thread reads it, with no copy. */
export function sharedFloat64(length: number): Float64Array {
  return new Float64Array(new SharedArrayBuffer(8 * length));
}
