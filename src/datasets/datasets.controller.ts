import { Body, Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Access } from '../auth/access.decorator';
import { Auth, AuthContext, AuthedRequest } from '../auth/auth-context';
import { Permission } from '../auth/permission';
import { ParseCountPipe, ParseIdPipe, ParseOffsetPipe } from '../common/pipes';
import {
  ChangeFeatureTypesDto,
  CreateDatasetDto,
  Dataset,
  DatasetPage,
  Features,
  FilePage,
  TaskRef,
  TaskStatus,
  UploadedFile,
} from './dto/dataset.dto';
import { DatasetsService } from './datasets.service';
import { FilesService } from './files.service';
import { ApiEnvelope, ApiErrors, bodyErrors } from '../common/api-docs.decorators';
import { Codes } from '../common/error-codes';

@ApiTags('datasets')
@Controller()
export class DatasetsController {
  constructor(
    private readonly datasets: DatasetsService,
    private readonly files: FilesService,
  ) {}

  @ApiEnvelope('Upload a file (the raw bytes are the body) under a client-chosen file id', UploadedFile)
  @ApiErrors(Codes.BadFileId, Codes.BodyStalled, Codes.TooManyUploads, Codes.StorageQuotaExceeded, Codes.FileInUse, Codes.MalformedBody)
  @Post('file/:fileId/upload')
  @HttpCode(200)
  @Access(Permission.Authenticated)
  @ApiConsumes('application/octet-stream', 'text/csv')
  @ApiBody({ description: 'the raw file', schema: { type: 'string', format: 'binary' } })
  upload(@Auth() auth: AuthContext, @Param('fileId') fileId: string, @Req() req: Request) {
    return this.files.upload(auth.userId, fileId, req);
  }

  /** The caller's uploaded files (private to each user), oldest first. */
  @ApiEnvelope("List the caller's uploaded files", FilePage)
  @Get('files/:offset/:count')
  @Access(Permission.Authenticated)
  listFiles(@Auth() auth: AuthContext, @Param('offset', ParseOffsetPipe) offset: number, @Param('count', ParseCountPipe) count: number) {
    return this.files.list(auth.userId, offset, count);
  }

  @ApiEnvelope('Delete an uploaded file', UploadedFile)
  @ApiErrors(Codes.BadFileId, Codes.FileOrTaskNotFound, Codes.FileInUse)
  @Post('file/:fileId/delete')
  @HttpCode(200)
  @Access(Permission.Authenticated)
  deleteFile(@Auth() auth: AuthContext, @Param('fileId') fileId: string) {
    return this.files.delete(auth.userId, fileId);
  }

  @ApiEnvelope('Create a dataset from an uploaded file (a task: poll its status)', TaskRef)
  @ApiErrors(
    ...bodyErrors(CreateDatasetDto),
    Codes.BadFileId,
    Codes.FileOrTaskNotFound,
    Codes.FileSizeMismatch,
    Codes.DatasetNameTaken,
    Codes.UnknownFeature,
    Codes.ImpossibleFeatureType,
    Codes.TooManyQueuedJobs,
    Codes.StorageQuotaExceeded,
  )
  @Post('file/:fileId/createDataset')
  @HttpCode(200)
  @Access(Permission.ProjectWrite, 'body.projectId')
  createDataset(@Auth() auth: AuthContext, @Param('fileId') fileId: string, @Req() req: AuthedRequest, @Body() dto: CreateDatasetDto) {
    return this.datasets.create(auth.userId, fileId, req.projectOf?.['body.projectId'] as string, dto);
  }

  @ApiEnvelope('Status of a dataset creation or image upload task', TaskStatus)
  @Get('task/:taskId/status')
  @Access(Permission.ProjectRead, 'taskId')
  taskStatus(@Param('taskId', ParseIdPipe) taskId: string) {
    return this.datasets.taskStatus(taskId);
  }

  @ApiEnvelope('Get a dataset', Dataset)
  @Get('dataset/:datasetId')
  @Access(Permission.ProjectRead, 'datasetId')
  get(@Param('datasetId', ParseIdPipe) datasetId: string) {
    return this.datasets.get(datasetId);
  }

  @ApiEnvelope('List the datasets of a project', DatasetPage)
  @Get('datasets/:projectId/:offset/:count')
  @Access(Permission.ProjectRead, 'projectId')
  list(
    @Param('projectId', ParseIdPipe) projectId: string,
    @Param('offset', ParseOffsetPipe) offset: number,
    @Param('count', ParseCountPipe) count: number,
  ) {
    return this.datasets.list(projectId, offset, count);
  }

  @ApiEnvelope('Delete a dataset with its analyses and predictions', Dataset)
  @Post('dataset/:datasetId/delete')
  @HttpCode(200)
  @Access(Permission.ProjectWrite, 'datasetId')
  delete(@Param('datasetId', ParseIdPipe) datasetId: string) {
    return this.datasets.delete(datasetId);
  }

  @ApiEnvelope('The features of a dataset with their types', Features)
  @Get('dataset/:datasetId/features')
  @Access(Permission.ProjectRead, 'datasetId')
  features(@Param('datasetId', ParseIdPipe) datasetId: string) {
    return this.datasets.features(datasetId);
  }

  @ApiEnvelope('Change the types of features of a dataset', Features)
  @ApiErrors(...bodyErrors(ChangeFeatureTypesDto), Codes.UnknownFeature, Codes.ImpossibleFeatureType)
  @Post('dataset/:datasetId/changeFeatureTypes')
  @HttpCode(200)
  @Access(Permission.ProjectWrite, 'datasetId')
  changeFeatureTypes(@Param('datasetId', ParseIdPipe) datasetId: string, @Body() dto: ChangeFeatureTypesDto) {
    return this.datasets.changeFeatureTypes(datasetId, dto.featureTypes);
  }
}
