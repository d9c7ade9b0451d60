import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import * as queries from './datasets.queries';

/** A running upload touches its slot this often... */
export const SLOT_TOUCH_MS = 15_000;
/** ...so a slot untouched for this long was left by a killed process: it no longer counts. */
export const SLOT_LIVE_SECONDS = 60;

/** One upload in progress: its row in upload_slots. */
export interface UploadSlot {
  id: string;
  /** 0 to MAX_UPLOADS_PER_USER - 1, unique per user: a row keyed by it is written by no other upload of the user. */
  lane: number;
  /** Gives the slot back, once (later calls do nothing). */
  release: () => Promise<void>;
  /**
   * Says that a statement of the upload deleted the slot's row as it committed (an image add's write): the slot is
   * no longer touched, and release does nothing.
   */
  ended: () => void;
}

/**
 * Uploads in progress per user (file uploads, image inits and adds), at most MAX_UPLOADS_PER_USER across every API
 * process on the database: each holds a row of upload_slots while it runs, in a lane of its own (0 to
 * MAX_UPLOADS_PER_USER - 1, unique per user: the table's key), touched every SLOT_TOUCH_MS and deleted when the
 * upload ends, however it ends. The table is unlogged: a slot is worth nothing after a crash (its process is gone),
 * so taking and giving one back never waits for a disk flush.
 */
export class UploadSlots {
  constructor(
    private readonly db: DataSource,
    private readonly max: number,
    private readonly touchMs = SLOT_TOUCH_MS,
  ) {}

  /**
   * Takes a slot, or throws tooMany-115-0-2 when the user's uploads already fill them. One statement takes a free
   * lane; when two uploads take the same one at once, the key lets one have it and the other looks again.
   */
  async take(userId: string): Promise<UploadSlot> {
    let swept = false;
    // the lanes from a random one on: uploads that start together mostly look at different lanes first (from the
    // lowest, a quarter of the adds of four clients in flight took a lane another had just taken, and looked again)
    const first = Math.floor(Math.random() * this.max);
    const lanes = Array.from({ length: this.max }, (_, k) => (first + k) % this.max);
    for (let attempt = 0; ; attempt++) {
      const row = await queries.takeSlot(this.db, userId, lanes);
      if (row.id !== null) return this.held(String(row.id), Number(row.lane));
      // another upload took the lane first: look again (each time, one more lane has been taken)
      if (row.free && attempt < this.max + 2) continue;
      // every lane is held, by live uploads or by the rows of killed processes: these go, then one more look
      if (swept) break;
      await queries.deleteStaleSlots(this.db, SLOT_LIVE_SECONDS);
      swept = true;
    }
    throw new ApiError(Codes.TooManyUploads, `at most ${this.max} uploads at once per user: retry when one has ended`);
  }

  /** The slot `id`, touched while it is held. */
  private held(id: string, lane: number): UploadSlot {
    const touch = setInterval(() => {
      queries.touchSlot(this.db, id).catch(() => undefined);
    }, this.touchMs);
    touch.unref();
    let given = false;
    const ended = () => {
      given = true;
      clearInterval(touch);
    };
    const release = async () => {
      if (given) return;
      ended();
      // if this fails (database gone), the row stops counting after SLOT_LIVE_SECONDS
      await queries.deleteSlot(this.db, id).catch(() => undefined);
    };
    return { id, lane, release, ended };
  }
}
