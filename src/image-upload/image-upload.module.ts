import { Module } from '@nestjs/common';
import { DatasetsModule } from '../datasets/datasets.module';
import { ImageUploadController } from './image-upload.controller';
import { ImageDatasetJob } from './image-dataset.job';
import { ImageUploadExpiry } from './image-upload-expiry';
import { ImageUploadService } from './image-upload.service';

/**
 * Image dataset uploads. The init body is read by readInitForm (busboy, the file part spooled to disk,
 * permission checked as soon as the attributes arrive; its file at most MAX_TABULAR_FILE_BYTES, capped at
 * 50 MiB). The body of add is read by readAddForm (busboy, the image in memory up to 1 MiB and spooled to disk
 * beyond, under an upload slot and the idle timeout; at most MAX_IMAGE_BYTES; add's permission is known from the
 * path before the body is read). A file over the limit gets badRequest-1-0-3, any other multipart fault badRequest-1-0-4. An upload never
 * committed expires (ImageUploadExpiry: IMAGE_UPLOAD_EXPIRY_HOURS).
 */
@Module({
  imports: [DatasetsModule],
  controllers: [ImageUploadController],
  providers: [ImageUploadService, ImageDatasetJob, ImageUploadExpiry],
})
export class ImageUploadModule {}
