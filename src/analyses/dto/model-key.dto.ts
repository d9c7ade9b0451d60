import { Codes } from '../../common/error-codes';
import { ValidateText } from '../../common/validation';
import { ModelKey } from '../../engine/types';

/** The model of a result a route reads (query string). */
export class ModelKeyDto {
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
