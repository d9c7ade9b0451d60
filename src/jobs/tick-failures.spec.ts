import { Logger } from '@nestjs/common';
import { MAX_TICK_BACKOFF_MS, TickFailures } from './tick-failures';

/** A logger that keeps its lines: [level, text]. */
function recorder(): { logger: Logger; lines: [string, string][] } {
  const lines: [string, string][] = [];
  const logger = {
    log: (m: string) => lines.push(['log', m]),
    warn: (m: string) => lines.push(['warn', m]),
    error: (m: string) => lines.push(['error', m]),
  } as unknown as Logger;
  return { logger, lines };
}

describe('TickFailures: a runner whose ticks fail (issue 41, finding 4: "job tick failed" at error twice a second)', () => {
  afterEach(() => jest.useRealTimers());

  it('waits longer after each failure, up to MAX_TICK_BACKOFF_MS, and says so once, then once a minute, then when it ends', () => {
    jest.useFakeTimers({ now: 0 });
    const { logger, lines } = recorder();
    const ticks = new TickFailures(logger, 500);
    const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:54329'), { code: 'ECONNREFUSED', syscall: 'connect' });
    expect(ticks.waiting()).toBe(false);
    const waits: number[] = [];
    // two minutes of an unreachable database: a tick whenever the runner may
    for (let t = 0; t <= 120_000; t += 100) {
      jest.setSystemTime(t);
      if (ticks.waiting()) continue;
      if (waits.length) waits.push(t - waits.reduce((a, b) => a + b, 0));
      else waits.push(t);
      ticks.failed(down);
    }
    // 1 s, 2 s, 4 s, 8 s, then 10 s between ticks
    expect(waits.slice(1, 7)).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000]);
    expect(Math.max(...waits.slice(1))).toBe(MAX_TICK_BACKOFF_MS);
    // two minutes, two lines (at the start and a minute in), where the runner wrote one every 500 ms
    expect(lines.map(([level]) => level)).toEqual(['warn', 'warn']);
    expect(lines[0][1]).toBe(
      'the database cannot be reached: workers wait, trying again every 10 s at most: connect ECONNREFUSED 127.0.0.1:54329',
    );
    expect(lines[1][1]).toMatch(/^the database cannot be reached \(failing for 6\d s\)/);
    ticks.succeeded();
    expect(lines[2]).toEqual(['log', expect.stringMatching(/^job ticks succeed again after 1[12]\d s \(\d+ failed\): workers resume$/)]);
    expect(ticks.waiting()).toBe(false);
    ticks.succeeded();
    expect(lines).toHaveLength(3);
  });

  it('logs a failure that is not the database at error level', () => {
    const { logger, lines } = recorder();
    new TickFailures(logger, 500).failed(new Error('job 7 is of kind x, which is not registered here'));
    expect(lines).toEqual([['error', 'job tick failed: job 7 is of kind x, which is not registered here']]);
  });
});
