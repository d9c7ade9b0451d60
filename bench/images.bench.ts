/**
 * Image datasets end to end (issue 26: at least 200 images added and 200 featurised per second for 256 x 256).
 *   npm run bench:images -- [--images 500] [--size 256] [--concurrency 4] [--warmup 1000] [--own-process]
 * Makes `images` photograph-like colour images (bench/synthetic-images.ts; half PNG, half JPEG), then:
 * 1. featurises them in this process, one after another and four at a time (decode + features, no database);
 * 2. starts the real service (its own embedded PostgreSQL, 127.0.0.1 only), opens an image upload, adds every
 *    image through the API with `concurrency` requests in flight (MAX_UPLOADS_PER_USER is 4 by default),
 *    commits, and waits for the dataset (after `warmup` images added to other uploads first, untimed: the first adds
 *    of a fresh process run unoptimised code while V8 compiles it): images added per second (with the CPU time of
 *    this process, which is the service and the client, and of PostgreSQL), and images featurised per second from the
 *    commit to the finished dataset (engine process, database reads and the dataset's write included).
 *    The warm-up is 1,000 adds: V8 optimises a function called once per request only after hundreds of calls (its
 *    optimising compiler still compiled 217 functions during the 1,000 adds after a warm-up of 200, 135 after one of
 *    1,000), and after 200 the timed adds cost the service 3.8-4.6 ms of CPU each, after 1,000 2.9-3.4 ms (2026-11-27,
 *    five alternating runs of each: 181-214 against 222-257 added per second).
 * `--own-process` runs the service as `npm start` does, in a process of its own (as its clients, other programs, see
 * it), and gives the CPU time of the service process and of this one (the client) apart.
 * The client posts each add's multipart body, built in memory, with node:http over kept-alive connections, as a
 * script or curl would: fetch with FormData and Blob parts spent as much CPU as the service, on the same two cores.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import { SPARE_ARG } from '../src/common/engine-process';
import { Rng } from '../src/engine/rng';
import { IMAGE_FEATURES } from '../src/image-upload/image-features';
import { measureImage } from '../src/image-upload/image-decode';
import { BenchService, call, startServer, startService } from './server';
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

/** A multipart/form-data body of `fields` and one file part named `file`. */
function multipart(fields: Record<string, string>, file: { name: string; bytes: Buffer }): { body: Buffer; type: string } {
  const boundary = `----bench${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\n` +
        `Content-Type: application/octet-stream\r\n\r\n`,
    ),
  );
  parts.push(file.bytes, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

/** POSTs `body` to `url` on a kept-alive connection of `agent`; the parsed JSON answer. */
function post(agent: http.Agent, url: string, auth: string, body: { body: Buffer; type: string }): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { authorization: auth, 'content-type': body.type, 'content-length': body.body.length } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body.body);
  });
}

/** CPU seconds of process `pid` itself and of its children that have ended (the engine processes of a job, once it is done; Linux /proc). */
function processCpuSeconds(pid: number | 'self'): { own: number; endedChildren: number } {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime; cutime, cstime in USER_HZ
    return { own: (Number(f[11]) + Number(f[12])) / 100, endedChildren: (Number(f[13]) + Number(f[14])) / 100 };
  } catch {
    return { own: 0, endedChildren: 0 };
  }
}

function endedChildrenCpuSeconds(pid: number | 'self'): number {
  return processCpuSeconds(pid).endedChildren;
}

/**
 * Waits (up to 5 s) until process `parent` has no child left but PostgreSQL's and the spare engine process it keeps
 * ready for its next job (engine-process.ts; its CPU counts once it ends, at the service's stop): an engine process's CPU time counts
 * in its parent's once it has ended and been reaped, and a killed one that runs under SCHED_IDLE on a busy machine
 * can outlive its job by a moment (a build's engine CPU once read 0.00 s).
 */
async function engineProcessesEnded(parent: number): Promise<void> {
  const engines = () => {
    let dirs: string[];
    try {
      dirs = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
    } catch {
      return 0; // not Linux
    }
    return dirs.filter((d) => {
      try {
        const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const spare = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').includes(SPARE_ARG);
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent && name !== 'postgres' && !spare;
      } catch {
        return false; // ended meanwhile
      }
    }).length;
  };
  for (const end = Date.now() + 5000; engines() > 0 && Date.now() < end;) await new Promise((r) => setTimeout(r, 20));
}

/** CPU seconds of the PostgreSQL server that process `parent` started and of its backends (Linux /proc; 0 elsewhere). */
function postgresCpuSeconds(parent: number): number {
  const ticks = 100; // USER_HZ on Linux
  const procs: { pid: number; ppid: number; name: string; cpu: number; reaped: number }[] = [];
  let dirs: string[];
  try {
    dirs = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return 0;
  }
  for (const d of dirs) {
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      procs.push({
        pid: Number(d),
        ppid: Number(f[1]),
        name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
        cpu: (Number(f[11]) + Number(f[12])) / ticks,
        reaped: (Number(f[13]) + Number(f[14])) / ticks,
      });
    } catch {
      // ended meanwhile
    }
  }
  const servers = new Set(procs.filter((p) => p.name === 'postgres' && p.ppid === parent).map((p) => p.pid));
  // a server's own time, that of its live processes, and that of those which ended (reaped by the server)
  return procs
    .filter((p) => servers.has(p.pid) || servers.has(p.ppid))
    .reduce((sum, p) => sum + p.cpu + (servers.has(p.pid) ? p.reaped : 0), 0);
}

