import * as pkg from '../package.json';

/** The service's version (package.json). */
export const SERVICE_VERSION: string = pkg.version;

/** `signet-engine <semver>`, the `mlEngine` of results; the engine owns its version. */
export const ENGINE_VERSION_STRING = 'signet-engine 0.1.0';
