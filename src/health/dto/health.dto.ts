import { StringEnum, Type } from '../../common/api-schema';
import type { Static } from '../../common/api-schema';

export const Version = Type.Object(
  { version: Type.String({ description: 'service version' }), mlEngine: Type.String({ description: 'analysis engine and its version' }) },
  { $id: 'Version' },
);
export type Version = Static<typeof Version>;

/** The answer of the health checks, without an envelope (readiness also with HTTP 503). */
export const Health = Type.Object(
  { status: StringEnum(['ok', 'unavailable']), database: Type.Optional(StringEnum(['ok', 'unreachable'])) },
  { $id: 'Health' },
);
export type Health = Static<typeof Health>;
