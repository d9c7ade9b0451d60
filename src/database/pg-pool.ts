import { Pool, type ClientBase, type PoolConfig } from 'pg';

const ignore = (): void => undefined;

/**
 * Gives a connection an 'error' listener of its own for as long as it lives (pg-pool's `onConnect` hook, so from
 * before the pool first hands it out). node-postgres emits 'error' on a connection the server ends between queries
 * (a restart, pg_terminate_backend, DROP DATABASE ... WITH (FORCE)); pg-pool listens only while the connection is
 * idle in the pool, and a holder that does not listen meanwhile lets the event through as an uncaught exception,
 * which ends the process. TypeORM starts listening in a promise callback after the checkout: a new connection's
 * ReadyForQuery and the server's FATAL read in one chunk fell in between (a test of a dropped database lost a CI
 * run to it). With this listener the connection is only marked unusable: its holder's next query fails, and the
 * pool drops it when it is released; the pool's and TypeORM's own listeners still do what they do.
 */
export function keepConnectionErrors(client: ClientBase): void {
  client.on('error', ignore);
}

/**
 * A node-postgres pool whose connections never let an error through (keepConnectionErrors), nor the pool itself: a
 * connection lost while idle is dropped, and the query that would have used it opens another or fails.
 */
export function safePool(config: PoolConfig): Pool {
  const pool = new Pool({ ...config, onConnect: keepConnectionErrors });
  pool.on('error', ignore);
  return pool;
}

/** Runs `work` on a pool of one connection of its own to `databaseUrl` (an engine process's), ended after it. */
export async function withOwnConnection<T>(databaseUrl: string, work: (pool: Pool) => Promise<T>): Promise<T> {
  const pool = safePool({ connectionString: databaseUrl, max: 1 });
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}
