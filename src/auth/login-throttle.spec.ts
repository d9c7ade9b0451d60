import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../database/database';
import { freshDatabase } from '../../test/utils';
import { addressKey, LoginThrottle } from './login-throttle';

describe('LoginThrottle (failures in PostgreSQL)', () => {
  let db: DataSource;
  const config = { loginMaxFailuresPerUser: 2, loginMaxFailuresPerAddress: 3, loginFailureWindowSeconds: 60 };
  /** the failures recorded so far happened `seconds` earlier */
  const age = (seconds: number) => db.query(`UPDATE login_failures SET failed_at = failed_at - make_interval(secs => $1)`, [seconds]);

  beforeAll(async () => {
    db = new DataSource(dataSourceOptions(await freshDatabase()));
    await db.initialize();
  });
  afterAll(() => db.destroy());
  beforeEach(() => db.query('DELETE FROM login_failures'));

  it('limits per name (case-insensitive) and per address; a success clears the name only', async () => {
    const t = new LoginThrottle(db, config);
    await t.failed('Alice', '10.0.0.1');
    expect(await t.blocked('alice', '10.0.0.9')).toBe(false);
    await t.failed('alice', '10.0.0.2');
    expect(await t.blocked('ALICE', '10.0.0.9')).toBe(true);
    await t.succeeded('alice');
    expect(await t.blocked('alice', '10.0.0.9')).toBe(false);

    await t.failed('bob', '10.0.0.5');
    await t.failed('carol', '10.0.0.5');
    expect(await t.blocked('dave', '10.0.0.5')).toBe(false);
    await t.failed('erin', '10.0.0.5');
    expect(await t.blocked('dave', '10.0.0.5')).toBe(true);
    expect(await t.blocked('dave', '10.0.0.6')).toBe(false);
    expect(await t.blocked('dave', undefined)).toBe(false);
  });

  it('forgets failures older than the window, and deletes their rows as new failures come', async () => {
    const t = new LoginThrottle(db, config);
    await t.failed('alice', '10.0.0.1');
    await t.failed('alice', '10.0.0.1');
    await age(59);
    expect(await t.blocked('alice', undefined)).toBe(true);
    await age(2); // 61 s old: outside the 60 s window
    expect(await t.blocked('alice', undefined)).toBe(false);
    await t.failed('bob', undefined); // without an address: one row
    expect(await db.query(`SELECT key FROM login_failures`)).toEqual([{ key: 'user:bob' }]);
  });

  it('is one ledger for every process: two throttles on one database count the same failures', async () => {
    const a = new LoginThrottle(db, config);
    const b = new LoginThrottle(db, config);
    await a.failed('alice', '10.0.0.1');
    await b.failed('alice', '10.0.0.2');
    expect(await a.blocked('alice', '10.0.0.3')).toBe(true);
    expect(await b.blocked('alice', '10.0.0.3')).toBe(true);
  });

  it('counts every address of one /64 as one client', async () => {
    const t = new LoginThrottle(db, { ...config, loginMaxFailuresPerUser: 100, loginMaxFailuresPerAddress: 2 });
    await t.failed('a', '2001:db8:1:2::1');
    await t.failed('b', '2001:db8:1:2::2');
    expect(await t.blocked('c', '2001:db8:1:2:ffff::9')).toBe(true);
    expect(await t.blocked('c', '2001:db8:1:3::1')).toBe(false);
  });
});

describe('addressKey', () => {
  it('keeps IPv4 (mapped or not) and reduces IPv6 to its /64 network', () => {
    expect(addressKey('10.1.2.3')).toBe('10.1.2.3');
    expect(addressKey('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(addressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('not an address')).toBe('not an address');
  });
});
