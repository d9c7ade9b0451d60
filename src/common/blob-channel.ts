import type { Readable, Writable } from 'node:stream';

/**
 * Large typed arrays between the service and an engine process, beside the IPC channel: a message keeps
 * a small placeholder in their place, and their bytes go down a plain pipe. Serializing them into the IPC
 * message instead would copy them on the API's event loop (half a second for a 441 MB table) and send
 * them at a fraction of a pipe's speed. The receiving side copies each into a buffer of its own, which it
 * can then move to a worker thread without another copy, or (`stream`) hands its bytes on as they arrive.
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

/** Bytes a reader holds unread before it pauses its stream (a streamed blob's consumer may be slower than the pipe). */
const HELD_BYTES = 4 * 1048576;

/** Reads byte blocks of given sizes from a stream, in order, one block at a time. */
export class BlobReader {
  private spare: Buffer[] = [];
  private held = 0;
  private closed: Error | undefined;
  private wake: (() => void) | undefined;
  private readonly ended: Promise<void>;

  constructor(private readonly stream: Readable) {
    let ended!: () => void;
    this.ended = new Promise((resolve) => (ended = resolve));
    stream.on('data', (chunk: Buffer) => {
      this.spare.push(chunk);
      this.held += chunk.length;
      if (this.held >= HELD_BYTES) stream.pause();
      this.wakeUp();
    });
    const close = () => {
      this.closed ??= new PipeClosedError('the data pipe closed');
      ended();
      this.wakeUp();
    };
    stream.on('end', close);
    stream.on('close', close);
    stream.on('error', close);
  }

  /** Resolves once the pipe has closed. */
  whenClosed(): Promise<void> {
    return this.ended;
  }

  /** The next `byteLength` bytes, copied into an ArrayBuffer of their own. */
  async read(byteLength: number): Promise<ArrayBuffer> {
    const buffer = new Uint8Array(byteLength);
    let filled = 0;
    for await (const piece of this.pieces(byteLength)) {
      buffer.set(piece, filled);
      filled += piece.length;
    }
    return buffer.buffer;
  }

  /**
   * The next `byteLength` bytes as they arrive: views of the pipe's chunks, not copies. A block left half
   * read leaves the pipe out of step: the reader then fails every later read, and closes its stream.
   */
  async *pieces(byteLength: number): AsyncGenerator<Buffer> {
    let left = byteLength;
    try {
      while (left > 0) {
        while (!this.spare.length) {
          if (this.closed) throw this.closed;
          await new Promise<void>((resolve) => (this.wake = resolve));
        }
        const chunk = this.spare[0];
        const take = Math.min(chunk.length, left);
        if (take === chunk.length) this.spare.shift();
        else this.spare[0] = chunk.subarray(take);
        this.held -= take;
        left -= take;
        if (this.held < HELD_BYTES && this.stream.isPaused()) this.stream.resume();
        yield take === chunk.length ? chunk : chunk.subarray(0, take);
      }
    } finally {
      if (left > 0 && !this.closed) {
        this.closed = new PipeClosedError('a data block was left half read');
        this.stream.destroy();
      }
    }
  }

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/**
 * A large typed array of a message left in the pipe (EngineWorker's `streamBlobs`): its bytes are read as
 * they arrive, after those of the message's earlier blobs, by whoever consumes them (e.g. a COPY to
 * PostgreSQL), and never held whole here.
 */
export class PipedBytes {
  private taken = false;

  constructor(
    readonly byteLength: number,
    private readonly reader: BlobReader,
    /** Resolves once the blob before this one in the pipe is read. */
    private readonly after: Promise<void>,
    private readonly read: () => void,
  ) {}

  /** Its bytes, in pieces (views of the pipe's chunks): once, and after the blobs before it. */
  async *pieces(): AsyncGenerator<Buffer> {
    if (this.taken) throw new Error('piped bytes are read once');
    this.taken = true;
    await this.after;
    yield* this.reader.pieces(this.byteLength);
    this.read();
  }
}

/**
 * The message with its placeholders replaced by the arrays read from `reader` (in the order they were
 * written), and the buffers under them: owned by nobody else, so they can be moved to a thread. With
 * `stream`, each placeholder becomes a PipedBytes instead, and `drained` resolves once they are all read
 * (or the pipe closed): the reader's next message must wait for it.
 */
export async function restoreBlobs(
  skeleton: unknown,
  count: number,
  reader: BlobReader,
  stream = false,
): Promise<{ message: unknown; buffers: ArrayBuffer[]; drained: Promise<void> }> {
  if (count === 0) return { message: skeleton, buffers: [], drained: Promise.resolve() };
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
  const arrays: (ArrayBufferView | PipedBytes)[] = [];
  const buffers: ArrayBuffer[] = [];
  let previous: Promise<void> = Promise.resolve();
  for (const p of places) {
    if (stream) {
      let read!: () => void;
      const done = new Promise<void>((resolve) => (read = resolve));
      arrays.push(new PipedBytes(p.byteLength, reader, previous, read));
      previous = done;
      continue;
    }
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
  return { message: put(skeleton, 0), buffers, drained: Promise.race([previous, reader.whenClosed()]) };
}
