import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { memoryStorage } from 'multer';
import { APP_CONFIG, AppConfig } from '../config/config';
import { DatasetsModule } from '../datasets/datasets.module';
import { ImageUploadController } from './image-upload.controller';
import { ImageUploadService } from './image-upload.service';

/**
 * Image dataset uploads. The init body is read by readInitForm (busboy, the file part spooled to disk,
 * permission checked as soon as the attributes arrive; its file at most MAX_TABULAR_FILE_BYTES, capped at
 * 50 MiB). An image of add is held in memory by multer (at most MAX_IMAGE_BYTES; add's permission is
 * known from the path before the body is read). A file over the limit gets badRequest-1-0-3, any other
 * multipart fault badRequest-1-0-4.
 */
@Module({
  imports: [
    DatasetsModule,
    MulterModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        storage: memoryStorage(),
        limits: { fileSize: config.maxImageBytes, files: 1, fields: 4, fieldSize: 64 * 1024, parts: 6 },
      }),
    }),
  ],
  controllers: [ImageUploadController],
  providers: [ImageUploadService],
})
export class ImageUploadModule {}
