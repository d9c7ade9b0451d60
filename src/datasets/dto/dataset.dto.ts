import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsDefined,

  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  MaxLength,
  Min,
  Validate,
  ValidatorConstraint,
  ValidatorConstraintInterface,
} from 'class-validator';
import { Codes } from '../../common/error-codes';
import { code } from '../../common/validation';
import { FEATURE_TYPES } from '../column-codec';
import type { FeatureType } from '../../engine/types';

/** A map from feature name to a feature type. */
@ValidatorConstraint({ name: 'featureTypeMap' })
export class FeatureTypeMap implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
    const entries = Object.entries(value as Record<string, unknown>);
    return entries.length <= 100_000 && entries.every(([, t]) => typeof t === 'string' && (FEATURE_TYPES as string[]).includes(t));
  }
  defaultMessage(): string {
    return `featureTypes maps feature names to one of ${FEATURE_TYPES.join(', ')}`;
  }
}

/** A dataset's name: 3 to 60 characters (uniqueness in the project is checked by the service). */
export function DatasetName(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ minLength: 3, maxLength: 60 }),
    IsDefined(code(Codes.MissingField, 'name is required')),
    IsString(code(Codes.WrongType, 'name must be a string')),
    Length(3, 60, code(Codes.DatasetNameLength, 'name must be 3 to 60 characters')),
  );
}

/** A dataset's optional description: at most 255 characters. */
export function DatasetDescription(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ maxLength: 255 }),
    IsOptional(),
    IsString(code(Codes.WrongType, 'description must be a string')),
    MaxLength(255, code(Codes.DatasetDescriptionLength, 'description must be at most 255 characters')),
  );
}

export class CreateDatasetDto {
  @ApiProperty({ description: 'project to hold the dataset (write permission)' })
  @IsDefined(code(Codes.MissingField, 'projectId is required'))
  projectId: string | number;

  @DatasetName()
  name: string;

  @DatasetDescription()
  description?: string;

  @ApiProperty({ description: 'size of the uploaded file, as a check' })
  @IsDefined(code(Codes.MissingField, 'fileSizeInBytes is required'))
  @IsInt(code(Codes.WrongType, 'fileSizeInBytes must be an integer'))
  @Min(0, code(Codes.WrongType, 'fileSizeInBytes must not be negative'))
  fileSizeInBytes: number;

  @ApiPropertyOptional({ default: ',' })
  @IsOptional()
  @IsString(code(Codes.WrongType, 'separator must be a string'))
  @Length(1, 1, code(Codes.BadSeparator, 'separator must be a single character'))
  separator?: string;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean(code(Codes.WrongType, 'hasFeatureHeaders must be true or false'))
  hasFeatureHeaders?: boolean;

  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean(code(Codes.WrongType, 'hasSampleHeaders must be true or false'))
  hasSampleHeaders?: boolean;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean(code(Codes.WrongType, 'hasSamplesInRows must be true or false'))
  hasSamplesInRows?: boolean;

  @ApiPropertyOptional({ description: 'feature name -> numerical | categorical | identifier | event | timeToEvent' })
  @IsOptional()
  @IsObject(code(Codes.WrongType, 'featureTypes must be an object'))
  @Validate(FeatureTypeMap, code(Codes.BadFeatureType))
  featureTypes?: Record<string, FeatureType>;
}

export class ChangeFeatureTypesDto {
  @ApiProperty({ description: 'feature name -> numerical | categorical | identifier | event | timeToEvent' })
  @IsDefined(code(Codes.MissingField, 'featureTypes is required'))
  @IsObject(code(Codes.WrongType, 'featureTypes must be an object'))
  @Validate(FeatureTypeMap, code(Codes.BadFeatureType))
  featureTypes: Record<string, FeatureType>;
}

export const FILE_ID = /^[A-Za-z0-9._-]{1,64}$/;

export interface DatasetView {
  datasetId: string;
  projectId: string;
  name: string;
  description?: string;
  sampleCount: number;
  featureCount: number;
  sizeInBytes: number;
}

export interface FeatureView {
  name: string;
  type: FeatureType;
  missingCount: number;
  distinctCount: number;
}

export interface TaskView {
  taskId: string;
  state: string;
  datasetId?: string;
  error?: { code: string; message: string };
}

