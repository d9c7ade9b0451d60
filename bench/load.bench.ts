/**
 * Latency under load (issue 12, finding 13): N clients poll status and list routes for T seconds while
 * one `extensive` analysis runs on both cores and 20 slow uploads stay open; /health/ready is probed
 * on the side. Target: 0 errors, p99 < 100 ms, /health/ready < 100 ms throughout.
 *   npm run bench:load [-- --clients 40 --seconds 60 --slow 20 --analysis 1]
 * (`--analysis 0 --slow 0`: the same polling with nothing else running, as a baseline on a busy machine)
 * Starts the real service on 127.0.0.1 with its own embedded PostgreSQL. The clients run in a child
 * process, so their own work does not count as the service's latency.
 */
import { fork } from 'node:child_process';
import * as net from 'node:net';
import { UsersService } from '../src/auth/users.service';
import { breastCancerDataset, call, percentile, startServer } from './server';

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};

interface Plan {
  base: string;
  auth: string;
  uploaderAuths: string[];
  routes: string[];
  clients: number;
  seconds: number;
}

interface Report {
  latencies: number[];
  errors: number;
  firstErrors: string[];
  readyMax: number;
  readyCount: number;
  slowUploadsOpenAtEnd: number;
}

/** The client process: pollers, slow uploaders and the /health/ready probe; sends back a Report. */
async function clients(plan: Plan): Promise<Report> {
  const latencies: number[] = [];
  let errors = 0;
  const firstErrors: string[] = [];
  const end = Date.now() + plan.seconds * 1000;
  const url = new URL(plan.base);

  // 20 slow uploads: each announces 10 MB, sends 4 bytes, then a byte every 5 s (under the idle timeout)
  const sockets = plan.uploaderAuths.map((auth, i) => {
    const socket = net.connect(Number(url.port), url.hostname);
    socket.on('error', () => undefined);
    socket.write(
      `POST ${url.pathname}/file/slow${i}/upload HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${auth}\r\n` +
        `Content-Type: application/octet-stream\r\nContent-Length: 10000000\r\n\r\nabcd`,
    );
    return socket;
  });
  const trickle = setInterval(() => sockets.forEach((s) => s.writable && s.write('x')), 5000);
  let closedEarly = 0;
  sockets.forEach((s) => s.on('close', () => closedEarly++));

  let readyMax = 0;
  let readyCount = 0;
  const probe = (async () => {
    while (Date.now() < end) {
      const t0 = performance.now();
      const res = await fetch(`${plan.base}/health/ready`).catch(() => undefined);
      readyMax = Math.max(readyMax, performance.now() - t0);
      readyCount++;
      if (res?.status !== 200) {
        errors++;
        if (firstErrors.length < 5) firstErrors.push(`/health/ready: HTTP ${res?.status}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();

  let next = 0;
  const poller = async () => {
    while (Date.now() < end) {
      const route = plan.routes[next++ % plan.routes.length];
      const t0 = performance.now();
      try {
        const res = await fetch(plan.base + route, { headers: { authorization: plan.auth } });
        const body = (await res.json()) as { status?: string; code?: string };
        latencies.push(performance.now() - t0);
        if (res.status !== 200 || body.status !== 'success') {
          errors++;
          if (firstErrors.length < 5) firstErrors.push(`${route}: HTTP ${res.status} ${body.code ?? ''}`);
        }
      } catch (e) {
        latencies.push(performance.now() - t0);
        errors++;
        if (firstErrors.length < 5) firstErrors.push(`${route}: ${(e as Error).message}`);
      }
    }
  };
  await Promise.all([probe, ...Array.from({ length: plan.clients }, poller)]);
  clearInterval(trickle);
  const open = sockets.length - closedEarly;
  sockets.forEach((s) => s.destroy());
  return { latencies, errors, firstErrors, readyMax, readyCount, slowUploadsOpenAtEnd: open };
}

async function main() {
  const clientCount = arg('clients', 40);
  const seconds = arg('seconds', 60);
  const slowCount = arg('slow', 20);
  const withAnalysis = arg('analysis', 1) !== 0;
  const s = await startServer({ WORKER_CORES: '2' });
  try {
    const { projectId, taskId, task } = await breastCancerDataset(s);
    const body = { outcome: { classification: 'diagnosis' }, thoroughness: 'extensive', coreCount: 2, name: 'load' };
    const { analysisId } = await call(
      s,
      'POST',
      `/dataset/${task.datasetId}/analyze`,
      withAnalysis ? body : { ...body, thoroughness: 'preliminary' },
    );
    const settled = (state: string) => (withAnalysis ? state === 'running' : state === 'finished' || state === 'failed');
    while (!settled((await call(s, 'GET', `/analysis/${analysisId}/status`)).state)) await new Promise((r) => setTimeout(r, 100));

    // slow uploads, 4 per user (MAX_UPLOADS_PER_USER is 4 by default)
    const users = s.app.get(UsersService);
    const uploaderAuths: string[] = [];
    for (let u = 0; uploaderAuths.length < slowCount; u++) {
      const { token } = await users.createUser({ username: `slow${u}`, password: `slow-password-${u}` });
      for (let k = 0; k < 4 && uploaderAuths.length < slowCount; k++) uploaderAuths.push(`Bearer ${token}`);
    }
    const plan: Plan = {
      base: s.base,
      auth: s.auth,
      uploaderAuths,
      clients: clientCount,
      seconds,
      routes: [
        `/analysis/${analysisId}/status`,
        `/analyses/all/${projectId}/0/10`,
        `/datasets/${projectId}/0/10`,
        `/task/${taskId}/status`,
        '/projects/owned/0/10',
        '/files/0/10',
      ],
    };
    process.stdout.write(
      `${clientCount} clients for ${seconds} s on status and list routes; ` +
        `${withAnalysis ? 'one extensive analysis on 2 cores (breast_cancer)' : 'no analysis running'}; ${slowCount} slow uploads\n`,
    );
    const child = fork(__filename, ['--client'], { stdio: 'inherit' });
    const report = await new Promise<Report>((resolve, reject) => {
      child.once('message', (m) => resolve(m as Report));
      child.once('error', reject);
      child.once('exit', (code) => code && reject(new Error(`client process exited with ${code}`)));
      child.send(plan);
    });
    const lat = report.latencies.sort((a, b) => a - b);
    const f = (x: number) => `${x.toFixed(1)} ms`;
    const p99 = percentile(lat, 99);
    const analysisState = (await call(s, 'GET', `/analysis/${analysisId}/status`)).state;
    process.stdout.write(
      `${lat.length} requests (${(lat.length / seconds).toFixed(0)}/s): p50 ${f(percentile(lat, 50))}  p95 ${f(percentile(lat, 95))}  ` +
        `p99 ${f(p99)}  max ${f(lat[lat.length - 1])}; errors ${report.errors}${report.firstErrors.length ? ` (${report.firstErrors.join('; ')})` : ''}\n` +
        `/health/ready: ${report.readyCount} probes, max ${f(report.readyMax)}\n` +
        `slow uploads still open at the end: ${report.slowUploadsOpenAtEnd} of ${slowCount}; analysis ${analysisState} at the end\n` +
        `target (0 errors, p99 < 100 ms, /health/ready < 100 ms): ${report.errors === 0 && p99 < 100 && report.readyMax < 100 ? 'met' : 'MISSED'}\n`,
    );
    if (withAnalysis) await call(s, 'POST', `/analysis/${analysisId}/delete`);
  } finally {
    await s.stop();
  }
}

if (process.argv.includes('--client')) {
  process.once('message', (plan) => {
    clients(plan as Plan).then(
      (report) => process.send!(report, () => process.exit(0)),
      (e) => {
        process.stderr.write(`${(e as Error).stack}\n`);
        process.exit(1);
      },
    );
  });
} else {
  main().then(
    () => process.exit(0),
    (e) => {
      process.stderr.write(`${(e as Error).stack}\n`);
      process.exit(1);
    },
  );
}
