import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';

/** A running upload touches its slot this often... */
export const SLOT_TOUCH_MS = 15_000;
/** ...so a slot untouched for this long was left by a killed process: it no longer counts. */
export const SLOT_LIVE_SECONDS = 60;

/** Gives a slot back, once (later calls do nothing). */
export type ReleaseSlot = () => Promise<void>;

/**
 * Uploads in progress per user (file uploads and image inits), at most MAX_UPLOADS_PER_USER across every API
 * process on the database: each holds a row of upload_slots while it runs. The row is counted and inserted under
 * a lock per user, touched every SLOT_TOUCH_MS, and deleted when the upload ends, however it ends.
 */
export class UploadSlots {
  constructor(
    private readonly db: DataSource,
    private readonly max: number,
    private readonly touchMs = SLOT_TOUCH_MS,
  ) {}

  /** Takes a slot, or throws tooMany-115-0-2 when the user's uploads already fill them. */
  async take(userId: string): Promise<ReleaseSlot> {
    const id: string = await this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`uploads:${userId}`]);
      await tx.query('DELETE FROM upload_slots WHERE touched_at < now() - make_interval(secs => $1)', [SLOT_LIVE_SECONDS]);
      const [{ n }] = await tx.query('SELECT count(*)::int AS n FROM upload_slots WHERE user_id = $1', [userId]);
      if (n >= this.max) {
        throw new ApiError(Codes.TooManyUploads, `at most ${this.max} uploads at once per user: retry when one has ended`);
      }
      const [slot] = await tx.query('INSERT INTO upload_slots (user_id) VALUES ($1) RETURNING id', [userId]);
      return String(slot.id);
    });
    const touch = setInterval(() => {
      this.db.query('UPDATE upload_slots SET touched_at = now() WHERE id = $1', [id]).catch(() => undefined);
    }, this.touchMs);
    touch.unref();
    let given = false;
    return async () => {
      if (given) return;
      given = true;
      clearInterval(touch);
      // if this fails (database gone), the row stops counting after SLOT_LIVE_SECONDS
      await this.db.query('DELETE FROM upload_slots WHERE id = $1', [id]).catch(() => undefined);
    };
  }
}
