import type { FeatureType } from '../engine/types';
import { impossibleType } from './column-codec';
import { MAX_LEVEL_TEXT, receivePacked, ReceivedColumn } from './packed-stream.worker';

/** The type each column sent is to take. */
export interface TypeCheckSettings {
  types: Record<string, FeatureType>;
}

/** Why the first column cannot take its type (column-codec.ts, impossibleType), or null when all can. */
function check(_sampleCount: number, received: ReceivedColumn[], { types }: TypeCheckSettings): string | null {
  for (const c of received) {
    const type = types[c.name];
    if (c.encoding === 'dict' && !c.levels) {
      return `"${c.name}" has too many distinct values (over ${MAX_LEVEL_TEXT / 2 ** 20} MB of labels) to be checked as ${type}`;
    }
    const why = impossibleType({ ...c, distinctCount: 0 }, type);
    if (why) return why;
  }
  return null;
}

receivePacked(check);
