import { untilAborted } from './until-aborted';

describe('untilAborted', () => {
  it("gives work's value or error when it settles first", async () => {
    const signal = new AbortController().signal;
    await expect(untilAborted(Promise.resolve(7), signal)).resolves.toBe(7);
    await expect(untilAborted(Promise.reject(new Error('no')), signal)).rejects.toThrow('no');
  });

  it('rejects with the abort reason when the signal fires first, though the work never settles', async () => {
    const controller = new AbortController();
    const waiting = untilAborted(new Promise<never>(() => undefined), controller.signal);
    controller.abort(new Error('its subject was deleted'));
    await expect(waiting).rejects.toThrow('its subject was deleted');
    const already = new AbortController();
    already.abort();
    await expect(untilAborted(new Promise<never>(() => undefined), already.signal)).rejects.toThrow();
  });
});
