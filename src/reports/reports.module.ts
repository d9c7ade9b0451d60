import { Module } from '@nestjs/common';
import { AnalysesModule } from '../analyses/analyses.module';
import { JobsModule } from '../jobs/jobs.module';
import { ReportsController } from './reports.controller';
import { ReportsService } from './reports.service';

@Module({ imports: [AnalysesModule, JobsModule], controllers: [ReportsController], providers: [ReportsService] })
export class ReportsModule {}
