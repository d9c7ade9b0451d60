import { isIPv6 } from 'node:net';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/config';
import { clearLoginFailures, loginBlocked, recordLoginFailure } from './auth.queries';

/**
 * The key of a client address for the per-address limit: an IPv4 address (also when IPv4-mapped,
 * `::ffff:1.2.3.4`) as it is, an IPv6 address by its /64 network, since one client commonly holds a
 * whole /64 and could otherwise take a fresh address for every few guesses.
 */
export function addressKey(address: string): string {
  const v4 = /^(?:::ffff:)?(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (v4) return v4[1];
  if (!isIPv6(address)) return address;
  const [head, tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') && tail ? tail.split(':') : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

type ThrottleConfig = Pick<AppConfig, 'loginMaxFailuresPerUser' | 'loginMaxFailuresPerAddress' | 'loginFailureWindowSeconds'>;

/**
 * The login policy: at most LOGIN_MAX_FAILURES_PER_USER failed logins per username (or email) and
 * LOGIN_MAX_FAILURES_PER_ADDRESS per client address within LOGIN_FAILURE_WINDOW_SECONDS (defaults 10,
 * 50, 15 minutes); past either, every login for that name or from that address is refused with
 * auth-10-4 until old failures leave the window, even with the right password. A success clears the
 * name's count (not the address's: one right password must not reset a spray from that address).
 *
 * The failures are rows of `login_failures`, timed by the database's clock: every API process (and a restarted
 * one) counts the same failures, so running several API processes does not multiply the limits. Rows older than
 * the window are deleted as new failures are recorded. A refused (throttled) login records nothing, and each
 * recorded failure cost a password verification, so the table stays small (at most a few rows per second).
 *
 * Why not @nestjs/throttler: it counts every request, while this counts failures only (a user who
 * logs in often is never slowed), and it keys each limit by one tracker, while this keys one request
 * by two (name and address) that are known only after the body is read.
 */
export class LoginThrottle {
  constructor(
    private readonly db: DataSource,
    private readonly config: ThrottleConfig,
  ) {}

  /** Usernames and emails compare case-insensitively, so `Admin` and `admin` share one count. */
  private static userKey(name: string): string {
    return `user:${name.toLowerCase()}`;
  }

  private static addressKey(address: string | undefined): string | null {
    return address === undefined ? null : `address:${addressKey(address)}`;
  }

  async blocked(name: string, address: string | undefined): Promise<boolean> {
    const c = this.config;
    return loginBlocked(this.db, LoginThrottle.userKey(name), LoginThrottle.addressKey(address), {
      perUser: c.loginMaxFailuresPerUser,
      perAddress: c.loginMaxFailuresPerAddress,
      windowSeconds: c.loginFailureWindowSeconds,
    });
  }

  async failed(name: string, address: string | undefined): Promise<void> {
    await recordLoginFailure(
      this.db,
      LoginThrottle.userKey(name),
      LoginThrottle.addressKey(address),
      this.config.loginFailureWindowSeconds,
    );
  }

  async succeeded(name: string): Promise<void> {
    await clearLoginFailures(this.db, LoginThrottle.userKey(name));
  }
}
