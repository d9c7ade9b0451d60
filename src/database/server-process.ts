import * as fs from 'node:fs';
import * as path from 'node:path';

/** The processes of an embedded PostgreSQL, as /proc and its pid file tell them (embedded-postgres.ts and its supervisor). */

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * When the process `pid` started (clock ticks since boot, from /proc), or undefined where /proc is absent.
 * Stored beside a pid so that a pid reused by an unrelated process (common in containers, where every
 * start gets the same small pids) is not mistaken for the one that wrote it.
 */
export function startTimeOf(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime); fields are counted after the command name, which is in parentheses.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** The live server of a data directory, from its postmaster.pid (line 1: pid, line 4: port). */
export function runningServer(pgDir: string): { pid: number; port: number } | undefined {
  const file = path.join(pgDir, 'postmaster.pid');
  if (!fs.existsSync(file)) return undefined;
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || !alive(pid)) return undefined;
  // A stale pid file whose pid now belongs to another program (after a reboot or in a new container) is
  // no server: never signal that process. Where /proc is absent, trust the pid file.
  if (pid === process.pid || commandOf(pid) === 'other') return undefined;
  return { pid, port };
}

/** Whether `pid` runs the `postgres` program ('postgres'), another one ('other'), or cannot be told. */
function commandOf(pid: number): 'postgres' | 'other' | undefined {
  try {
    const argv0 = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
    return path.basename(argv0) === 'postgres' ? 'postgres' : 'other';
  } catch {
    return undefined;
  }
}

export async function waitUntil(test: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}
