import { parentPort, workerData } from 'node:worker_threads';
import { createInflateRaw, InflateRaw } from 'node:zlib';
import type { FeatureType } from '../engine/types';
import type { PackedInput, PackedOutput, PackedSetup } from './packed-stream';

/** The most level text a column's labels may have here (a JavaScript string holds at most about 512 MB). */
export const MAX_LEVEL_TEXT = 256 * 2 ** 20;

/** A column as received: its values ('f64') or codes ('dict'), and its levels unless their text is over MAX_LEVEL_TEXT. */
export interface ReceivedColumn {
  name: string;
  type: FeatureType;
  encoding: 'f64' | 'dict';
  values?: Float64Array;
  codes?: Int32Array;
  levels?: string[];
  /** bytes of its levels' JSON text (0 for 'f64') */
  levelBytes: number;
}

/**
 * The thread's side of streamToEngine (packed-stream.ts): each column inflates into its own array of exactly
 * sampleCount values as its pieces come, its levels gather; at the end `compute` gets the columns and the
 * settings, and its answer (or fault) goes back.
 */
export function receivePacked<S, R>(compute: (sampleCount: number, columns: ReceivedColumn[], settings: S) => R | Promise<R>): void {
  const port = parentPort!;
  const setup = workerData as PackedSetup<S>;
  const targets = setup.columns.map((c) => {
    const memory = new ArrayBuffer(setup.sampleCount * (c.encoding === 'f64' ? 8 : 4));
    const bytes = new Uint8Array(memory);
    let at = 0;
    let overflow = false;
    const inflate: InflateRaw = createInflateRaw();
    inflate.on('data', (d: Buffer) => {
      if (at + d.length > bytes.length) overflow = true;
      else bytes.set(d, at);
      at += d.length;
    });
    const done = new Promise<void>((resolve, reject) => {
      inflate.once('end', () =>
        overflow || at !== bytes.length
          ? reject(new Error(`the stored column "${c.name}" does not hold ${setup.sampleCount} values`))
          : resolve(),
      );
      inflate.once('error', reject);
    });
    done.catch(() => undefined); // raised where it is awaited
    const levels: Buffer[] = [];
    return { memory, inflate, done, levels, levelBytes: 0 };
  });
  const finish = (out: PackedOutput<R>): void => {
    port.postMessage(out);
    port.close();
  };
  const taken = (): void => port.postMessage({ taken: true } satisfies PackedOutput<R>);
  async function end(): Promise<R> {
    for (const t of targets) t.inflate.end();
    await Promise.all(targets.map((t) => t.done));
    const columns = setup.columns.map((c, k): ReceivedColumn => {
      const t = targets[k];
      return {
        name: c.name,
        type: c.type,
        encoding: c.encoding,
        values: c.encoding === 'f64' ? new Float64Array(t.memory) : undefined,
        codes: c.encoding === 'dict' ? new Int32Array(t.memory) : undefined,
        levels: c.encoding === 'dict' && t.levelBytes <= MAX_LEVEL_TEXT ? levelsOf(c.name, t.levels) : undefined,
        levelBytes: t.levelBytes,
      };
    });
    return compute(setup.sampleCount, columns, setup.settings);
  }
  port.on('message', (m: PackedInput) => {
    if ('end' in m) {
      void end().then(
        (result) => finish({ ok: true, result }),
        (e: Error) => finish({ ok: false, message: e.message || String(e) }),
      );
      return;
    }
    const t = targets[m.column];
    const piece = Buffer.from(m.piece.buffer, m.piece.byteOffset, m.piece.byteLength);
    if (m.part === 'levels') {
      // past the limit the pieces are only counted: the column reports its labels as too many
      t.levelBytes += piece.length;
      if (t.levelBytes <= MAX_LEVEL_TEXT) t.levels.push(piece);
      taken();
      return;
    }
    t.inflate.write(piece, taken);
  });
}

/** A coded column's level labels from the pieces of their JSON text. */
function levelsOf(name: string, pieces: Buffer[]): string[] {
  const levels: unknown = JSON.parse(Buffer.concat(pieces).toString('utf8'));
  if (!Array.isArray(levels)) throw new Error(`the stored column "${name}" has no levels`);
  return levels as string[];
}
