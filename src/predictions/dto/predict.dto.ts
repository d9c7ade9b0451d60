import { AllOf, Id, OneOf, PageOf, Type } from '../../common/api-schema';
import type { Fits, Static } from '../../common/api-schema';
import type { PredictionRow } from '../../engine/types';
import { Codes } from '../../common/error-codes';
import { ExplanationOf, SAMPLE_FIELDS, SCORE_FIELDS } from '../../analyses/dto/result.dto';
import { SubjectError, SubjectState } from '../../jobs/job-state';
import { ValidateBoolean, ValidateInt, ValidateText, ValidateTimes } from '../../common/validation';
import { ModelKey } from '../../engine/types';

export class PredictDto {
  @ValidateText('modelKey', {
    max: 100,
    code: Codes.ModelKeyNotFound,
    message: 'modelKey is not a model of the result',
    example: ModelKey.Best,
    description: 'a key of the models of the analysis result',
  })
  modelKey: string;

  @ValidateInt('signatureIndex', {
    optional: true,
    min: 0,
    default: 0,
    description: "index in the model's signatures (0 = the reference signature); every signature shown has its own fitted model",
  })
  signatureIndex?: number;

  @ValidateTimes('times', {
    optional: true,
    description:
      'survival models: the times at which each row gives the predicted survival probability (1 to 100 non-negative numbers; default: the quartiles of the training times)',
  })
  times?: number[];

  @ValidateBoolean('explain', {
    optional: true,
    default: false,
    description:
      "add to each row its explanation: the contribution of each feature the model reads and a base value, adding up to the model's output on the stated scale (docs/api-guide.md, Explanations)",
  })
  explain?: boolean;
}

export const PredictionRef = Type.Object({ predictionId: Id('the prediction started') }, { $id: 'PredictionRef' });
export type PredictionRef = Static<typeof PredictionRef>;

export const Prediction = Type.Object(
  {
    predictionId: Id('identifier'),
    analysisId: Id('the analysis whose model predicts'),
    datasetId: Id('the dataset predicted'),
    modelKey: Type.String(),
    signatureIndex: Type.Integer(),
    state: SubjectState,
  },
  { $id: 'Prediction' },
);
export type Prediction = Static<typeof Prediction>;

export const PredictionStatus = AllOf([Prediction, Type.Object({ error: Type.Optional(SubjectError) })], { $id: 'PredictionStatus' });
export type PredictionStatus = Static<typeof PredictionStatus>;

export const PredictionPage = PageOf('PredictionPage', Prediction, { analysisId: Id('echoed') });
export type PredictionPage = Static<typeof PredictionPage>;

/** One row of a prediction's result: the engine's PredictionRow, with the sample's id. */
export const PredictedRow = Type.Object({
  ...SAMPLE_FIELDS,
  prediction: OneOf([Type.String({ description: 'class label' }), Type.Number({ description: 'value or risk score' })]),
  ...SCORE_FIELDS,
  survival: Type.Optional(
    Type.Array(
      Type.Object({ time: Type.Number(), probability: Type.Number({ description: 'predicted probability of surviving past the time' }) }),
      {
        description:
          'survival models (Cox regression, random survival forests): at the times of the predict body, default the quartiles of the training times',
      },
    ),
  ),
  medianSurvivalTime: Type.Optional(
    Type.Number({
      description: 'survival models: the first training event time at which the predicted survival falls to 0.5 or below, when it does',
    }),
  ),
  explanation: Type.Optional(ExplanationOf('explain: true in the predict body: the Shapley values of the prediction')),
});
export type PredictedRow = Static<typeof PredictedRow>;
/** the engine's rows (engine/types.ts) are what this schema says, with the sample id */
export const ROWS_FIT: Fits<PredictionRow & { sampleId?: string }, PredictedRow> = true;

export const PredictionResult = Type.Object(
  {
    predictionId: Id('identifier'),
    analysisId: Id('analysis'),
    datasetId: Id('dataset'),
    modelKey: Type.String(),
    predictions: Type.Array(PredictedRow),
  },
  { $id: 'PredictionResult' },
);
export type PredictionResult = Static<typeof PredictionResult>;
