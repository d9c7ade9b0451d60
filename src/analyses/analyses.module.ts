import { Module } from '@nestjs/common';
import { DatasetsModule } from '../datasets/datasets.module';
import { AnalysesController } from './analyses.controller';
import { AnalysesService } from './analyses.service';
import { AnalysisJob } from './analysis.job';

@Module({
  imports: [DatasetsModule],
  controllers: [AnalysesController],
  providers: [AnalysesService, AnalysisJob],
  exports: [AnalysesService],
})
export class AnalysesModule {}
