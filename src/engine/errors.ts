/** Raised for input the engine cannot analyze or predict on; `detail` says what is wrong. */
export class EngineInputError extends Error {
  readonly detail: string;

  constructor(detail: string) {
    super(detail);
    this.name = 'EngineInputError';
    this.detail = detail;
  }
}

/** Rejection reason of a cancelled analysis. */
export class EngineAbortError extends Error {
  constructor(message = 'The analysis was cancelled') {
    super(message);
    this.name = 'AbortError';
  }
}
