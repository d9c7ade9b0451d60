import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { IsDefined, IsObject, IsOptional, Matches, Validate, ValidatorConstraint, ValidatorConstraintInterface } from 'class-validator';
import { Id, PageOf, StringEnum, Type } from '../../common/api-schema';
import type { Static } from '../../common/api-schema';
import { Codes } from '../../common/error-codes';
import { SubjectError, SubjectState } from '../../jobs/job-state';
import { code, ValidateBoolean, ValidateId, ValidateInt, ValidateText } from '../../common/validation';
import { FEATURE_TYPES } from '../column-codec';
import type { FeatureType } from '../../engine/types';

const SEPARATOR_RULE =
  'separator must be a single character of the Basic Multilingual Plane (not an emoji), other than a quote or a line break';

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
  return ValidateText('name', {
    min: 3,
    max: 60,
    code: Codes.DatasetNameLength,
    message: 'name must be 3 to 60 characters',
    visible: true,
  });
}

/** A dataset's optional description: at most 255 characters. */
export function DatasetDescription(): PropertyDecorator {
  return ValidateText('description', {
    optional: true,
    max: 255,
    code: Codes.DatasetDescriptionLength,
    message: 'description must be at most 255 characters',
  });
}

/** A map from feature name to feature type (badRequest-110-3-3 for a type not in the list). */
function ValidateFeatureTypes(o: { optional?: boolean } = {}): PropertyDecorator {
  const description = 'feature name -> numerical | categorical | identifier | event | timeToEvent';
  // a map: an object of any keys whose values are feature types (a bare object types as one with no keys in generated clients)
  const schema: ApiPropertyOptions = { description, type: 'object', additionalProperties: { type: 'string', enum: [...FEATURE_TYPES] } };
  return applyDecorators(
    o.optional ? ApiPropertyOptional(schema) : ApiProperty(schema),
    o.optional ? IsOptional() : IsDefined(code(Codes.MissingField, 'featureTypes is required')),
    IsObject(code(Codes.WrongType, 'featureTypes must be an object')),
    Validate(FeatureTypeMap, code(Codes.BadFeatureType)),
  );
}

/** A yes/no option of the file's layout. */
const Layout = (name: string, byDefault: boolean) =>
  ValidateBoolean(name, { optional: true, default: byDefault, message: `${name} must be true or false` });

export class CreateDatasetDto {
  @ValidateId('projectId', { description: 'project to hold the dataset (write permission)' })
  projectId: string | number;

  @DatasetName()
  name: string;

  @DatasetDescription()
  description?: string;

  @ValidateInt('fileSizeInBytes', { min: 0, description: 'size of the uploaded file, as a check' })
  fileSizeInBytes: number;

  @ValidateText('separator', { optional: true, min: 1, max: 1, code: Codes.BadSeparator, message: SEPARATOR_RULE })
  // one UTF-16 unit: the parser splits by them, and an emoji (two) left halves of it in the names and values; a
  // quote (which opens quoted fields) or a line break (which ends rows) cannot separate fields
  @Matches(/^[^\uD800-\uDFFF"\r\n]$/, code(Codes.BadSeparator, SEPARATOR_RULE))
  separator?: string;

  @Layout('hasFeatureHeaders', true)
  hasFeatureHeaders?: boolean;

  @Layout('hasSampleHeaders', false)
  hasSampleHeaders?: boolean;

  @Layout('hasSamplesInRows', true)
  hasSamplesInRows?: boolean;

  @ValidateFeatureTypes({ optional: true })
  featureTypes?: Record<string, FeatureType>;
}

export class ChangeFeatureTypesDto {
  @ValidateFeatureTypes()
  featureTypes: Record<string, FeatureType>;
}

export const FILE_ID = /^[A-Za-z0-9._-]{1,64}$/;

export const UploadedFile = Type.Object(
  { fileId: Type.String({ description: 'the client-chosen file id' }), sizeInBytes: Type.Integer() },
  { $id: 'UploadedFile' },
);
export type UploadedFile = Static<typeof UploadedFile>;

export const File = Type.Object(
  {
    fileId: Type.String(),
    sizeInBytes: Type.Integer(),
    created: Type.String({ format: 'date-time' }),
    usedByDataset: Type.Boolean({ description: 'a dataset that still exists was created from this upload' }),
    inUse: Type.Boolean({ description: 'a dataset is being created from it right now' }),
  },
  { $id: 'File' },
);
export type File = Static<typeof File>;

export const FilePage = PageOf('FilePage', File);
export type FilePage = Static<typeof FilePage>;

export const TaskRef = Type.Object({ taskId: Id('the task to poll') }, { $id: 'TaskRef' });
export type TaskRef = Static<typeof TaskRef>;

/** The status of a dataset creation or image upload task. */
export const TaskStatus = Type.Object(
  {
    taskId: Id('echoed'),
    state: SubjectState,
    datasetId: Type.Optional(Id('the dataset made, when finished')),
    error: Type.Optional(SubjectError),
  },
  { $id: 'TaskStatus' },
);
export type TaskStatus = Static<typeof TaskStatus>;

export const Dataset = Type.Object(
  {
    datasetId: Id('identifier'),
    projectId: Id('owning project'),
    name: Type.String({ description: '3 to 60 characters, unique within the project' }),
    description: Type.Optional(Type.String({ description: 'at most 255 characters' })),
    sampleCount: Type.Integer(),
    featureCount: Type.Integer(),
    sizeInBytes: Type.Integer({ description: 'storage occupied' }),
  },
  { $id: 'Dataset' },
);
export type Dataset = Static<typeof Dataset>;

export const DatasetPage = PageOf('DatasetPage', Dataset, { projectId: Id('echoed') });
export type DatasetPage = Static<typeof DatasetPage>;

export const Feature = Type.Object({
  name: Type.String(),
  type: StringEnum(FEATURE_TYPES),
  missingCount: Type.Integer(),
  distinctCount: Type.Integer(),
});
export type Feature = Static<typeof Feature>;

export const Features = Type.Object({ datasetId: Id('echoed'), features: Type.Array(Feature) }, { $id: 'Features' });
export type Features = Static<typeof Features>;
