import { Module } from '@nestjs/common';
import { DatasetsModule } from '../datasets/datasets.module';
import { AnalysesController } from './analyses.controller';
import { AnalysesService } from './analyses.service';

@Module({ imports: [DatasetsModule], controllers: [AnalysesController], providers: [AnalysesService], exports: [AnalysesService] })
export class AnalysesModule {}
