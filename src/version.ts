import * as pkg from '../package.json';
import { mlEngine } from './engine/version';

/** The service's version (package.json). */
export const SERVICE_VERSION: string = pkg.version;

/** `signet-engine <semver>`, the `mlEngine` of results: the engine owns its version. */
export const ENGINE_VERSION_STRING: string = mlEngine();
