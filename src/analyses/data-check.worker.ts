import { parentPort, workerData } from 'node:worker_threads';
import { createInflateRaw, InflateRaw } from 'node:zlib';
import { toEngineColumn } from '../datasets/column-codec';
import type { PackedColumn } from '../datasets/column-store';
import { validateAnalysisInput } from '../engine/data';
import type { AnalysisParameters, EngineColumn } from '../engine/types';

/** What the thread is started with: the stored columns it is sent, the others by type only, the parameters. */
export interface DataCheckSetup {
  sampleCount: number;
  columns: PackedColumn[];
  typesOnly: EngineColumn[];
  parameters: AnalysisParameters;
}
/** From the main thread: the deflated pieces of the columns in order, then the end. */
export type DataCheckInput = { column: number; piece: Uint8Array } | { end: true };
/** To the main thread: one `taken` per piece inflated (flow control), then the problems or a fault. */
export type DataCheckOutput = { taken: true } | { ok: true; problems: string[] } | { ok: false; message: string };

const port = parentPort!;
const setup = workerData as DataCheckSetup;

/** Each column inflates into its own array of exactly sampleCount values, written as the pieces come. */
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
  return { memory, inflate, done };
});

function finish(out: DataCheckOutput): void {
  port.postMessage(out);
  port.close();
}

port.on('message', (m: DataCheckInput) => {
  if ('end' in m) {
    void check().then(finish, (e: Error) => finish({ ok: false, message: e.message || String(e) }));
    return;
  }
  targets[m.column].inflate.write(Buffer.from(m.piece.buffer, m.piece.byteOffset, m.piece.byteLength), () =>
    port.postMessage({ taken: true } satisfies DataCheckOutput),
  );
});

async function check(): Promise<DataCheckOutput> {
  for (const t of targets) t.inflate.end();
  await Promise.all(targets.map((t) => t.done));
  const columns = setup.columns.map((c, k) =>
    toEngineColumn({
      name: c.name,
      type: c.type,
      encoding: c.encoding,
      values: c.encoding === 'f64' ? new Float64Array(targets[k].memory) : undefined,
      codes: c.encoding === 'dict' ? new Int32Array(targets[k].memory) : undefined,
      levels: c.levels ?? undefined,
    }),
  );
  const problems = validateAnalysisInput({ sampleCount: setup.sampleCount, columns: [...columns, ...setup.typesOnly] }, setup.parameters);
  return { ok: true, problems };
}
