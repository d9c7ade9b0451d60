import { addressKey, FailureWindow, LoginThrottle } from './login-throttle';

describe('FailureWindow', () => {
  it('blocks a key at `max` failures inside the window and forgets failures older than it', () => {
    let now = 1_000_000;
    const w = new FailureWindow(3, 60_000, () => now);
    w.record('a');
    now += 10_000;
    w.record('a');
    expect(w.blocked('a')).toBe(false);
    w.record('a');
    expect(w.blocked('a')).toBe(true);
    expect(w.blocked('b')).toBe(false);
    now += 50_001; // the first failure leaves the window
    expect(w.count('a')).toBe(2);
    expect(w.blocked('a')).toBe(false);
    w.clear('a');
    expect(w.count('a')).toBe(0);
  });

  it('keeps at most maxKeys keys, forgetting the least recently failed', () => {
    const w = new FailureWindow(1, 60_000, () => 0, 2);
    w.record('a');
    w.record('b');
    w.record('a');
    w.record('c');
    expect([w.count('a'), w.count('b'), w.count('c')]).toEqual([1, 0, 1]);
  });
});

describe('LoginThrottle', () => {
  const config = { loginMaxFailuresPerUser: 2, loginMaxFailuresPerAddress: 3, loginFailureWindowSeconds: 60 };

  it('limits per name (case-insensitive) and per address; a success clears the name only', () => {
    let now = 0;
    const t = new LoginThrottle(config, () => now);
    t.failed('Alice', '10.0.0.1');
    expect(t.blocked('alice', '10.0.0.9')).toBe(false);
    t.failed('alice', '10.0.0.2');
    expect(t.blocked('ALICE', '10.0.0.9')).toBe(true);
    t.succeeded('alice');
    expect(t.blocked('alice', '10.0.0.9')).toBe(false);

    t.failed('bob', '10.0.0.5');
    t.failed('carol', '10.0.0.5');
    expect(t.blocked('dave', '10.0.0.5')).toBe(false);
    t.failed('erin', '10.0.0.5');
    expect(t.blocked('dave', '10.0.0.5')).toBe(true);
    expect(t.blocked('dave', '10.0.0.6')).toBe(false);
    now += 60_001;
    expect(t.blocked('dave', '10.0.0.5')).toBe(false);
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

  it('counts every address of one /64 as one client', () => {
    const t = new LoginThrottle({ loginMaxFailuresPerUser: 100, loginMaxFailuresPerAddress: 2, loginFailureWindowSeconds: 60 }, () => 0);
    t.failed('a', '2001:db8:1:2::1');
    t.failed('b', '2001:db8:1:2::2');
    expect(t.blocked('c', '2001:db8:1:2:ffff::9')).toBe(true);
    expect(t.blocked('c', '2001:db8:1:3::1')).toBe(false);
  });
});
