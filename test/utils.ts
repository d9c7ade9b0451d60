import { INestApplication } from '@nestjs/common';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createApp } from '../src/app';
import { documentCheck } from './response-schemas';
import { AppConfig, loadConfig } from '../src/config/config';
import { runMigrations } from '../src/database/database';
import { UsersService } from '../src/auth/users.service';
import { pngChunk } from '../bench/hostile-images';

export { pngChunk };

export const API = '/api/public/v1';

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  databaseUrl: string;
  db: DataSource;
  http: () => ReturnType<typeof request>;
  close: () => Promise<void>;
}

function adminUrl(): string {
  const url = process.env.SIGNET_TEST_ADMIN_URL;
  if (!url) throw new Error('SIGNET_TEST_ADMIN_URL is not set: run the tests with jest (globalSetup)');
  return url;
}

/** Creates a fresh database on the test server and returns its URL (migrated). */
export async function freshDatabase(): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new Client({ connectionString: adminUrl() });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  await runMigrations(url.toString());
  return url.toString();
}

/** The real application on a fresh database (or on `existingDatabaseUrl`), not listening (supertest drives it). */
export async function createTestApp(env: Record<string, string> = {}, existingDatabaseUrl?: string): Promise<TestApp> {
  const databaseUrl = existingDatabaseUrl ?? (await freshDatabase());
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-data-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'error', JOB_POLL_MS: '50', ...env });
  // every error code a test provokes must be declared for its route, and every JSON answer must be what
  // the OpenAPI document says: otherwise the answer is HTTP 500 naming the fault
  const app = await createApp({ config, databaseUrl, http: true, checkErrorCodes: true, checkResponses: documentCheck });
  const server = app.getHttpServer();
  return {
    app,
    config,
    databaseUrl,
    db: app.get(DataSource),
    http: () => request(server),
    close: async () => {
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A user with a ready token. */
export async function createUser(
  t: TestApp,
  username = `u${randomBytes(4).toString('hex')}`,
  cores?: number,
): Promise<{ userId: string; username: string; token: string; auth: string }> {
  const password = 'password-' + username;
  const { userId, token } = await t.app.get(UsersService).createUser({ username, password, cores });
  return { userId, username, token, auth: `Bearer ${token}` };
}

/** Creates a project through the API and returns its id. */
export async function createProject(t: TestApp, auth: string, name = 'project'): Promise<string> {
  const res = await t.http().post(`${API}/createProject`).set('Authorization', auth).send({ name });
  expect(res.body.status).toBe('success');
  return res.body.payload.projectId as string;
}

/** Asserts an error envelope with `code` (HTTP 200) and returns the body. */
export function expectError(res: { status: number; body: { code?: string; status?: string; message?: string } }, code: string) {
  expect({ http: res.status, status: res.body.status, code: res.body.code }).toEqual({
    http: 200,
    status: 'error',
    code,
  });
  return res.body;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the payload they expect
export function expectSuccess<T = any>(res: { status: number; body: { payload?: T; status?: string; code?: string } }): T {
  expect({ http: res.status, status: res.body.status, code: res.body.code }).toEqual({
    http: 200,
    status: 'success',
    code: undefined,
  });
  return res.body.payload as T;
}

/** The datasets the tests upload, in the repository (`test/data`, whose README says where each comes from). */
import { TEST_DATA } from './data';
export { TEST_DATA };

/** Polls `GET <path>` until `done(payload)` holds; returns that payload. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the payload they expect
export async function pollUntil<T = any>(
  t: TestApp,
  auth: string,
  path: string,
  done: (payload: T) => boolean,
  timeoutMs = 60_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const res = await t
      .http()
      .get(API + path)
      .set('Authorization', auth);
    const payload = res.body.payload as T;
    if (res.body.status === 'success' && done(payload)) return payload;
    if (Date.now() > end) throw new Error(`timed out polling ${path}: ${JSON.stringify(res.body).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface UploadOptions {
  name?: string;
  separator?: string;
  hasFeatureHeaders?: boolean;
  hasSampleHeaders?: boolean;
  hasSamplesInRows?: boolean;
  featureTypes?: Record<string, string>;
  description?: string;
}

/** Uploads `content` and runs createDataset to its end; returns the final task status. */
export async function uploadTask(
  t: TestApp,
  auth: string,
  projectId: string,
  content: string | Buffer,
  options: UploadOptions = {},
): Promise<{ taskId: string; state: string; datasetId?: string; error?: { code: string; message: string } }> {
  const fileId = `f${randomBytes(6).toString('hex')}`;
  const body = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  const up = await t
    .http()
    .post(`${API}/file/${fileId}/upload`)
    .set('Authorization', auth)
    .set('Content-Type', 'application/octet-stream')
    .send(body);
  expect(expectSuccess(up)).toEqual({ fileId, sizeInBytes: body.length });
  const { name = `ds-${randomBytes(4).toString('hex')}`, ...rest } = options;
  const created = await t
    .http()
    .post(`${API}/file/${fileId}/createDataset`)
    .set('Authorization', auth)
    .send({ projectId, name, fileSizeInBytes: body.length, ...rest });
  const { taskId } = expectSuccess(created);
  return pollUntil<{ taskId: string; state: string; datasetId?: string; error?: { code: string; message: string } }>(
    t,
    auth,
    `/task/${taskId}/status`,
    (p) => p.state === 'finished' || p.state === 'failed',
  );
}

/** Every payload of `GET <path>` read until `done(payload)` holds, that last one included (the states a status went through). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the payload they expect
export async function pollAll<T = any>(
  t: TestApp,
  auth: string,
  path: string,
  done: (payload: T) => boolean,
  timeoutMs = 60_000,
): Promise<T[]> {
  const seen: T[] = [];
  await pollUntil<T>(
    t,
    auth,
    path,
    (p) => {
      seen.push(p);
      return done(p);
    },
    timeoutMs,
  );
  return seen;
}

/** A test app with a user, a project of theirs, and the named datasets of test/data (`<name>.csv`) uploaded into it by name. */
export async function appWithDatasets(
  names: string[],
  env: Record<string, string> = {},
): Promise<{ t: TestApp; owner: Awaited<ReturnType<typeof createUser>>; projectId: string; datasets: Record<string, string> }> {
  const t = await createTestApp(env);
  const owner = await createUser(t);
  const projectId = await createProject(t, owner.auth, 'datasets of test/data');
  const datasets: Record<string, string> = {};
  for (const name of names) {
    datasets[name] = await uploadDataset(t, owner.auth, projectId, fs.readFileSync(path.join(TEST_DATA, `${name}.csv`)), { name });
  }
  return { t, owner, projectId, datasets };
}

/** Uploads `content` as a dataset and returns its id (the task must finish). */
export async function uploadDataset(
  t: TestApp,
  auth: string,
  projectId: string,
  content: string | Buffer,
  options: UploadOptions = {},
): Promise<string> {
  const task = await uploadTask(t, auth, projectId, content, options);
  expect({ state: task.state, error: task.error }).toEqual({ state: 'finished', error: undefined });
  return task.datasetId as string;
}

/** A PNG signature and IHDR chunk claiming `width` x `height`, with no pixel data (image headers are read from this). */
export function pngHeader(width: number, height: number): Buffer {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  b[24] = 8; // bit depth
  b[25] = 6; // RGBA
  return b;
}

/** A sound width x height PNG (gray, 8 bits: what add checks before storing) of exactly `size` bytes, padded with a text chunk. */
export function pngOfSize(size: number, width = 2, height = 2): Buffer {
  const chunk = pngChunk;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // gray
  const parts = [
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(height * (1 + width)))),
  ];
  const used = parts.reduce((n, p) => n + p.length, 0) + 12 + 12; // the text chunk's frame, and IEND
  if (size < used) throw new Error(`a PNG needs at least ${used} bytes`);
  return Buffer.concat([...parts, chunk('tEXt', Buffer.alloc(size - used, 0x61)), chunk('IEND', Buffer.alloc(0))]);
}
