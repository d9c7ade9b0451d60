/** The path every route of the public API is under (api-v1): `/api/public/v1/...`. */
export const API_PREFIX = 'api/public/v1';
