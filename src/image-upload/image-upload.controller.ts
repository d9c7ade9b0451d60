import { Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Access } from '../auth/access.decorator';
import { Auth, AuthContext } from '../auth/auth-context';
import { Permission } from '../auth/permission';
import { Codes } from '../common/error-codes';
import { ParseIdPipe } from '../common/pipes';
import { ImageAddFieldsDto, ImageInitAttributesDto } from './image-upload.dto';
import { ImageUploadService } from './image-upload.service';
import { ApiEnvelope, ApiErrors, bodyErrors } from '../common/api-docs.decorators';
import { TaskRef, TaskStatus } from '../datasets/dto/dataset.dto';
import { Empty } from '../common/api-schema';

@ApiTags('image datasets')
@Controller('image')
export class ImageUploadController {
  constructor(private readonly images: ImageUploadService) {}

  /**
   * The project is named inside the multipart body: the service checks write permission on it as soon
   * as the attributes part has arrived (no multer here: it would read the whole body first).
   */
  @ApiEnvelope('Start an image dataset upload: the sample table and the attributes (multipart)', TaskRef)
  @ApiErrors(
    ...bodyErrors(ImageInitAttributesDto),
    Codes.BodyStalled,
    Codes.TooManyUploads,
    Codes.MalformedId,
    Codes.ProjectNotFound,
    Codes.DatasetNameTaken,
    Codes.UnreadableSampleTable,
    Codes.BadSampleIds,
    Codes.ReservedFeatureName,
  )
  @Post('initUpload')
  @HttpCode(200)
  @Access(Permission.Authenticated)
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['file', 'attributes'],
      properties: {
        file: { type: 'string', format: 'binary', description: 'CSV: first column sample ids, other columns features' },
        attributes: { type: 'string', description: 'JSON: { projectId, name, description?, hasFeatureHeaders? }' },
      },
    },
  })
  init(@Auth() auth: AuthContext, @Req() req: Request) {
    return this.images.init(auth.userId, req);
  }

  @ApiEnvelope('Add the image of one sample (multipart)', TaskRef)
  @ApiErrors(
    ...bodyErrors(ImageAddFieldsDto),
    Codes.BodyStalled,
    Codes.TooManyUploads,
    Codes.BadSampleId,
    Codes.BadImage,
    Codes.ImageTooLarge,
    Codes.ImageAlreadyAdded,
    Codes.AddAfterCommit,
    Codes.ImageUploadExpired,
    Codes.StorageQuotaExceeded,
  )
  @Post(':taskId/add')
  @HttpCode(200)
  @Access(Permission.ProjectWrite, 'taskId', { notFound: Codes.ImageTaskNotFound })
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['file', 'sampleId'],
      properties: {
        file: { type: 'string', format: 'binary', description: 'jpeg, png, tif or bmp image' },
        sampleId: { type: 'string' },
      },
    },
  })
  add(@Auth() auth: AuthContext, @Param('taskId', ParseIdPipe) taskId: string, @Req() req: Request) {
    return this.images.add(auth.userId, taskId, req);
  }

  @ApiEnvelope('Commit the upload: build the image dataset (poll the task status)', Empty)
  @ApiErrors(Codes.AlreadyCommitted, Codes.ImageUploadExpired, Codes.ImagesMissing, Codes.TooManyQueuedJobs)
  @Get(':taskId/commit')
  @Access(Permission.ProjectWrite, 'taskId', { notFound: Codes.ImageTaskNotFound })
  commit(@Auth() auth: AuthContext, @Param('taskId', ParseIdPipe) taskId: string) {
    return this.images.commit(auth.userId, taskId);
  }

  @ApiEnvelope('Status of an image upload task (datasetId when finished)', TaskStatus)
  @Get(':taskId/status')
  @Access(Permission.ProjectRead, 'taskId', { notFound: Codes.ImageTaskNotFound })
  status(@Param('taskId', ParseIdPipe) taskId: string) {
    return this.images.status(taskId);
  }
}
