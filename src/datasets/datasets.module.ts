import { Module } from '@nestjs/common';
import { DatasetsController } from './datasets.controller';
import { DatasetsService } from './datasets.service';
import { FilesService } from './files.service';

@Module({ controllers: [DatasetsController], providers: [DatasetsService, FilesService], exports: [DatasetsService, FilesService] })
export class DatasetsModule {}
