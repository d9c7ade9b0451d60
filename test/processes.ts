import * as fs from 'node:fs';

/** What the tests that start the service as a process of its own share: waiting on it, finding its processes, its database. */

/** Polls `probe` every 50 ms until it gives a value (a throw counts as none); throws after `ms`, naming `what`. */
export async function waitFor<T>(probe: () => Promise<T | undefined>, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Pids of the processes whose command line contains `needle` (Linux /proc), with their parent pid. */
export function processes(needle: string, unless?: string): { pid: number; ppid: number }[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((pid) => {
      try {
        const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (!argv.includes(needle) || (unless && argv.split('\0').includes(unless))) return [];
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return [{ pid: Number(pid), ppid }];
      } catch {
        return [];
      }
    });
}

/** The PostgreSQL processes of a data directory (its `pg` folder). */
export const postgresOf = (pgDir: string): number[] => processes(`\0-D\0${pgDir}`).map((p) => p.pid);

export { queryOnce } from '../bench/server';
