import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ApiError } from './api-error';
import { Codes } from './error-codes';

const logger = new Logger('Uploads');

/** The errors of a disk with no room left (or the user's quota of it). */
const DISK_FULL = new Set(['ENOSPC', 'EDQUOT']);

/**
 * What a request answers when the spool file of its body cannot be written, logged at error level for the operator: a
 * full disk is the service's, not a malformed body (it answered badRequest-1-0-4 and logged nothing: issue 41,
 * finding 10), so the client reads unavailable-1-0-1 (try again later); any other failure of the disk is a fault of
 * the service (HTTP 500, its correlation id in the log).
 */
export function spoolFailure(e: unknown, spoolFile: string): Error {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const reason = e instanceof Error ? e.message : String(e);
  logger.error({ msg: 'an upload could not be spooled', event: 'upload.spoolFailed', code, reason, file: spoolFile });
  if (code && DISK_FULL.has(code)) {
    return new ApiError(Codes.ServiceBusy, 'the service has no room to receive the upload now: try again later');
  }
  return new Error(`the spool file ${spoolFile} could not be written: ${reason}`);
}

/**
 * Spool files (request bodies on their way in: image init files, image adds) are named
 * `<kind>-<pid>-<uuid>`: the process that writes one removes it when its request ends, and a process that
 * starts removes those whose writer is gone (kill -9 left them behind).
 */
export function spoolPath(dir: string, kind: string): string {
  return path.join(dir, `${kind}-${process.pid}-${randomUUID()}`);
}

/** Whether process `pid` is gone: no such process, or a zombie (kill(pid, 0) succeeds on one). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'EPERM';
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return /^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

/**
 * Removes the spool files left by processes that are gone, and any untouched for `staleMs` (a body being
 * spooled is written at least every UPLOAD_IDLE_TIMEOUT_SECONDS, or cut; a pid may have been reused). Returns how many.
 */
export function sweepSpool(dir: string, staleMs: number): number {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0; // no spool directory yet
  }
  let removed = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    const pid = Number(/^[a-z]+-(\d+)-/.exec(name)?.[1]);
    let stale = Number.isInteger(pid) && pid > 0 && pid !== process.pid && gone(pid);
    try {
      stale ||= Date.now() - fs.statSync(file).mtimeMs > staleMs;
      if (stale) {
        fs.rmSync(file, { force: true });
        removed++;
      }
    } catch {
      // removed meanwhile
    }
  }
  return removed;
}
