import { Codes } from '../../common/error-codes';
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
    example: 'Feature Importance',
    description: 'one of the names availablePlots gives for the model',
  })
  plotKey: string;
}
