import { Worker } from 'node:worker_threads';

/** A feed of an exported model: a column of numbers (NaN where missing) or of texts ('' where missing). */
export type OnnxColumn = (number | string)[];

/**
 * onnxruntime-node (a dev dependency) on a worker thread, as a user would run an exported file: outside Jest's sandbox,
 * whose typed arrays are not the runtime's. Each input is a rows x 1 tensor; the outputs come back as plain arrays.
 */
const RUNNER = `
const { parentPort, workerData } = require('node:worker_threads');
const { InferenceSession, Tensor } = require('onnxruntime-node');
(async () => {
  const session = await InferenceSession.create(workerData.bytes);
  const feeds = {};
  for (const [name, values] of Object.entries(workerData.feeds))
    feeds[name] = typeof values[0] === 'string' ? new Tensor('string', values, [values.length, 1]) : new Tensor('float64', Float64Array.from(values), [values.length, 1]);
  const out = await session.run(feeds);
  parentPort.postMessage(Object.fromEntries(Object.entries(out).map(([k, t]) => [k, Array.from(t.data)])));
})().catch((e) => parentPort.postMessage({ error: String(e && e.message) }));
`;

/** Runs an ONNX file on columns by input name; resolves with each output's values (row-major) by name. */
export async function runOnnx(bytes: Uint8Array, feeds: Record<string, OnnxColumn>): Promise<Record<string, OnnxColumn>> {
  const worker = new Worker(RUNNER, { eval: true, workerData: { bytes, feeds } });
  try {
    const out = await new Promise<Record<string, OnnxColumn> & { error?: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    if (out.error) throw new Error(out.error);
    return out;
  } finally {
    await worker.terminate();
  }
}

/** The largest absolute difference of two equally long arrays (NaN only against NaN; otherwise Infinity). */
export function maxDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    if (Number.isNaN(a[i]) || Number.isNaN(b[i])) {
      if (Number.isNaN(a[i]) !== Number.isNaN(b[i])) return Infinity;
      continue;
    }
    m = Math.max(m, Math.abs(a[i] - b[i]));
  }
  return m;
}
