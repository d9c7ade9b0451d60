import { mkdtempSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { ConfigError, loadConfig } from './config';

describe('loadConfig', () => {
  const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: join(tmpdir(), 'signet-config-spec'), ...env });

  it('reads TRUST_PROXY as none, a hop count, or a list of addresses, subnets and names', () => {
    expect(load({}).trustProxy).toBe(false);
    expect(load({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(load({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(load({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(load({ TRUST_PROXY: 'loopback, 10.0.0.0/8,fd00::/8, 192.0.2.7' }).trustProxy).toEqual([
      'loopback',
      '10.0.0.0/8',
      'fd00::/8',
      '192.0.2.7',
    ]);
  });

  it.each(['true', '11', '-1', 'proxy.example.com', '10.0.0.0/33', '10.0.0.0/8/1', 'loopback,', '::1/129'])(
    'refuses TRUST_PROXY=%s with a message naming the setting',
    (value) => {
      expect(() => load({ TRUST_PROXY: value })).toThrow(ConfigError);
      expect(() => load({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY/);
    },
  );

  it('refuses integers out of range and words that are not booleans, naming the setting', () => {
    expect(() => load({ DB_POOL_SIZE: '1' })).toThrow(/DB_POOL_SIZE must be between 2 and 1000, got 1/);
    expect(() => load({ PORT: 'eighty' })).toThrow(/PORT must be an integer/);
    expect(() => load({ RUN_WORKERS: 'maybe' })).toThrow(/RUN_WORKERS must be true or false/);
    expect(load({ RUN_WORKERS: 'off' }).runWorkers).toBe(false);
  });

  it('puts the password of DATABASE_PASSWORD_FILE (a compose secret) into DATABASE_URL, and refuses it alone, unread or twice', () => {
    const dir = mkdtempSync(join(tmpdir(), 'signet-secret-'));
    const file = join(dir, 'db_password');
    writeFileSync(file, 'p@ss word:/?#\n');
    const url = load({ DATABASE_URL: 'postgres://signet@postgres:5432/signet', DATABASE_PASSWORD_FILE: file }).databaseUrl!;
    expect(url).toBe('postgres://signet:p%40ss%20word%3A%2F%3F%23@postgres:5432/signet');
    expect(decodeURIComponent(new URL(url).password)).toBe('p@ss word:/?#');
    expect(load({ DATABASE_URL: 'postgres://u:pw@h/db' }).databaseUrl).toBe('postgres://u:pw@h/db');
    expect(() => load({ DATABASE_PASSWORD_FILE: file })).toThrow(/DATABASE_PASSWORD_FILE is set without DATABASE_URL/);
    expect(() => load({ DATABASE_URL: 'postgres://u@h/db', DATABASE_PASSWORD_FILE: join(dir, 'none') })).toThrow(
      /DATABASE_PASSWORD_FILE .*none cannot be read \(ENOENT\)/,
    );
    expect(() => load({ DATABASE_URL: 'postgres://u:pw@h/db', DATABASE_PASSWORD_FILE: file })).toThrow(/give the password once/);
    writeFileSync(file, '');
    expect(() => load({ DATABASE_URL: 'postgres://u@h/db', DATABASE_PASSWORD_FILE: file })).toThrow(/is empty/);
  });

  it('reads IMAGE_UPLOAD_EXPIRY_HOURS: 24 by default, 1 hour to a year', () => {
    expect(load({}).imageUploadExpiryHours).toBe(24);
    expect(load({ IMAGE_UPLOAD_EXPIRY_HOURS: '2' }).imageUploadExpiryHours).toBe(2);
    expect(() => load({ IMAGE_UPLOAD_EXPIRY_HOURS: '0' })).toThrow(/IMAGE_UPLOAD_EXPIRY_HOURS must be between 1 and 8760, got 0/);
  });
});
