import { Body, Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Access } from '../auth/access.decorator';
import { Auth, AuthContext, AuthedRequest } from '../auth/auth-context';
import { Permission } from '../auth/permission';
import { ParseCountPipe, ParseIdPipe, ParseOffsetPipe } from '../common/pipes';
import { ChangeFeatureTypesDto, CreateDatasetDto } from './dto/dataset.dto';
import { DatasetsService } from './datasets.service';
import { FilesService } from './files.service';

@ApiTags('datasets')
@Controller()
export class DatasetsController {
  constructor(
    private readonly datasets: DatasetsService,
    private readonly files: FilesService,
  ) {}

  @Post('file/:fileId/upload')
  @HttpCode(200)
  @Access(Permission.Authenticated)
  @ApiConsumes('application/octet-stream', 'text/csv')
  @ApiBody({ description: 'the raw file', schema: { type: 'string', format: 'binary' } })
  upload(@Auth() auth: AuthContext, @Param('fileId') fileId: string, @Req() req: Request) {
    return this.files.upload(auth.userId, fileId, req);
  }

  /** The caller's uploaded files (private to each user), oldest first. */
  @Get('files/:offset/:count')
  @Access(Permission.Authenticated)
  listFiles(@Auth() auth: AuthContext, @Param('offset', ParseOffsetPipe) offset: number, @Param('count', ParseCountPipe) count: number) {
    return this.files.list(auth.userId, offset, count);
  }

  @Post('file/:fileId/delete')
  @HttpCode(200)
  @Access(Permission.Authenticated)
  deleteFile(@Auth() auth: AuthContext, @Param('fileId') fileId: string) {
    return this.files.delete(auth.userId, fileId);
  }

  @Post('file/:fileId/createDataset')
  @HttpCode(200)
  @Access(Permission.ProjectWrite, 'body.projectId')
  createDataset(@Auth() auth: AuthContext, @Param('fileId') fileId: string, @Req() req: AuthedRequest, @Body() dto: CreateDatasetDto) {
    return this.datasets.create(auth.userId, fileId, req.projectOf?.['body.projectId'] as string, dto);
  }

  @Get('task/:taskId/status')
  @Access(Permission.ProjectRead, 'taskId')
  taskStatus(@Param('taskId', ParseIdPipe) taskId: string) {
    return this.datasets.taskStatus(taskId);
  }

  @Get('dataset/:datasetId')
  @Access(Permission.ProjectRead, 'datasetId')
  get(@Param('datasetId', ParseIdPipe) datasetId: string) {
    return this.datasets.get(datasetId);
  }

  @Get('datasets/:projectId/:offset/:count')
  @Access(Permission.ProjectRead, 'projectId')
  list(
    @Param('projectId', ParseIdPipe) projectId: string,
    @Param('offset', ParseOffsetPipe) offset: number,
    @Param('count', ParseCountPipe) count: number,
  ) {
    return this.datasets.list(projectId, offset, count);
  }

  @Post('dataset/:datasetId/delete')
  @HttpCode(200)
  @Access(Permission.ProjectWrite, 'datasetId')
  delete(@Param('datasetId', ParseIdPipe) datasetId: string) {
    return this.datasets.delete(datasetId);
  }

  @Get('dataset/:datasetId/features')
  @Access(Permission.ProjectRead, 'datasetId')
  features(@Param('datasetId', ParseIdPipe) datasetId: string) {
    return this.datasets.features(datasetId);
  }

  @Post('dataset/:datasetId/changeFeatureTypes')
  @HttpCode(200)
  @Access(Permission.ProjectWrite, 'datasetId')
  changeFeatureTypes(@Param('datasetId', ParseIdPipe) datasetId: string, @Body() dto: ChangeFeatureTypesDto) {
    return this.datasets.changeFeatureTypes(datasetId, dto.featureTypes);
  }
}
