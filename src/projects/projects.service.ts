import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { Page } from '../common/pipes';
import { paginateSql } from '../database/paginate';
import { keepRow } from '../database/sql';
import { UserEntity } from '../auth/user.entity';
import { ProjectEntity } from './project.entity';
import { ProjectShareEntity } from './project-share.entity';
import { CreateProjectDto, Project, ShareProjectDto, SharePermission } from './dto/project.dto';

export function toProjectView(p: Pick<ProjectEntity, 'id' | 'name' | 'description'>): Project {
  const view: Project = { projectId: String(p.id), name: p.name };
  if (p.description !== null && p.description !== undefined) view.description = p.description;
  return view;
}

/** What a list's page reads of each project (toProjectView's fields). */
const PAGE_COLUMNS = 'id, name, description';

@Injectable()
export class ProjectsService {
  constructor(private readonly db: DataSource) {}

  async create(userId: string, dto: CreateProjectDto): Promise<{ projectId: string }> {
    const repo = this.db.getRepository(ProjectEntity);
    const saved = await repo.save(repo.create({ ownerId: userId, name: dto.name, description: dto.description ?? null }));
    return { projectId: String(saved.id) };
  }

  async get(projectId: string): Promise<Project> {
    const p = await this.db.getRepository(ProjectEntity).findOne({ where: { id: projectId } });
    if (!p) throw new ApiError(Codes.ProjectNotFound);
    return toProjectView(p);
  }

  listOwned(userId: string, offset: number, count: number): Promise<Page<Project>> {
    return paginateSql(
      this.db,
      { table: 'projects', columns: PAGE_COLUMNS, where: 'owner_id = $1', params: [userId] },
      offset,
      count,
      toProjectView,
    );
  }

  listShared(userId: string, offset: number, count: number): Promise<Page<Project>> {
    const where = 'EXISTS (SELECT 1 FROM project_shares s WHERE s.project_id = projects.id AND s.user_id = $1)';
    return paginateSql(this.db, { table: 'projects', columns: PAGE_COLUMNS, where, params: [userId] }, offset, count, toProjectView);
  }

  /** Deletes the project and, by cascade in the same statement, everything in it. */
  async delete(projectId: string): Promise<Project> {
    return this.db.transaction(async (tx) => {
      const p = await tx
        .getRepository(ProjectEntity)
        .createQueryBuilder('p')
        .setLock('pessimistic_write')
        .where('p.id = :projectId', { projectId })
        .getOne();
      if (!p) throw new ApiError(Codes.ProjectNotFound);
      await tx.getRepository(ProjectEntity).delete({ id: projectId });
      return toProjectView(p);
    });
  }

  async share(
    ownerId: string,
    projectId: string,
    dto: ShareProjectDto,
  ): Promise<{ projectId: string; username: string; permissions: SharePermission[] }> {
    const user = await this.db.getRepository(UserEntity).findOne({ where: { username: dto.username } });
    if (!user) throw new ApiError(Codes.UnknownUsername, `no user ${dto.username}`);
    if (String(user.id) === ownerId) throw new ApiError(Codes.ShareWithOwner);
    const set = new Set(dto.permissions);
    // write and execute imply read
    if (set.size) set.add('read');
    if (!set.size) throw new ApiError(Codes.BadPermission, 'permissions must name at least one of read, write, execute');
    const share = {
      projectId,
      userId: String(user.id),
      canRead: true,
      canWrite: set.has('write'),
      canExecute: set.has('execute'),
    };
    await this.db.transaction(async (tx) => {
      // the project or the user may be deleted meanwhile
      await keepRow(tx, 'projects', projectId, new ApiError(Codes.ProjectNotFound));
      await keepRow(tx, 'users', share.userId, new ApiError(Codes.UnknownUsername, `no user ${dto.username}`));
      await tx.getRepository(ProjectShareEntity).upsert(share, ['projectId', 'userId']);
    });
    const permissions = (['read', 'write', 'execute'] as const).filter((p) => set.has(p));
    return { projectId, username: user.username, permissions };
  }

  async unshare(ownerId: string, projectId: string, username: string): Promise<{ projectId: string; username: string }> {
    const user = await this.db.getRepository(UserEntity).findOne({ where: { username } });
    if (!user) throw new ApiError(Codes.UnknownUsername, `no user ${username}`);
    if (String(user.id) === ownerId) throw new ApiError(Codes.ShareWithOwner, 'the owner of a project keeps every permission on it');
    await this.db.getRepository(ProjectShareEntity).delete({ projectId, userId: String(user.id) });
    return { projectId, username: user.username };
  }
}
