import { Id, Type } from '../../common/api-schema';
import type { Static } from '../../common/api-schema';
import { Codes } from '../../common/error-codes';
import { PLOT_KINDS } from '../../engine/plots';
import { FEATURE_IMPORTANCE } from '../../engine/plots/feature-importance';
import type { ModelPlots } from '../../engine/plots';
import { ValidateText } from '../../common/validation';
import { ModelKey } from '../../engine/types';

/** What the plot routes of one model read, from the query string (GET) or the JSON body (POST). */
export class ModelPlotsDto {
  @ValidateText('modelKey', {
    min: 1,
    max: 100,
    code: Codes.ModelKeyNotFound,
    message: 'modelKey is not a model of the result',
    example: ModelKey.Best,
    description: 'a key of the models of the analysis result',
  })
  modelKey: string;
}

/** One plot of one model. */
export class OnePlotDto extends ModelPlotsDto {
  @ValidateText('plotKey', {
    min: 1,
    max: 100,
    code: Codes.PlotKeyNotFound,
    message: 'plotKey is not a plot of that model: see availablePlots',
    example: FEATURE_IMPORTANCE.name,
    description: 'one of the names availablePlots gives for the model',
  })
  plotKey: string;
}

/**
 * `Plot`: one plot by its name, each name's value the schema its kind declares (the engine's plot registry, whose
 * kinds are components of the document under their schemaName).
 */
export const Plot = Type.Unsafe<ModelPlots>({
  type: 'object',
  properties: Object.fromEntries(PLOT_KINDS.map((k) => [k.name, { ...k.schema, $id: k.schemaName }])),
  description: 'plot name -> plot values (more plot names may be added)',
  $id: 'Plot',
});
export type Plot = Static<typeof Plot>;

export const AvailablePlots = Type.Object(
  { analysisId: Id('echoed'), modelKey: Type.String({ description: 'echoed' }), plots: Type.Array(Type.String()) },
  { $id: 'AvailablePlots' },
);
export type AvailablePlots = Static<typeof AvailablePlots>;

export const PlotOne = Type.Object(
  { analysisId: Id('echoed'), modelKey: Type.String({ description: 'echoed' }), plot: Plot },
  { $id: 'PlotOne' },
);
export type PlotOne = Static<typeof PlotOne>;

export const PlotAll = Type.Object(
  { analysisId: Id('echoed'), modelKey: Type.String({ description: 'echoed' }), plots: Type.Array(Plot) },
  { $id: 'PlotAll' },
);
export type PlotAll = Static<typeof PlotAll>;
