import { ERROR_CODES, ErrorCode } from './error-codes';

/** A domain error that reaches the client as `{ code, message, status: "error" }` with HTTP 200. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message?: string,
  ) {
    super(message ?? ERROR_CODES[code]);
    this.name = 'ApiError';
  }
}
