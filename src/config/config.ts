import * as fs from 'node:fs';
import { isIP } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/** Every setting of the service, read once from the environment and validated at start-up. */
export interface AppConfig {
  nodeEnv: string;
  port: number;
  host: string;
  /** External PostgreSQL; when absent an embedded server is started in `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
  embeddedPgPort: number;
  tokenTtlHours: number;
  /** Cores the workers of this process may use for analyses; also the default user quota. */
  workerCores: number;
  /** Run job workers in this process (the API process does by default). */
  runWorkers: boolean;
  jobPollMs: number;
  jobLeaseSeconds: number;
  jobMaxAttempts: number;
  /** a queued job needing more cores than WORKER_CORES fails after waiting this long (no worker took it) */
  jobStrandedSeconds: number;
  logFormat: 'json' | 'text';
  logLevel: 'error' | 'warn' | 'log' | 'debug' | 'verbose';
  maxJsonBodyBytes: number;
  maxTabularFileBytes: number;
  maxImageBytes: number;
  /** Largest image accepted at add, in pixels (width x height from its header): bounds decoding memory. */
  maxImagePixels: number;
  /** An image whose decoding takes longer than this fails its image task (its engine process is killed). */
  imageDecodeTimeoutSeconds: number;
  /** How long the decoding of an image task's images may take in all (0: 60 s plus 10 s per MB of its images). */
  imageTaskDecodeSeconds: number;
  /** An image upload not committed within this many hours of its init or its last add fails, its images deleted. */
  imageUploadExpiryHours: number;
  /** Failed logins allowed per username, and per client address, within the window; then auth-10-4. */
  loginMaxFailuresPerUser: number;
  loginMaxFailuresPerAddress: number;
  loginFailureWindowSeconds: number;
  /**
   * Which proxies in front of the service are trusted to name the client in X-Forwarded-For (Express's
   * 'trust proxy'): false (none: the client is the peer of the connection), a number of proxy hops, or
   * addresses, subnets and Express's names (loopback, linklocal, uniquelocal). Used for the per-address login limit.
   */
  trustProxy: false | number | string[];
  /** A request body (file upload, multipart) that sends nothing for this long is cut. */
  uploadIdleSeconds: number;
  /** Connections the HTTP server keeps open at once; more are closed as they come. */
  maxConnections: number;
  /**
   * Uploads one user may have in progress at once (file uploads, image init and add), counted across every API
   * process on the database.
   */
  maxUploadsPerUser: number;
  /** Jobs (dataset builds, image tasks, analyses, predictions) one user may have waiting to run (0: no limit). */
  maxQueuedJobsPerUser: number;
  /**
   * Bytes one user may keep (0: no quota): uploaded files, the datasets their tasks made, builds in progress (at their
   * file's size) and the images of open image uploads.
   */
  userStorageQuotaBytes: number;
  /** PostgreSQL connections of this process, and how long a request waits for one before "service busy". */
  dbPoolSize: number;
  dbPoolWaitMs: number;
  /** Niceness of the engine processes (analyses, predictions, dataset builds): the API's event loop goes first. */
  engineNice: number;
  /** Heap limit of each engine process, in MB (0: V8's default); past it that job fails or is retried. */
  engineMaxMemoryMb: number;
  /** The seed of every new analysis (reproducible runs: audits, tests); unset, each analysis draws its own. */
  analysisSeed?: number;
  /** Prometheus metrics (GET /metrics) served at all. */
  metrics: boolean;
  /** The port of the metrics' own listener (0: none), on HOST: API and worker processes alike. */
  metricsPort: number;
  /**
   * When set, every /metrics answer needs `Authorization: Bearer <token>`, and the API's own port serves /metrics
   * too (for platforms that scrape one port only).
   */
  metricsToken?: string;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, def: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const v = Number(raw.trim());
  if (v < min || v > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${v}`);
  return v;
}

function bool(env: Env, name: string, def: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** TRUST_PROXY: unset or false, a hop count, or a comma-separated list of addresses, CIDR subnets and names. */
function trustProxy(env: Env): false | number | string[] {
  const raw = env.TRUST_PROXY?.trim();
  if (!raw || raw.toLowerCase() === 'false') return false;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops === 0) return false;
    if (hops > 10) throw new ConfigError(`TRUST_PROXY as a hop count must be at most 10, got ${hops}`);
    return hops;
  }
  const entries = raw.split(',').map((e) => e.trim());
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address);
    const prefixOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!PROXY_NAMES.includes(entry) && (!family || !prefixOk || extra !== undefined)) {
      throw new ConfigError(
        `TRUST_PROXY must be false, a hop count, or addresses, subnets (a.b.c.d/n) and ${PROXY_NAMES.join(', ')} separated by commas; "${entry}" is none of these`,
      );
    }
  }
  return entries;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], def: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

/**
 * DATABASE_URL, with the password read from DATABASE_PASSWORD_FILE when that is set (a compose or Kubernetes
 * secret: the password then appears in no environment variable). The file's one line is the password, as is.
 */
function withPasswordFile(databaseUrl: string | undefined, passwordFile: string | undefined): string | undefined {
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  if (!passwordFile) return databaseUrl;
  if (!databaseUrl) throw new ConfigError('DATABASE_PASSWORD_FILE is set without DATABASE_URL: set both, or neither');
  let password: string;
  try {
    password = fs.readFileSync(passwordFile, 'utf8').replace(/\r?\n$/, '');
  } catch (e) {
    throw new ConfigError(`DATABASE_PASSWORD_FILE ${passwordFile} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!password) throw new ConfigError(`DATABASE_PASSWORD_FILE ${passwordFile} is empty`);
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new ConfigError('DATABASE_URL is not a URL');
  }
  if (url.password) throw new ConfigError('DATABASE_URL holds a password and DATABASE_PASSWORD_FILE is set: give the password once');
  url.password = encodeURIComponent(password);
  return url.toString();
}

