import { DatasetDescription, DatasetName } from '../datasets/dto/dataset.dto';
import { MAX_TEXT_LENGTH } from '../common/text';
import { ValidateBoolean, ValidateId, ValidateText } from '../common/validation';

/** The fields of an image add besides its file. */
export class ImageAddFieldsDto {
  @ValidateText('sampleId', { max: MAX_TEXT_LENGTH, message: 'sampleId must be a single string' })
  sampleId: string;
}

/** The `attributes` part of an image upload init (a JSON string in the multipart form). */
export class ImageInitAttributesDto {
  @ValidateId('projectId', { description: 'project to hold the dataset (write permission); a positive integer' })
  projectId: number | string;

  @DatasetName()
  name: string;

  @DatasetDescription()
  description?: string;

  @ValidateBoolean('hasFeatureHeaders', { optional: true, default: true, description: 'whether the first row of the file is a header row' })
  hasFeatureHeaders?: boolean;
}
