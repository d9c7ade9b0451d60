import type { Readable, Writable } from 'node:stream';

/**
 * Large typed arrays between the service and an engine process, beside the IPC channel: a message keeps
 * a small placeholder in their place, and their bytes go down a plain pipe. Serializing them into the IPC
 * message instead would copy them on the API's event loop (half a second for a 441 MB table) and send
 * them at a fraction of a pipe's speed. The receiving side copies each into a buffer of its own, which it
 * can then move to a worker thread without another copy.
 */

/** Typed arrays smaller than this travel inside the message: a placeholder would cost more than it saves. */
const BLOB_MIN_BYTES = 64 * 1024;

const TYPES = {
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
} as const;
/** A Buffer's name here (its constructor's is not Buffer but an internal subclass of Uint8Array). */
type TypeName = keyof typeof TYPES | 'Buffer';

interface Placeholder {
  __engineBlob: number;
  type: TypeName;
  byteLength: number;
}

function isPlaceholder(v: object): v is Placeholder {
  return typeof (v as Placeholder).__engineBlob === 'number';
}

/** A plain object (of any realm: a test runner's, or the one that deserialized it). */
function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as object | null;
  return proto === null || Object.getPrototypeOf(proto) === null;
}

function typeName(v: ArrayBufferView): TypeName | undefined {
  // a Buffer too (a file's chunks): missed here, it went through the serialized IPC message, copied on
  // this event loop into a serializer buffer grown by doubling (garbage-collector pressure)
  if (Buffer.isBuffer(v)) return 'Buffer';
  const name = v.constructor.name;
  return name in TYPES ? (name as TypeName) : undefined;
}

/**
 * The message with its large typed arrays replaced by placeholders, and those arrays in order. Plain
 * objects and arrays are walked (a few levels: where datasets keep their columns); anything else is left.
 */
export function extractBlobs(message: unknown): { skeleton: unknown; blobs: ArrayBufferView[] } {
  const blobs: ArrayBufferView[] = [];
  const walk = (v: unknown, depth: number): unknown => {
    if (v === null || typeof v !== 'object' || depth > 8) return v;
    if (ArrayBuffer.isView(v)) {
      const type = typeName(v);
      if (!type || v.byteLength < BLOB_MIN_BYTES) return v;
      blobs.push(v);
      return { __engineBlob: blobs.length - 1, type, byteLength: v.byteLength } satisfies Placeholder;
    }
    if (Array.isArray(v)) {
      // arrays of numbers or strings (levels, names) hold no typed array: kept as they are, unwalked
      if (v.length === 0 || typeof v[0] !== 'object') return v;
      return v.map((x) => walk(x, depth + 1));
    }
    if (!isPlain(v)) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = walk(x, depth + 1);
    return out;
  };
  return { skeleton: walk(message, 0), blobs };
}

/** Writes the bytes of `blobs` to `out` (no copy: the pipe writes from the arrays themselves). */
export function writeBlobs(out: Writable, blobs: ArrayBufferView[]): Promise<void> {
  let last: Promise<void> = Promise.resolve();
  for (const b of blobs) {
    const bytes = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    last = new Promise((resolve) => out.write(bytes, () => resolve()));
  }
  return last;
}

/** The other side's pipe closed (it ended, or was killed): its exit says why. */
export class PipeClosedError extends Error {}

/** Reads byte blocks of given sizes from a stream, in order; each into an ArrayBuffer of its own. */
export class BlobReader {
  private queue: { buffer: Uint8Array; filled: number; resolve: (b: ArrayBuffer) => void; reject: (e: Error) => void }[] = [];
  private spare: Buffer[] = [];
  private closed: Error | undefined;

  constructor(stream: Readable) {
    stream.on('data', (chunk: Buffer) => {
      this.spare.push(chunk);
      this.fill();
    });
    const close = () => {
      this.closed ??= new PipeClosedError('the data pipe closed');
      for (const q of this.queue.splice(0)) q.reject(this.closed);
    };
    stream.on('end', close);
    stream.on('close', close);
    stream.on('error', close);
  }

  read(byteLength: number): Promise<ArrayBuffer> {
    if (this.closed) return Promise.reject(this.closed);
    return new Promise((resolve, reject) => {
      this.queue.push({ buffer: new Uint8Array(byteLength), filled: 0, resolve, reject });
      this.fill();
    });
  }

  private fill(): void {
    while (this.queue.length && this.spare.length) {
      const q = this.queue[0];
      const chunk = this.spare[0];
      const take = Math.min(chunk.length, q.buffer.length - q.filled);
      q.buffer.set(chunk.subarray(0, take), q.filled);
      q.filled += take;
      if (take === chunk.length) this.spare.shift();
      else this.spare[0] = chunk.subarray(take);
      if (q.filled === q.buffer.length) {
        this.queue.shift();
        q.resolve(q.buffer.buffer as ArrayBuffer);
      }
    }
    // a zero-length read finishes at once
    while (this.queue.length && this.queue[0].buffer.length === 0) this.queue.shift()!.resolve(new ArrayBuffer(0));
  }
}

/**
 * The message with its placeholders replaced by the arrays read from `reader` (in the order they were
 * written), and the buffers under them: owned by nobody else, so they can be moved to a thread.
 */
export async function restoreBlobs(
  skeleton: unknown,
  count: number,
  reader: BlobReader,
): Promise<{ message: unknown; buffers: ArrayBuffer[] }> {
  if (count === 0) return { message: skeleton, buffers: [] };
  const places: Placeholder[] = [];
  const find = (v: unknown, depth: number): void => {
    if (v === null || typeof v !== 'object' || depth > 8 || ArrayBuffer.isView(v)) return;
    if (isPlaceholder(v)) places[v.__engineBlob] = v;
    else if (Array.isArray(v)) {
      if (v.length > 0 && typeof v[0] === 'object') for (const x of v) find(x, depth + 1);
    } else if (isPlain(v)) for (const x of Object.values(v)) find(x, depth + 1);
  };
  find(skeleton, 0);
  if (places.length !== count) throw new Error(`the message holds ${places.length} data blocks, ${count} were announced`);
  const arrays: ArrayBufferView[] = [];
  const buffers: ArrayBuffer[] = [];
  for (const p of places) {
    const buffer = await reader.read(p.byteLength);
    buffers.push(buffer);
    arrays.push(p.type === 'Buffer' ? Buffer.from(buffer) : new TYPES[p.type](buffer));
  }
  const put = (v: unknown, depth: number): unknown => {
    if (v === null || typeof v !== 'object' || depth > 8 || ArrayBuffer.isView(v)) return v;
    if (isPlaceholder(v)) return arrays[v.__engineBlob];
    if (Array.isArray(v)) return v.length > 0 && typeof v[0] === 'object' ? v.map((x) => put(x, depth + 1)) : v;
    if (!isPlain(v)) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = put(x, depth + 1);
    return out;
  };
  return { message: put(skeleton, 0), buffers };
}
