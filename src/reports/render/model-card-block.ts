import { dataTable } from './chart-frame';
import { count, num } from './format';
import { markup, Markup } from './html';
import type { ReportData, ReportModel } from './report-data';
import { facts } from './report-parts';

/** Levels listed in a row of the inputs' table; more are counted. */
const SHOWN_LEVELS = 12;

/** A model's card as the report shows it: what it reads, how a missing value is filled, where its ONNX file and card are. */
export function modelCardBlock(data: ReportData, m: ReportModel): Markup {
  const card = m.card;
  if (!card) return markup``;
  const rows = card.inputs.map((i) => [
    i.name,
    i.type,
    i.levels
      ? i.levels.slice(0, SHOWN_LEVELS).join(', ') + (i.levels.length > SHOWN_LEVELS ? ` and ${i.levels.length - SHOWN_LEVELS} more` : '')
      : '',
    `the training ${i.missing.rule === 'training mean' ? 'mean' : 'mode'}, ${typeof i.missing.value === 'number' ? num(i.missing.value) : i.missing.value}`,
  ]);
  const base = `${data.origin}/api/public/v1/analysis/${data.analysisId}`;
  return markup`<h3>Model card</h3>
    <p class="note">
      What the model of the reference signature reads; a value of a level it never saw counts as missing. The same card, as JSON, is at
      <code>GET ${base}/modelCard?modelKey=${m.key}</code> and inside the model's ONNX file (<code>GET ${base}/model?modelKey=${m.key}&amp;format=onnx</code>),
      and <code>POST ${base}/score</code> scores up to 1,000 rows in one call.
    </p>
    ${dataTable('The inputs', ['Input', 'Type', 'Levels', 'A missing value is'], rows)}
    ${facts([
      ...(card.trainingSamples !== undefined ? [['Training samples', count(card.trainingSamples)] as const] : []),
      ['Engine', card.engine],
      ...(card.outcome.survivalTimes ? [['Survival predicted at', card.outcome.survivalTimes.map(num).join(', ')] as const] : []),
    ])}`;
}
