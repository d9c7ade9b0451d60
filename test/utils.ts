import { INestApplication } from '@nestjs/common';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createApp } from '../src/app';
import { AppConfig, loadConfig } from '../src/config/config';
import { runMigrations } from '../src/database/database';
import { UsersService } from '../src/auth/users.service';

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

/** The real application on a fresh database, not listening (supertest drives it). */
export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const databaseUrl = await freshDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-data-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'error', JOB_POLL_MS: '50', ...env });
  const app = await createApp({ config, databaseUrl, http: true });
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
export function expectError(res: { status: number; body: { code?: string; status?: string } }, code: string) {
  expect({ http: res.status, status: res.body.status, code: res.body.code }).toEqual({
    http: 200,
    status: 'error',
    code,
  });
  return res.body;
}

export function expectSuccess<T = any>(res: { status: number; body: { payload?: T; status?: string; code?: string } }): T {
  expect({ http: res.status, status: res.body.status, code: res.body.code }).toEqual({
    http: 200,
    status: 'success',
    code: undefined,
  });
  return res.body.payload as T;
}
