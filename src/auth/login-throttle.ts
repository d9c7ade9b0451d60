import { isIPv6 } from 'node:net';
import type { AppConfig } from '../config/config';

/**
 * Counts failures per key in a sliding window. In memory, per process: it slows a guesser down, it is
 * not a shared ledger (with several API processes each keeps its own counts). Bounded: at most
 * `maxKeys` keys (the oldest forgotten first) and `max` timestamps a key.
 */
export class FailureWindow {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 100_000,
  ) {}

  /** Failures of `key` still inside the window. */
  count(key: string): number {
    const list = this.failures.get(key);
    if (!list) return 0;
    const since = this.now() - this.windowMs;
    while (list.length && list[0] <= since) list.shift();
    if (!list.length) this.failures.delete(key);
    return list.length;
  }

  blocked(key: string): boolean {
    return this.count(key) >= this.max;
  }

  record(key: string): void {
    const list = this.failures.get(key) ?? [];
    this.failures.delete(key); // re-inserted last: the Map's order is the order of last failure
    list.push(this.now());
    if (list.length > this.max) list.shift();
    this.failures.set(key, list);
    if (this.failures.size > this.maxKeys) this.failures.delete(this.failures.keys().next().value as string);
  }

  clear(key: string): void {
    this.failures.delete(key);
  }
}

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

/**
 * The login policy: at most LOGIN_MAX_FAILURES_PER_USER failed logins per username (or email) and
 * LOGIN_MAX_FAILURES_PER_ADDRESS per client address within LOGIN_FAILURE_WINDOW_SECONDS (defaults 10,
 * 50, 15 minutes); past either, every login for that name or from that address is refused with
 * auth-10-4 until old failures leave the window, even with the right password. A success clears the
 * name's count (not the address's: one right password must not reset a spray from that address).
 *
 * Why not @nestjs/throttler: it counts every request, while this counts failures only (a user who
 * logs in often is never slowed), and it keys each limit by one tracker, while this keys one request
 * by two (name and address) that are known only after the body is read.
 */
export class LoginThrottle {
  private readonly byUser: FailureWindow;
  private readonly byAddress: FailureWindow;

  constructor(
    config: Pick<AppConfig, 'loginMaxFailuresPerUser' | 'loginMaxFailuresPerAddress' | 'loginFailureWindowSeconds'>,
    now: () => number = Date.now,
  ) {
    const windowMs = config.loginFailureWindowSeconds * 1000;
    this.byUser = new FailureWindow(config.loginMaxFailuresPerUser, windowMs, now);
    this.byAddress = new FailureWindow(config.loginMaxFailuresPerAddress, windowMs, now);
  }

  /** Usernames and emails compare case-insensitively here, so `Admin` and `admin` share one count. */
  private static user(name: string): string {
    return name.toLowerCase();
  }

  blocked(name: string, address: string | undefined): boolean {
    return this.byUser.blocked(LoginThrottle.user(name)) || (address !== undefined && this.byAddress.blocked(addressKey(address)));
  }

  failed(name: string, address: string | undefined): void {
    this.byUser.record(LoginThrottle.user(name));
    if (address !== undefined) this.byAddress.record(addressKey(address));
  }

  succeeded(name: string): void {
    this.byUser.clear(LoginThrottle.user(name));
  }
}
