import { Module } from '@nestjs/common';
import { ColumnStore } from './column-store';
import { CreateDatasetJob } from './create-dataset.job';
import { DatasetsController } from './datasets.controller';
import { DatasetsService } from './datasets.service';
import { FilesService } from './files.service';

@Module({
  controllers: [DatasetsController],
  providers: [DatasetsService, FilesService, ColumnStore, CreateDatasetJob],
  exports: [DatasetsService, FilesService, ColumnStore],
})
export class DatasetsModule {}