/** METRICS_TOKEN: unset, or at least 16 printable characters (a bearer token compared as it is). */
function metricsToken(env: Env): string | undefined {
  const raw = env.METRICS_TOKEN?.trim();
  if (!raw) return undefined;
  if (!/^[\x21-\x7e]{16,256}$/.test(raw)) {
    throw new ConfigError('METRICS_TOKEN must be 16 to 256 printable characters without spaces (e.g. openssl rand -hex 24)');
  }
  return raw;
}

/** Reads and validates the environment. Throws ConfigError with a clear message on a bad value. */
export function loadConfig(env: Env = process.env): AppConfig {
  const nodeEnv = env.NODE_ENV ?? 'development';
  const databaseUrl = withPasswordFile(env.DATABASE_URL?.trim() || undefined, env.DATABASE_PASSWORD_FILE?.trim() || undefined);
  const cores = Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
  return {
    nodeEnv,
    port: int(env, 'PORT', 8080, 0, 65535),
    host: env.HOST?.trim() || '0.0.0.0',
    databaseUrl,
    dataDir: path.resolve(env.DATA_DIR?.trim() || './.data'),
    embeddedPgPort: int(env, 'EMBEDDED_PG_PORT', 54329, 1024, 65535),
    tokenTtlHours: int(env, 'TOKEN_TTL_HOURS', 168, 1, 24 * 365 * 10),
    workerCores: int(env, 'WORKER_CORES', cores, 1, 1024),
    runWorkers: bool(env, 'RUN_WORKERS', true),
    jobPollMs: int(env, 'JOB_POLL_MS', 500, 10, 60_000),
    jobLeaseSeconds: int(env, 'JOB_LEASE_SECONDS', 30, 2, 3600),
    jobMaxAttempts: int(env, 'JOB_MAX_ATTEMPTS', 3, 1, 100),
    jobStrandedSeconds: int(env, 'JOB_STRANDED_SECONDS', 600, 1, 7 * 24 * 3600),
    logFormat: oneOf(env, 'LOG_FORMAT', ['json', 'text'] as const, nodeEnv === 'production' ? 'json' : 'text'),
    logLevel: oneOf(env, 'LOG_LEVEL', ['error', 'warn', 'log', 'debug', 'verbose'] as const, 'log'),
    maxJsonBodyBytes: int(env, 'MAX_JSON_BODY_BYTES', 1024 * 1024, 1024),
    maxTabularFileBytes: int(env, 'MAX_TABULAR_FILE_BYTES', 1024 * 1024 * 1024, 1024),
    maxImageBytes: int(env, 'MAX_IMAGE_BYTES', 50 * 1024 * 1024, 1024),
    // 50 megapixels: a 45-megapixel camera frame fits; decoded as RGBA it is at most 200 MB
    maxImagePixels: int(env, 'MAX_IMAGE_PIXELS', 50_000_000, 1),
    imageDecodeTimeoutSeconds: int(env, 'IMAGE_DECODE_TIMEOUT_SECONDS', 30, 1, 3600),
    imageTaskDecodeSeconds: int(env, 'IMAGE_TASK_DECODE_SECONDS', 0, 0, 7 * 24 * 3600),
    imageUploadExpiryHours: int(env, 'IMAGE_UPLOAD_EXPIRY_HOURS', 24, 1, 24 * 365),
    loginMaxFailuresPerUser: int(env, 'LOGIN_MAX_FAILURES_PER_USER', 10, 1),
    loginMaxFailuresPerAddress: int(env, 'LOGIN_MAX_FAILURES_PER_ADDRESS', 50, 1),
    loginFailureWindowSeconds: int(env, 'LOGIN_FAILURE_WINDOW_SECONDS', 15 * 60, 1, 24 * 3600),
    trustProxy: trustProxy(env),
    uploadIdleSeconds: int(env, 'UPLOAD_IDLE_TIMEOUT_SECONDS', 30, 1, 3600),
    maxUploadsPerUser: int(env, 'MAX_UPLOADS_PER_USER', 4, 1, 1000),
    maxConnections: int(env, 'MAX_CONNECTIONS', 10_000, 1, 1_000_000),
    maxQueuedJobsPerUser: int(env, 'MAX_QUEUED_JOBS_PER_USER', 100, 0, 1_000_000),
    userStorageQuotaBytes: int(env, 'USER_STORAGE_QUOTA_BYTES', 10 * 1024 * 1024 * 1024, 0),
    dbPoolSize: int(env, 'DB_POOL_SIZE', 20, 2, 1000),
    dbPoolWaitMs: int(env, 'DB_POOL_WAIT_MS', 5000, 10, 600_000),
    engineNice: int(env, 'ENGINE_NICE', 19, 0, 19),
    engineMaxMemoryMb: int(env, 'ENGINE_MAX_MEMORY_MB', 0, 0, 1024 * 1024),
    metrics: bool(env, 'METRICS', true),
    metricsPort: int(env, 'METRICS_PORT', 9464, 0, 65535),
    metricsToken: metricsToken(env),
    analysisSeed: env.ANALYSIS_SEED?.trim() ? int(env, 'ANALYSIS_SEED', 1, 1, 2 ** 31 - 2) : undefined,
  };
}

/** Injection token of the AppConfig object. */
export const APP_CONFIG = Symbol('APP_CONFIG');
