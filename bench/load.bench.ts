/**
 * Latency under load (issue 12, finding 13): N clients poll status and list routes for T seconds while
 * one `extensive` analysis runs on both cores and 20 slow uploads stay open; /health/ready is probed
 * on the side. Target: 0 errors, p99 < 100 ms, /health/ready < 100 ms throughout.
 *   npm run bench:load [-- --clients 40 --seconds 60 --slow 20 --analysis 1 --interval 0]
 * (`--analysis 0 --slow 0`: the same polling with nothing else running, as a baseline on a busy machine;
 * `--interval ms`: each client pauses that long between requests, as polling clients do; the default, no pause,
 * is the saturation test: every client sends its next request as soon as the last is answered)
 * Starts the service as `npm start` runs it (dist/src/main.js: the API, its job workers and engine processes)
 * on 127.0.0.1 with its own embedded PostgreSQL. The pollers and slow uploads run in one process of their own,
 * the probe in another (as an orchestrator's would), so their work does not count as the service's latency
 * (but they share the two cores).
 */
import { fork } from 'node:child_process';
import * as http from 'node:http';
import * as net from 'node:net';
import * as fs from 'node:fs';
import { breastCancerDataset, call, percentile, startService } from './server';

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
  /** each client's pause between the end of one request and the start of its next (0: none, the saturation test) */
  intervalMs: number;
  /** what this client process does: the pollers and slow uploads, or the /health/ready probe (as an orchestrator would, from a process of its own) */
  role: 'pollers' | 'probe';
}

interface Report {
  latencies: number[];
  /** the slowest request sent after the first second (the first requests open 40 connections at once, cold) */
  warmMax: number;
  /** the same latencies by route pattern */
  byRoute: Record<string, number[]>;
  errors: number;
  firstErrors: string[];
  readyMax: number;
  readyCount: number;
  slowUploadsOpenAtEnd: number;
}

