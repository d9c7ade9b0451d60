import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Access } from '../auth/access.decorator';
import { Auth, AuthContext } from '../auth/auth-context';
import { Permission } from '../auth/permission';
import { Page, ParseCountPipe, ParseIdPipe, ParseOffsetPipe } from '../common/pipes';
import { CreateProjectDto, Project, ProjectPage, ProjectRef, Share, ShareProjectDto, Unshare, UnshareProjectDto } from './dto/project.dto';
import { ProjectsService } from './projects.service';
import { ApiEnvelope, ApiErrors, bodyErrors } from '../common/api-docs.decorators';
import { Codes } from '../common/error-codes';

@ApiTags('projects')
@Controller()
export class ProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @ApiEnvelope('Create a project owned by the caller', ProjectRef)
  @ApiErrors(...bodyErrors(CreateProjectDto))
  @Post('createProject')
  @HttpCode(200)
  @Access(Permission.Authenticated)
  create(@Auth() auth: AuthContext, @Body() dto: CreateProjectDto): Promise<{ projectId: string }> {
    return this.projects.create(auth.userId, dto);
  }

  @ApiEnvelope('Get a project', Project)
  @Get('project/:projectId')
  @Access(Permission.ProjectRead, 'projectId')
  get(@Param('projectId', ParseIdPipe) projectId: string): Promise<Project> {
    return this.projects.get(projectId);
  }

  @ApiEnvelope('List the projects the caller owns', ProjectPage)
  @Get('projects/owned/:offset/:count')
  @Access(Permission.Authenticated)
  owned(
    @Auth() auth: AuthContext,
    @Param('offset', ParseOffsetPipe) offset: number,
    @Param('count', ParseCountPipe) count: number,
  ): Promise<Page<Project>> {
    return this.projects.listOwned(auth.userId, offset, count);
  }

  @ApiEnvelope('List the projects shared with the caller', ProjectPage)
  @Get('projects/shared/:offset/:count')
  @Access(Permission.Authenticated)
  shared(
    @Auth() auth: AuthContext,
    @Param('offset', ParseOffsetPipe) offset: number,
    @Param('count', ParseCountPipe) count: number,
  ): Promise<Page<Project>> {
    return this.projects.listShared(auth.userId, offset, count);
  }

  @ApiEnvelope('Delete a project with its datasets, analyses and predictions', Project)
  @Post('project/:projectId/delete')
  @HttpCode(200)
  @Access(Permission.ProjectOwned, 'projectId')
  delete(@Param('projectId', ParseIdPipe) projectId: string): Promise<Project> {
    return this.projects.delete(projectId);
  }

  @ApiEnvelope('Share a project with a user (read, write, execute)', Share)
  @ApiErrors(...bodyErrors(ShareProjectDto), Codes.UnknownUsername, Codes.ShareWithOwner, Codes.BadPermission)
  @Post('project/:projectId/share')
  @HttpCode(200)
  @Access(Permission.ProjectOwned, 'projectId')
  share(@Auth() auth: AuthContext, @Param('projectId', ParseIdPipe) projectId: string, @Body() dto: ShareProjectDto) {
    return this.projects.share(auth.userId, projectId, dto);
  }

  @ApiEnvelope('Stop sharing a project with a user', Unshare)
  @ApiErrors(...bodyErrors(UnshareProjectDto), Codes.UnknownUsername, Codes.ShareWithOwner)
  @Post('project/:projectId/unshare')
  @HttpCode(200)
  @Access(Permission.ProjectOwned, 'projectId')
  unshare(@Auth() auth: AuthContext, @Param('projectId', ParseIdPipe) projectId: string, @Body() dto: UnshareProjectDto) {
    return this.projects.unshare(auth.userId, projectId, dto.username);
  }
}
