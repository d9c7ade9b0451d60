import { Id, MapOf, OneOf, StringEnum, Type } from '../../common/api-schema';
import type { Fits, Static } from '../../common/api-schema';
import { ValidateRows } from '../../common/validation';
import type { ModelCard as EngineModelCard } from '../../engine';
import { AnalysisParameters, OUTCOME_FORMS } from '../../analyses/dto/analysis.dto';
import { PredictDto, PredictedRow } from './predict.dto';
import { SCORE_MAX_ROWS } from '../score-rows';

/** The body of a score call: the rows, with the fields of a predict body (the model, its signature, times, explain). */
export class ScoreDto extends PredictDto {
  @ValidateRows('rows', {
    max: SCORE_MAX_ROWS,
    description: `1 to ${SCORE_MAX_ROWS} rows, each an object of feature name -> value (a number, a category's text, or null where missing); keys the model does not read are ignored`,
    example: [{ mean_radius: 14.1, mean_texture: 19.3 }],
  })
  rows: Record<string, unknown>[];
}

export const ScoreResult = Type.Object(
  {
    analysisId: Id('the analysis whose model scored'),
    modelKey: Type.String(),
    signatureIndex: Type.Integer(),
    predictions: Type.Array(PredictedRow, { description: 'one per row sent, in their order (`row` is its index)' }),
  },
  { $id: 'ScoreResult' },
);
export type ScoreResult = Static<typeof ScoreResult>;

const Metric = Type.Object({
  estimate: Type.Number(),
  interval: Type.Optional(Type.Array(Type.Number(), { minItems: 2, maxItems: 2, description: '95% interval' })),
});

export const ModelCard = Type.Object(
  {
    analysisId: Type.Optional(Id('the analysis')),
    modelKey: Type.String(),
    signatureIndex: Type.Integer(),
    model: Type.Object({ description: Type.String(), preprocessing: Type.String(), featureSelection: Type.String() }),
    inputs: Type.Array(
      Type.Object({
        name: Type.String({ description: 'the dataset column, and the ONNX input of the same name' }),
        type: StringEnum(['numerical', 'categorical'] as const),
        levels: Type.Optional(Type.Array(Type.String(), { description: 'categorical: the levels known (any other is missing)' })),
        missing: Type.Object(
          {
            rule: StringEnum(['training mean', 'training mode'] as const),
            value: OneOf([Type.Number(), Type.String()]),
          },
          { description: 'how a missing value is filled' },
        ),
        standardization: Type.Optional(Type.Object({ center: Type.Number(), scale: Type.Number() })),
        referenceLevel: Type.Optional(Type.String()),
      }),
    ),
    outcome: Type.Object({
      task: StringEnum(['classification', 'regression', 'survival'] as const),
      columns: OneOf(OUTCOME_FORMS, { description: "the outcome's column(s) in the training dataset" }),
      classes: Type.Optional(Type.Array(Type.String())),
      positiveClass: Type.Optional(Type.String()),
      survivalTimes: Type.Optional(Type.Array(Type.Number())),
    }),
    metrics: MapOf(Metric, { description: 'by metric name: the estimate on new data with its 95% interval' }),
    pooledMetrics: Type.Optional(MapOf(Metric, { description: "the model's own pooled out-of-fold values" })),
    calibration: Type.Optional(
      Type.Object({
        logLoss: Type.Optional(Type.Number()),
        brier: Type.Number(),
        ece: Type.Number(),
        method: Type.Optional(StringEnum(['platt', 'temperature', 'isotonic'] as const)),
        uncalibrated: Type.Optional(Type.Object({ logLoss: Type.Optional(Type.Number()), brier: Type.Number(), ece: Type.Number() })),
        probabilityFloor: Type.Optional(Type.Number()),
      }),
    ),
    signature: Type.Array(Type.String()),
    equivalents: Type.Array(Type.Array(Type.String())),
    signatureCount: Type.Integer(),
    trainingSamples: Type.Optional(Type.Integer()),
    engine: Type.String(),
    parameters: AnalysisParameters,
  },
  { $id: 'ModelCard' },
);
export type ModelCard = Static<typeof ModelCard>;
/** the engine's card is what this schema says */
export const CARD_FITS: Fits<EngineModelCard<AnalysisParameters>, ModelCard> = true;