/** A client process: pollers and slow uploaders, or the /health/ready probe; sends back a Report. */
async function clients(plan: Plan): Promise<Report> {
  const latencies: number[] = [];
  const byRoute: Record<string, number[]> = {};
  const started = performance.now();
  let warmMax = 0;
  const record = (route: string, ms: number) => {
    if (performance.now() - ms - started >= 1000) warmMax = Math.max(warmMax, ms);
    latencies.push(ms);
    (byRoute[route.replace(/\/\d+/g, '/:id')] ??= []).push(ms);
  };
  let errors = 0;
  const firstErrors: string[] = [];
  const end = Date.now() + plan.seconds * 1000;
  const url = new URL(plan.base);

  // 20 slow uploads: each announces 10 MB, sends 4 bytes, then a byte every 5 s (under the idle timeout)
  const probing = plan.role === 'probe';
  const sockets = (probing ? [] : plan.uploaderAuths).map((auth, i) => {
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

  // The clients share the service's two cores, so they use the cheapest client Node has (node:http with
  // keep-alive: about a third of fetch's CPU per request); the probe has a connection of its own. FIFO reuse keeps
  // every socket busy: none sits idle until the server's keep-alive timeout closes it under a new request.
  const get = (agent: http.Agent, route: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.get({ agent, host: url.hostname, port: url.port, path: url.pathname + route, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
    });
  const pollers = new http.Agent({ keepAlive: true, maxSockets: plan.clients, scheduling: 'fifo' });
  const prober = new http.Agent({ keepAlive: true, maxSockets: 1 });

  let readyMax = 0;
  let readyCount = 0;
  const probe = (async () => {
    while (probing && Date.now() < end) {
      const t0 = performance.now();
      const res = await get(prober, '/health/ready').catch(() => undefined);
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
        const res = await get(pollers, route, { authorization: plan.auth });
        const body = JSON.parse(res.body) as { status?: string; code?: string };
        record(route, performance.now() - t0);
        if (res.status !== 200 || body.status !== 'success') {
          errors++;
          if (firstErrors.length < 5) firstErrors.push(`${route}: HTTP ${res.status} ${body.code ?? ''}`);
        }
      } catch (e) {
        record(route, performance.now() - t0);
        errors++;
        if (firstErrors.length < 5) firstErrors.push(`${route}: ${(e as Error).message}`);
      }
      if (plan.intervalMs) await new Promise((r) => setTimeout(r, plan.intervalMs));
    }
  };
  await Promise.all([probe, ...Array.from({ length: probing ? 0 : plan.clients }, poller)]);
  clearInterval(trickle);
  const open = sockets.length - closedEarly;
  sockets.forEach((s) => s.destroy());
  pollers.destroy();
  prober.destroy();
  return { latencies, warmMax, byRoute, errors, firstErrors, readyMax, readyCount, slowUploadsOpenAtEnd: open };
}

async function main() {
  const clientCount = arg('clients', 40);
  const seconds = arg('seconds', 60);
  const intervalMs = arg('interval', 0);
  const slowCount = arg('slow', 20);
  const withAnalysis = arg('analysis', 1) !== 0;
  const s = await startService({ WORKER_CORES: '2' });
  try {
    const { projectId, taskId, task } = await breastCancerDataset(s);
    const body = { outcome: { classification: 'diagnosis' }, thoroughness: 'extensive', coreCount: 2, name: 'load' };
    const { analysisId } = await call<{ analysisId: string }>(
      s,
      'POST',
      `/dataset/${task.datasetId}/analyze`,
      withAnalysis ? body : { ...body, thoroughness: 'preliminary' },
    );
    const settled = (state: string) => (withAnalysis ? state === 'running' : state === 'finished' || state === 'failed');
    while (!settled((await call<{ state: string }>(s, 'GET', `/analysis/${analysisId}/status`)).state))
      await new Promise((r) => setTimeout(r, 100));

    // slow uploads, 4 per user (MAX_UPLOADS_PER_USER is 4 by default)
    const uploaderAuths: string[] = [];
    for (let u = 0; uploaderAuths.length < slowCount; u++) {
      const { token } = (await s.cli('users', 'create', `slow${u}`, '--password', `slow-password-${u}`)) as { token: string };
      for (let k = 0; k < 4 && uploaderAuths.length < slowCount; k++) uploaderAuths.push(`Bearer ${token}`);
    }
    const plan: Omit<Plan, 'role'> = {
      base: s.base,
      auth: s.auth,
      uploaderAuths,
      clients: clientCount,
      seconds,
      intervalMs,
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
      `${clientCount} clients for ${seconds} s on status and list routes (${intervalMs ? `${intervalMs} ms between requests` : 'no pause: saturation'}); ` +
        `${withAnalysis ? 'one extensive analysis on 2 cores (breast_cancer)' : 'no analysis running'}; ${slowCount} slow uploads\n`,
    );
    const cpuBefore = serviceCpuSeconds(s.pid);
    const runClients = (role: Plan['role']) =>
      new Promise<Report>((resolve, reject) => {
        const child = fork(__filename, ['--client'], { stdio: 'inherit' });
        child.once('message', (m) => resolve(m as Report));
        child.once('error', reject);
        child.once('exit', (code) => code && reject(new Error(`client process exited with ${code}`)));
        child.send({ ...plan, role });
      });
    const [polled, probed] = await Promise.all([runClients('pollers'), runClients('probe')]);
    const report: Report = {
      ...polled,
      errors: polled.errors + probed.errors,
      firstErrors: [...polled.firstErrors, ...probed.firstErrors].slice(0, 5),
      readyMax: probed.readyMax,
      readyCount: probed.readyCount,
    };
    const cpu = serviceCpuSeconds(s.pid) - cpuBefore;
    const lat = report.latencies.sort((a, b) => a - b);
    const f = (x: number) => `${x.toFixed(1)} ms`;
    const p99 = percentile(lat, 99);
    const analysisState = (await call<{ state: string }>(s, 'GET', `/analysis/${analysisId}/status`)).state;
    process.stdout.write(
      `${lat.length} requests (${(lat.length / seconds).toFixed(0)}/s): p50 ${f(percentile(lat, 50))}  p95 ${f(percentile(lat, 95))}  ` +
        `p99 ${f(p99)}  max ${f(lat[lat.length - 1])} (after the first second: ${f(report.warmMax)}); errors ${report.errors}${report.firstErrors.length ? ` (${report.firstErrors.join('; ')})` : ''}\n` +
        Object.entries(report.byRoute)
          .map(([route, l]) => {
            l.sort((a, b) => a - b);
            return `  ${route}: p50 ${f(percentile(l, 50))}  p99 ${f(percentile(l, 99))}\n`;
          })
          .join('') +
        `/health/ready: ${report.readyCount} probes, max ${f(report.readyMax)}\n` +
        `service process (not its engine processes): CPU ${((cpu * 1000) / lat.length).toFixed(2)} ms per request\n` +
        `slow uploads still open at the end: ${report.slowUploadsOpenAtEnd} of ${slowCount}; analysis ${analysisState} at the end\n` +
        `target (0 errors, p99 < 100 ms, /health/ready < 100 ms): ${report.errors === 0 && p99 < 100 && report.readyMax < 100 ? 'met' : 'MISSED'}\n`,
    );
    if (withAnalysis) await call(s, 'POST', `/analysis/${analysisId}/delete`);
  } finally {
    await s.stop();
  }
}

/** CPU seconds used so far by the service's process (not its engine processes), from /proc (USER_HZ 100). */
function serviceCpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime
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
