import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsDefined, IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { code } from '../../common/validation';
import { Codes } from '../../common/error-codes';

export class CreateProjectDto {
  @ApiProperty({ minLength: 1, maxLength: 60 })
  @IsDefined(code(Codes.MissingField, 'name is required'))
  @IsString(code(Codes.WrongType, 'name must be a string'))
  @Length(1, 60, code(Codes.ProjectNameLength, 'name must be 1 to 60 characters'))
  name: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @IsOptional()
  @IsString(code(Codes.WrongType, 'description must be a string'))
  @MaxLength(255, code(Codes.ProjectDescriptionLength, 'description must be at most 255 characters'))
  description?: string;
}

export const SHARE_PERMISSIONS = ['read', 'write', 'execute'] as const;
export type SharePermission = (typeof SHARE_PERMISSIONS)[number];

export class ShareProjectDto {
  @ApiProperty()
  @IsDefined(code(Codes.MissingField, 'username is required'))
  @IsString(code(Codes.WrongType, 'username must be a string'))
  @MaxLength(64, code(Codes.UnknownUsername, 'no such user'))
  username: string;

  @ApiProperty({ enum: SHARE_PERMISSIONS, isArray: true })
  @IsDefined(code(Codes.MissingField, 'permissions is required'))
  @IsArray(code(Codes.WrongType, 'permissions must be an array'))
  @ArrayMaxSize(3, code(Codes.BadPermission, 'at most three permissions'))
  @IsIn(SHARE_PERMISSIONS, code(Codes.BadPermission, 'permissions are read, write or execute', { each: true }))
  permissions: SharePermission[];
}

export class UnshareProjectDto {
  @ApiProperty()
  @IsDefined(code(Codes.MissingField, 'username is required'))
  @IsString(code(Codes.WrongType, 'username must be a string'))
  @MaxLength(64, code(Codes.UnknownUsername, 'no such user'))
  username: string;
}

/** The Project object of api-v1.md. */
export interface ProjectView {
  projectId: string;
  name: string;
  description?: string;
}
