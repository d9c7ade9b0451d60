import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

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
