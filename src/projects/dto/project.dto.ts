import { Codes } from '../../common/error-codes';
import { ValidateEnum, ValidateText } from '../../common/validation';

export class CreateProjectDto {
  @ValidateText('name', { min: 1, max: 60, code: Codes.ProjectNameLength, message: 'name must be 1 to 60 characters', visible: true })
  name: string;

  @ValidateText('description', {
    optional: true,
    max: 255,
    code: Codes.ProjectDescriptionLength,
    message: 'description must be at most 255 characters',
  })
  description?: string;
}

export const SHARE_PERMISSIONS = ['read', 'write', 'execute'] as const;
export type SharePermission = (typeof SHARE_PERMISSIONS)[number];

/** A username: a longer one than any user can have names no user. */
const Username = () => ValidateText('username', { max: 64, code: Codes.UnknownUsername, message: 'no such user' });

export class ShareProjectDto {
  @Username()
  username: string;

  @ValidateEnum('permissions', SHARE_PERMISSIONS, {
    each: true,
    code: Codes.BadPermission,
    message: 'permissions are read, write or execute',
  })
  permissions: SharePermission[];
}

export class UnshareProjectDto {
  @Username()
  username: string;
}

/** The Project object of api-v1.md. */
export interface ProjectView {
  projectId: string;
  name: string;
  description?: string;
}
