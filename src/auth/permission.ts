/** What a route needs on the project its ids resolve to. */
export enum Permission {
  ProjectRead = 'project.read',
  ProjectWrite = 'project.write',
  ProjectExecute = 'project.execute',
  ProjectOwned = 'project.owned',
  /** Any authenticated user (routes about the caller's own things: createProject, lists of own projects). */
  Authenticated = 'user.authenticated',
  /** No token needed (login, version, health, docs). */
  Public = 'public',
}

/** The permissions a user holds on one project. */
export interface ProjectGrant {
  owned: boolean;
  read: boolean;
  write: boolean;
  execute: boolean;
}

export function grants(grant: ProjectGrant, needed: Permission): boolean {
  switch (needed) {
    case Permission.ProjectOwned:
      return grant.owned;
    case Permission.ProjectRead:
      return grant.owned || grant.read;
    case Permission.ProjectWrite:
      return grant.owned || grant.write;
    case Permission.ProjectExecute:
      return grant.owned || grant.execute;
    default:
      return true;
  }
}
