import { Codes } from '../../common/error-codes';
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
      "add to each row its explanation: the contribution of each feature the model reads and a base value, adding up to the model's output on the stated scale (README, Explanations)",
  })
  explain?: boolean;
}

export interface PredictionView {
  predictionId: string;
  analysisId: string;
  datasetId: string;
  modelKey: string;
  signatureIndex: number;
  state: string;
}
