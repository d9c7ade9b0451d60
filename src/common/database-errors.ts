/**
 * Whether an error says the database could not be reached, rather than that a statement was wrong: the pool had no
 * connection free within its wait (DB_POOL_WAIT_MS), a new connection could not be opened (the server down, restarting
 * or refusing), or the one in use was lost (the server ended it, or died under it). The request that met it may be
 * tried again (unavailable-1-0-1), and a job that met it did not fail: its worker lost the database.
 */
export function isDatabaseUnavailable(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  if (e instanceof DatabaseUnavailable) return true;
  const driver = (e as { driverError?: unknown }).driverError;
  if (driver instanceof Error && driver !== e && isDatabaseUnavailable(driver)) return true;
  const { code, syscall } = e as { code?: unknown; syscall?: unknown };
  if (typeof code === 'string' && (SQLSTATES.has(code) || code.startsWith('08'))) return true;
  // ENOENT of a connect only (a Unix-domain socket gone): the same code of a file is no database's
  if (typeof code === 'string' && SOCKET_CODES.has(code) && (code !== 'ENOENT' || syscall === 'connect')) return true;
  return MESSAGES.some((m) => e.message.startsWith(m));
}

/** A connection that could not be opened or was cut, as the OS says it. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOENT', 'EAI_AGAIN']);

/**
 * PostgreSQL's own: admin_shutdown (a fast stop, pg_terminate_backend), crash_shutdown (another backend crashed, or the
 * postmaster died), cannot_connect_now (starting or stopping), too_many_connections; class 08 is connection exceptions.
 */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** node-postgres and pg-pool, in their words (they set no code); 'Connection terminated' begins '... unexpectedly' and '... due to connection timeout'. */
const MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

/** The database could not be reached by an engine process (its own connection), as told to the service in words. */
export class DatabaseUnavailable extends Error {}

/** The error a service throws for a worker's WorkFailed (thread-task.ts): DatabaseUnavailable when it could not reach the database. */
export function workFailure(answer: { failed: string; unavailable: boolean }, what: string): Error {
  const why = `${what}: ${answer.failed}`;
  return answer.unavailable ? new DatabaseUnavailable(why) : new Error(why);
}
