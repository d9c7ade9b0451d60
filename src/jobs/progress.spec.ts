import { ThrottledProgress } from './progress';

describe('ThrottledProgress', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('writes the first report at once, holds later ones to one write per interval, and writes the last one held', async () => {
    const written: number[] = [];
    const p = new ThrottledProgress(async (f) => void written.push(f), 1000);
    p.report(0.1);
    p.report(0.2);
    p.report(0.3);
    expect(written).toEqual([0.1]);
    jest.advanceTimersByTime(999);
    expect(written).toEqual([0.1]);
    jest.advanceTimersByTime(1);
    expect(written).toEqual([0.1, 0.3]);
    jest.advanceTimersByTime(5000);
    p.report(0.9);
    expect(written).toEqual([0.1, 0.3, 0.9]);
  });

  it('writes nothing after stop, and ignores values that are not numbers', async () => {
    const written: number[] = [];
    const p = new ThrottledProgress(async (f) => void written.push(f), 1000);
    p.report(Number.NaN);
    p.report(0.5);
    p.report(0.6);
    p.stop();
    jest.advanceTimersByTime(2000);
    p.report(0.7);
    expect(written).toEqual([0.5]);
  });

  it('ignores a failed write', async () => {
    const p = new ThrottledProgress(() => Promise.reject(new Error('database down')), 1000);
    expect(() => p.report(0.5)).not.toThrow();
    await Promise.resolve();
  });
});
