import { Module } from '@nestjs/common';
import { AnalysesModule } from '../analyses/analyses.module';
import { DatasetsModule } from '../datasets/datasets.module';
import { ModelExportController } from './model-export.controller';
import { ModelExportService } from './model-export.service';
import { PredictionJob } from './prediction.job';
import { PredictionsController } from './predictions.controller';
import { PredictionsService } from './predictions.service';

@Module({
  imports: [DatasetsModule, AnalysesModule],
  controllers: [PredictionsController, ModelExportController],
  providers: [PredictionsService, PredictionJob, ModelExportService],
})
export class PredictionsModule {}
