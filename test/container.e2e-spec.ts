import * as fs from 'node:fs';
import * as path from 'node:path';
import { CORE_SCHEMA, load, mergeTag } from 'js-yaml';
import { FORCED_EXIT_MS } from '../src/bootstrap';

/**
 * The container files, read (no Docker engine is needed): a pinned base image, a stop grace period longer than
 * the service's forced exit, the database password from a compose secret (never written in the file or in an
 * environment variable), and the admin credentials (DATA_DIR) on a volume.
 */
const ROOT = path.resolve(__dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

interface Service {
  image?: string;
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

  it("the API keeps DATA_DIR (the first start's admin credentials) on a named volume", () => {
    const dataDir = /^ENV .*\bDATA_DIR=(\S+)/m.exec(dockerfile)?.[1];
    expect(dataDir).toBe('/data');
    const api = compose.services.api;
    const mount = (api.volumes ?? []).map((v) => v.split(':')).find(([, target]) => target === dataDir);
    expect(mount).toBeDefined();
    expect(Object.keys(compose.volumes ?? {})).toContain(mount![0]);
  });
});
