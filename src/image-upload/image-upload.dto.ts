import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsOptional } from 'class-validator';
import { DatasetDescription, DatasetName } from '../datasets/dto/dataset.dto';
import { Codes } from '../common/error-codes';
import { code } from '../common/validation';

/** The `attributes` part of an image upload init (a JSON string in the multipart form). */
export class ImageInitAttributesDto {
  @ApiProperty({ description: 'project to hold the dataset (write permission); a positive integer' })
  @IsDefined(code(Codes.MissingField, 'projectId is required'))
  projectId: number | string;

  @DatasetName()
  name: string;

  @DatasetDescription()
  description?: string;

  @ApiPropertyOptional({ default: true, description: 'whether the first row of the file is a header row' })
  @IsOptional()
  @IsBoolean(code(Codes.WrongType, 'hasFeatureHeaders must be a boolean'))
  hasFeatureHeaders?: boolean;
}

/** One uploaded part as multer (memory storage) gives it. */
export interface UploadedPart {
  buffer: Buffer;
  size: number;
  originalname: string;
  mimetype: string;
}

export interface UploadedParts {
  file?: UploadedPart[];
}

export interface ImageTaskView {
  taskId: string;
  state: string;
  datasetId?: string;
  error?: { code: string; message: string };
}
