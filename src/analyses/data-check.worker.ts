import { toEngineColumn } from '../datasets/column-codec';
import { MAX_LEVEL_TEXT, receivePacked, ReceivedColumn } from '../datasets/packed-stream.worker';
import { validateAnalysisInput } from '../engine/data';
import type { AnalysisParameters, EngineColumn } from '../engine/types';

/** The data check's own settings: the other columns by type only, and the parameters. */
export interface DataCheckSettings {
  typesOnly: EngineColumn[];
  parameters: AnalysisParameters;
}

/** validateAnalysisInput on the outcome and grouping columns as they were sent (data-check.ts). */
function check(sampleCount: number, received: ReceivedColumn[], { typesOnly, parameters }: DataCheckSettings): string[] {
  const tooMany = received.filter((c) => c.encoding === 'dict' && !c.levels);
  if (tooMany.length) {
    return tooMany.map(
      (c) =>
        `The column "${c.name}" has too many distinct values (over ${MAX_LEVEL_TEXT / 2 ** 20} MB of labels) to be an outcome or a grouping feature`,
    );
  }
  const columns = received.map((c) => toEngineColumn(c));
  return validateAnalysisInput({ sampleCount, columns: [...columns, ...typesOnly] }, parameters);
}

receivePacked(check);
