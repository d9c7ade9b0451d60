import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import type { MulterOptions } from '@nestjs/platform-express/multer/interfaces/multer-options.interface';
import type { Request } from 'express';
import { memoryStorage } from 'multer';
import { APP_CONFIG, AppConfig } from '../config/config';
import { DatasetsModule } from '../datasets/datasets.module';
import { ImageUploadController } from './image-upload.controller';
import { ImageDatasetJob } from './image-dataset.job';
import { initFileLimit, ImageUploadService } from './image-upload.service';

/**
 * Image dataset uploads. Multipart bodies are held in memory (multer), with the file size limit of the
 * route: the init file (at most MAX_TABULAR_FILE_BYTES, capped at 50 MiB) or one image (MAX_IMAGE_BYTES).
 * A file over the limit gets badRequest-1-0-3, any other multipart fault badRequest-1-0-4.
 */
@Module({
  imports: [
    DatasetsModule,
    MulterModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        storage: memoryStorage(),
        // multer (>= 2.4) and Nest's interceptors take limits as a function of the request; the type does not say so yet
        limits: ((req: Request) => ({
          fileSize: req.path.endsWith('/initUpload') ? initFileLimit(config) : config.maxImageBytes,
          files: 1,
          fields: 4,
          fieldSize: 64 * 1024,
          parts: 6,
        })) as unknown as MulterOptions['limits'],
      }),
    }),
  ],
  controllers: [ImageUploadController],
  providers: [ImageUploadService, ImageDatasetJob],
})
export class ImageUploadModule {}
