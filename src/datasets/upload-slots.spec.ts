import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../database/database';
import { freshDatabase } from '../../test/utils';
import { ApiError } from '../common/api-error';
import { rows } from '../database/sql';
import { SLOT_LIVE_SECONDS, UploadSlots } from './upload-slots';

describe('UploadSlots (in PostgreSQL, shared by every API process)', () => {
  let db: DataSource;
  let users: string[];
  const slotCount = async (userId: string): Promise<number> =>
    (await rows<{ n: number }>(db, 'SELECT count(*)::int AS n FROM upload_slots WHERE user_id = $1', [userId]))[0].n;
  const age = (seconds: number) => db.query(`UPDATE upload_slots SET touched_at = touched_at - make_interval(secs => $1)`, [seconds]);
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => (e instanceof ApiError ? e.code : e),
    );

  beforeAll(async () => {
    db = new DataSource(dataSourceOptions(await freshDatabase()));
    await db.initialize();
    users = [];
    for (const name of ['alice', 'bob']) {
      const [row] = await rows<{ id: string }>(db, `INSERT INTO users (username, password_hash) VALUES ($1, 'x') RETURNING id`, [name]);
      users.push(String(row.id));
    }
  });
  afterAll(() => db.destroy());
  beforeEach(() => db.query('DELETE FROM upload_slots'));

  it('bounds the slots per user across instances (two processes see one count); a release frees one, once', async () => {
    const [alice, bob] = users;
    const first = new UploadSlots(db, 2);
    const second = new UploadSlots(db, 2);
    const a1 = await first.take(alice);
    const a2 = await second.take(alice);
    expect(await refusal(first.take(alice))).toBe('tooMany-115-0-2');
    expect(await refusal(second.take(alice))).toBe('tooMany-115-0-2');
    const b1 = await second.take(bob); // other users are not affected
    await a1.release();
    await a1.release(); // a second call gives back nothing more
    expect(await slotCount(alice)).toBe(1);
    const a3 = await second.take(alice);
    // alice's two lanes are 0 and 1, whichever each took first; the lane a1 gave back is taken again; bob's are his own
    expect([a1.lane, a2.lane].sort()).toEqual([0, 1]);
    expect(a3.lane).toBe(a1.lane);
    expect([0, 1]).toContain(b1.lane);
    expect(await refusal(first.take(alice))).toBe('tooMany-115-0-2');
    await Promise.all([a2.release(), a3.release(), b1.release()]);
    expect(await slotCount(alice)).toBe(0);
  });

  it('takes exactly the limit when many ask at once, each in a lane of its own', async () => {
    const slots = new UploadSlots(db, 3);
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => slots.take(users[0])));
    const taken = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    expect(taken.map((s) => s.lane).sort()).toEqual([0, 1, 2]);
    expect(await slotCount(users[0])).toBe(3);
    for (const o of outcomes) if (o.status === 'fulfilled') await o.value.release();
  });

  it('needs no disk flush: the table is unlogged (a slot means nothing after a crash)', async () => {
    const [{ persistence }] = await rows<{ persistence: string }>(
      db,
      `SELECT relpersistence AS persistence FROM pg_class WHERE relname = 'upload_slots'`,
    );
    expect(persistence).toBe('u');
  });

  it("stops counting a slot untouched for SLOT_LIVE_SECONDS (a killed process's), and deletes it", async () => {
    const slots = new UploadSlots(db, 1);
    await slots.take(users[0]); // never released: its process "died" (and the touch is stopped below)
    await age(SLOT_LIVE_SECONDS + 1);
    const next = await new UploadSlots(db, 1).take(users[0]);
    expect(await slotCount(users[0])).toBe(1);
    await next.release();
  });

  it('keeps a running upload counted by touching its slot', async () => {
    const slots = new UploadSlots(db, 1, 20);
    const slot = await slots.take(users[0]);
    await age(SLOT_LIVE_SECONDS + 1);
    await new Promise((r) => setTimeout(r, 200)); // a touch brings it back to now
    expect(await refusal(slots.take(users[0]))).toBe('tooMany-115-0-2');
    await slot.release();
  });
});
