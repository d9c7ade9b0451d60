import { Module } from '@nestjs/common';
import { AnalysesModule } from '../analyses/analyses.module';
import { DatasetsModule } from '../datasets/datasets.module';
import { PredictionJob } from './prediction.job';
import { PredictionsController } from './predictions.controller';
import { PredictionsService } from './predictions.service';

@Module({
  imports: [DatasetsModule, AnalysesModule],
  controllers: [PredictionsController],
  providers: [PredictionsService, PredictionJob],
})
export class PredictionsModule {}
