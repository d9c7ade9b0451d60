/** Semantic version of the engine; bump when results for the same input and seed may change. */
export const ENGINE_VERSION = '0.3.2';

/** The result's `mlEngine` string. */
export function mlEngine(): string {
  return `signet-engine ${ENGINE_VERSION}`;
}
