import { Module } from '@nestjs/common';
import { DatasetsModule } from '../datasets/datasets.module';
import { AnalysesController } from './analyses.controller';
import { AnalysesService } from './analyses.service';
import { AnalysisJob } from './analysis.job';
import { ResultDetailsController } from './result-details.controller';
import { ResultDetailsService } from './result-details.service';

@Module({
  imports: [DatasetsModule],
  controllers: [AnalysesController, ResultDetailsController],
  providers: [AnalysesService, AnalysisJob, ResultDetailsService],
  exports: [AnalysesService, ResultDetailsService],
})
export class AnalysesModule {}
