/**
 * The client's errors. `SignetError`: the service answered, and refused (an error envelope with its API code,
 * HTTP 403/404/500, or a task, analysis or prediction that failed). `SignetNetworkError` (a SignetError too):
 * no answer came, with the reason.
 */
export class SignetError extends Error {
  override readonly name: string = 'SignetError';
  /** The HTTP status of the answer (200 for an error envelope); undefined when no answer came. */
  readonly httpStatus: number | undefined;
  constructor(
    /** The API's error code (`notFound-120-2-3`, ...); `http-<status>` for a 403/404/500; `network` when no answer came. */
    readonly code: string,
    message: string,
    /** The operation that failed, e.g. `POST login` or `GET /api/public/v1/project/7`. */
    readonly operation: string,
    /** The HTTP status of the answer; null when no answer came. */
    httpStatus: number | null = 200,
    options?: { cause?: unknown },
  ) {
    super(`${operation}: ${code}: ${message}`, options);
    this.httpStatus = httpStatus ?? undefined;
  }
}

/** Why no answer came. */
export type NetworkFailure =
  /** nothing listens at the address (ECONNREFUSED): is the service running, on that port? */
  | 'refused'
  /** the host name does not resolve (ENOTFOUND, EAI_AGAIN) */
  | 'dns'
  /** the connection was closed or reset before the answer was complete (ECONNRESET, EPIPE, a closed socket) */
  | 'reset'
  /** no connection or no answer in time: the client's `timeoutMs`, or the connect/headers/body timeouts of fetch */
  | 'timeout'
  /** the caller's AbortSignal stopped the request */
  | 'aborted'
  /** anything else fetch reports (a TLS failure, an unreachable network, ...) */
  | 'other';

const REASONS: Record<string, NetworkFailure> = {
  ECONNREFUSED: 'refused',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EAI_NONAME: 'dns',
  EAI_FAIL: 'dns',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  ECONNABORTED: 'reset',
  UND_ERR_SOCKET: 'reset',
  UND_ERR_CLOSED: 'reset',
  ETIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
};

const SAID: Record<NetworkFailure, string> = {
  refused: 'connection refused: is the service running at this address and port?',
  dns: 'the host name does not resolve',
  reset: 'the connection was closed before the answer was complete',
  timeout: 'no answer in time',
  aborted: 'the request was aborted',
  other: 'the request failed',
};

/** No answer came from the service: `reason` says why, `url` where it was sent; the error fetch threw is the `cause`. */
export class SignetNetworkError extends SignetError {
  override readonly name: string = 'SignetNetworkError';
  constructor(
    readonly reason: NetworkFailure,
    operation: string,
    readonly url: string,
    /** The system's code (ECONNREFUSED, UND_ERR_SOCKET, ...) when there is one. */
    readonly systemCode: string | undefined,
    cause: unknown,
  ) {
    const detail = systemCode ?? (reason === 'other' ? innermostMessage(cause) : undefined);
    super('network', `no answer from ${new URL(url).origin}: ${SAID[reason]}${detail ? ` (${detail})` : ''}`, operation, null, { cause });
  }
}

/** The message of the deepest cause (fetch's own message, "fetch failed", says nothing). */
function innermostMessage(e: unknown): string | undefined {
  let message: string | undefined;
  for (let depth = 0; e && typeof e === 'object' && depth < 6; depth++) {
    if (typeof (e as { message?: unknown }).message === 'string') message = (e as { message: string }).message;
    e = (e as { cause?: unknown }).cause;
  }
  return message;
}

/** The first `code` along an error's causes (fetch's TypeError -> undici's error -> the socket's, or an AggregateError's errors). */
function systemCodeOf(e: unknown, depth = 0): string | undefined {
  if (!e || typeof e !== 'object' || depth > 5) return undefined;
  const { code, cause, errors } = e as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && code) return code;
  for (const inner of Array.isArray(errors) ? errors : []) {
    const found = systemCodeOf(inner, depth + 1);
    if (found) return found;
  }
  return systemCodeOf(cause, depth + 1);
}

/**
 * What fetch threw, as a SignetNetworkError; undefined for an error that is not about the network (a bug, a
 * SignetError already). `timedOut`: the client's own timeout fired.
 */
export function networkError(e: unknown, operation: string, url: string, timedOut = false): SignetNetworkError | undefined {
  if (e instanceof SignetError) return undefined;
  const name = (e as { name?: unknown } | null)?.name;
  const code = systemCodeOf(e);
  if (timedOut || name === 'TimeoutError') return new SignetNetworkError('timeout', operation, url, code, e);
  if (name === 'AbortError') return new SignetNetworkError('aborted', operation, url, code, e);
  // fetch rejects with a TypeError for every network failure: "fetch failed", or "terminated" while a body streams
  // (by name: fetch's errors may come from another realm than this module's TypeError, as under jest)
  const fetchFailed = name === 'TypeError' && /^(fetch failed|terminated)$/.test(String((e as { message?: unknown }).message));
  if (!fetchFailed && !(code && REASONS[code])) return undefined;
  return new SignetNetworkError((code && REASONS[code]) || 'other', operation, url, code, e);
}
