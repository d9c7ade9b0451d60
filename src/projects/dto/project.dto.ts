import { Id, PageOf, StringEnum, Type } from '../../common/api-schema';
import type { Static } from '../../common/api-schema';
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

export const ProjectRef = Type.Object({ projectId: Id('the new project') }, { $id: 'ProjectRef' });
export type ProjectRef = Static<typeof ProjectRef>;

/** The Project object of docs/api-reference.md. */
export const Project = Type.Object(
  { projectId: Id('identifier'), name: Type.String(), description: Type.Optional(Type.String()) },
  { $id: 'Project' },
);
export type Project = Static<typeof Project>;

export const ProjectPage = PageOf('ProjectPage', Project);
export type ProjectPage = Static<typeof ProjectPage>;

export const Share = Type.Object(
  { projectId: Id('the shared project'), username: Type.String(), permissions: Type.Array(StringEnum(SHARE_PERMISSIONS)) },
  { $id: 'Share' },
);
export type Share = Static<typeof Share>;

export const Unshare = Type.Object({ projectId: Id('the project'), username: Type.String() }, { $id: 'Unshare' });
export type Unshare = Static<typeof Unshare>;
