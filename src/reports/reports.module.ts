import { Module } from '@nestjs/common';
import { AnalysesModule } from '../analyses/analyses.module';
import { DatasetsModule } from '../datasets/datasets.module';
import { ReportsController } from './reports.controller';
import { ReportsService } from './reports.service';

@Module({ imports: [AnalysesModule, DatasetsModule], controllers: [ReportsController], providers: [ReportsService] })
export class ReportsModule {}
