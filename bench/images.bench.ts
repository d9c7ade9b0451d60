/**
 * Image datasets end to end (issue 26: at least 200 images added and 200 featurised per second for 256 x 256).
 *   npm run bench:images -- [--images 500] [--size 256] [--concurrency 4]
 * Makes `images` photograph-like colour images (bench/synthetic-images.ts; half PNG, half JPEG), then:
 * 1. featurises them in this process, one after another and four at a time (decode + features, no database);
 * 2. starts the real service (its own embedded PostgreSQL, 127.0.0.1 only), opens an image upload, adds every
 *    image through the API with `concurrency` requests in flight (MAX_UPLOADS_PER_USER is 4 by default),
 *    commits, and waits for the dataset: images added per second, and images featurised per second from the
 *    commit to the finished dataset (engine process, database reads and the dataset's write included).
 */
import * as os from 'node:os';
import { Rng } from '../src/engine/rng';
import { IMAGE_FEATURES } from '../src/image-upload/image-features';
import { measureImage } from '../src/image-upload/image-decode';
import { call, startServer } from './server';
import { encodedImage, IMAGE_CLASSES } from './synthetic-images';

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};

const cpuSeconds = (from: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(from);
  return (u.user + u.system) / 1e6;
};

async function inParallel<T>(items: T[], lanes: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i], i);
      }
    }),
  );
}

async function main(): Promise<void> {
  const n = arg('images', 500);
  const size = arg('size', 256);
  const concurrency = arg('concurrency', 4);
  const rng = new Rng(26);
  const images: { id: string; label: string; bytes: Buffer; name: string }[] = [];
  for (let i = 0; i < n; i++) {
    const label = IMAGE_CLASSES[i % IMAGE_CLASSES.length];
    const format = Math.floor(i / IMAGE_CLASSES.length) % 2 ? 'jpeg' : 'png';
    images.push({
      id: `s${i + 1}`,
      label,
      bytes: await encodedImage(label, size, rng, format),
      name: `s${i + 1}.${format === 'png' ? 'png' : 'jpg'}`,
    });
  }
  const mb = images.reduce((s, im) => s + im.bytes.length, 0) / 1048576;
  console.log(`${n} images of ${size} x ${size} (half PNG, half JPEG), ${mb.toFixed(1)} MB, ${IMAGE_FEATURES.length} features each`);
  // the machine's load: on a shared machine every rate below is a fraction of what it would be alone
  const load = () => `load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`;
  console.log(load());

  // 1. decode + features in this process
  for (const lanes of [1, 4]) {
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    await inParallel(images, lanes, async (im) => void (await measureImage(im.bytes, 50_000_000)));
    const s = (performance.now() - t0) / 1000;
    console.log(
      `featurised in this process, ${lanes} at a time: ${(n / s).toFixed(0)} images/s (${s.toFixed(2)} s wall, ${cpuSeconds(cpu).toFixed(2)} s CPU)`,
    );
  }

  // 2. through the API
  const server = await startServer({ MAX_UPLOADS_PER_USER: String(Math.max(4, concurrency)) });
  try {
    const { projectId } = await call<{ projectId: string }>(server, 'POST', '/createProject', { name: 'images-bench' });
    const csv = 'id,label\n' + images.map((im) => `${im.id},${im.label}`).join('\n') + '\n';
    const form = new FormData();
    form.append('attributes', JSON.stringify({ projectId: Number(projectId), name: 'bench-images' }));
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'labels.csv');
    const init = await fetch(`${server.base}/image/initUpload`, { method: 'POST', headers: { authorization: server.auth }, body: form });
    const { payload } = (await init.json()) as { payload: { taskId: string } };
    const { taskId } = payload;

    const cpuAdd = process.cpuUsage();
    const t0 = performance.now();
    await inParallel(images, concurrency, async (im) => {
      const body = new FormData();
      body.append('sampleId', im.id);
      body.append('file', new Blob([im.bytes]), im.name);
      const res = await fetch(`${server.base}/image/${taskId}/add`, { method: 'POST', headers: { authorization: server.auth }, body });
      const json = (await res.json()) as { status: string; code?: string; message?: string };
      if (json.status !== 'success') throw new Error(`add ${im.id}: ${json.code} ${json.message}`);
    });
    const addSeconds = (performance.now() - t0) / 1000;
    console.log(
      `added through the API, ${concurrency} requests in flight: ${(n / addSeconds).toFixed(0)} images/s ` +
        `(${addSeconds.toFixed(2)} s wall; service and client share this process: ${cpuSeconds(cpuAdd).toFixed(2)} s CPU)`,
    );

    const t1 = performance.now();
    await call(server, 'GET', `/image/${taskId}/commit`);
    let status: { state: string; datasetId?: string; error?: unknown };
    do {
      await new Promise((r) => setTimeout(r, 50));
      status = await call(server, 'GET', `/image/${taskId}/status`);
    } while (status.state === 'running' || status.state === 'pending');
    const buildSeconds = (performance.now() - t1) / 1000;
    if (status.state !== 'finished') throw new Error(`the task ended ${JSON.stringify(status)}`);
    const ds = await call<{ sampleCount: number; featureCount: number }>(server, 'GET', `/dataset/${status.datasetId}`);
    console.log(
      `featurised from commit to dataset: ${(n / buildSeconds).toFixed(0)} images/s (${buildSeconds.toFixed(2)} s wall; ` +
        `dataset ${ds.sampleCount} samples x ${ds.featureCount} features)`,
    );
    console.log(load());
  } finally {
    await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (e: Error) => {
    console.error(e);
    process.exit(1);
  },
);
