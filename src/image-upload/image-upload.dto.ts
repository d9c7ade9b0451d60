import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { Codes } from '../common/error-codes';
import { code } from '../common/validation';

/** The `attributes` part of an image upload init (a JSON string in the multipart form). */
export class ImageInitAttributesDto {
  @ApiProperty({ description: 'project to hold the dataset (write permission); a positive integer' })
  @IsDefined(code(Codes.MissingField, 'projectId is required'))
  projectId: number | string;

  @ApiProperty({ minLength: 3, maxLength: 60 })
  @IsDefined(code(Codes.MissingField, 'name is required'))
  @IsString(code(Codes.WrongType, 'name must be a string'))
  @Length(3, 60, code(Codes.DatasetNameLength, 'name must be 3 to 60 characters'))
  name: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @IsOptional()
  @IsString(code(Codes.WrongType, 'description must be a string'))
  @MaxLength(255, code(Codes.DatasetDescriptionLength, 'description must be at most 255 characters'))
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