async function main(): Promise<void> {
  const n = arg('images', 500);
  const size = arg('size', 256);
  const concurrency = arg('concurrency', 4);
  const warmup = arg('warmup', 1000);
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
  const ownProcess = process.argv.includes('--own-process');
  const settings = { MAX_UPLOADS_PER_USER: String(Math.max(4, concurrency)) };
  const server = ownProcess ? await startService(settings) : await startServer(settings);
  // the process that runs the service (and is the parent of its PostgreSQL and engine processes)
  const servicePid = ownProcess ? (server as BenchService).pid : process.pid;
  const serviceCpu = (): number => (ownProcess ? processCpuSeconds(servicePid).own : 0);
  const where = ownProcess ? 'the service process' : 'this process, service and client';
  try {
    const { projectId } = await call<{ projectId: string }>(server, 'POST', '/createProject', { name: 'images-bench' });
    const openUpload = async (name: string): Promise<string> => {
      const csv = 'id,label\n' + images.map((im) => `${im.id},${im.label}`).join('\n') + '\n';
      const form = new FormData();
      form.append('attributes', JSON.stringify({ projectId: Number(projectId), name }));
      form.append('file', new Blob([csv], { type: 'text/csv' }), 'labels.csv');
      const init = await fetch(`${server.base}/image/initUpload`, { method: 'POST', headers: { authorization: server.auth }, body: form });
      const { payload } = (await init.json()) as { payload: { taskId: string } };
      return payload.taskId;
    };
    const addAll = async (taskId: string, bodies: { body: Buffer; type: string }[]): Promise<void> => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
      await inParallel(bodies, concurrency, async (body, i) => {
        const json = await post(agent, `${server.base}/image/${taskId}/add`, server.auth, body);
        if (json.status !== 'success') throw new Error(`add ${images[i].id}: ${String(json.code)} ${String(json.message)}`);
      });
      agent.destroy();
    };
    const bodies = images.map((im) => multipart({ sampleId: im.id }, { name: im.name, bytes: im.bytes }));
    if (warmup > 0) {
      // a running service has compiled its code and sized its heap: the first adds of a fresh one cost it twice the
      // CPU (V8's optimising compiler and heap growth on its helper threads), which is not what an add costs; the
      // warm-up uploads stay pending (their images count in the shared buffers, as a running service's data would)
      const warmupCpu = serviceCpu();
      const t = performance.now();
      // uploads of at most `images` each (their sample tables are the bench's images)
      for (let done = 0, k = 1; done < warmup; k++) {
        const count = Math.min(n, warmup - done);
        await addAll(await openUpload(`bench-warm-up-${k}`), bodies.slice(0, count));
        done += count;
      }
      const s = (performance.now() - t) / 1000;
      console.log(
        `warm-up: ${warmup} images added to other uploads first, ${(warmup / s).toFixed(0)} images/s` +
          (ownProcess ? ` (${(((serviceCpu() - warmupCpu) * 1000) / warmup).toFixed(1)} ms CPU per image in the service process)` : ''),
      );
    }
    const taskId = await openUpload('bench-images');
    const cpuAdd = process.cpuUsage();
    const serviceAdd = serviceCpu();
    const pgAdd = postgresCpuSeconds(servicePid);
    const t0 = performance.now();
    await addAll(taskId, bodies);
    const addSeconds = (performance.now() - t0) / 1000;
    console.log(
      `added through the API, ${concurrency} requests in flight: ${(n / addSeconds).toFixed(0)} images/s ` +
        `(${addSeconds.toFixed(2)} s wall; CPU per image: ` +
        (ownProcess
          ? `${(((serviceCpu() - serviceAdd) * 1000) / n).toFixed(1)} ms in the service process, ${((cpuSeconds(cpuAdd) * 1000) / n).toFixed(1)} ms in the client, `
          : `${((cpuSeconds(cpuAdd) * 1000) / n).toFixed(1)} ms in this process, service and client, `) +
        `${(((postgresCpuSeconds(servicePid) - pgAdd) * 1000) / n).toFixed(1)} ms in PostgreSQL)`,
    );

    const cpuBuild = process.cpuUsage();
    const serviceBuild = serviceCpu();
    const pgBuild = postgresCpuSeconds(servicePid);
    const engineBuild = endedChildrenCpuSeconds(ownProcess ? servicePid : 'self');
    const t1 = performance.now();
    await call(server, 'GET', `/image/${taskId}/commit`);
    let status: { state: string; datasetId?: string; error?: unknown };
    do {
      await new Promise((r) => setTimeout(r, 50));
      status = await call(server, 'GET', `/image/${taskId}/status`);
    } while (status.state === 'running' || status.state === 'pending');
    const buildSeconds = (performance.now() - t1) / 1000;
    await engineProcessesEnded(servicePid);
    const buildCpu = [
      ownProcess ? serviceCpu() - serviceBuild : cpuSeconds(cpuBuild),
      endedChildrenCpuSeconds(ownProcess ? servicePid : 'self') - engineBuild,
      postgresCpuSeconds(servicePid) - pgBuild,
    ];
    if (status.state !== 'finished') throw new Error(`the task ended ${JSON.stringify(status)}`);
    const ds = await call<{ sampleCount: number; featureCount: number }>(server, 'GET', `/dataset/${status.datasetId}`);
    console.log(
      `featurised from commit to dataset: ${(n / buildSeconds).toFixed(0)} images/s (${buildSeconds.toFixed(2)} s wall; ` +
        `dataset ${ds.sampleCount} samples x ${ds.featureCount} features; CPU: ${buildCpu[0].toFixed(2)} s in ${where}, ` +
        `${buildCpu[1].toFixed(2)} s in engine processes, ${buildCpu[2].toFixed(2)} s in PostgreSQL)`,
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
