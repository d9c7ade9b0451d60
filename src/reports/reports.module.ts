import { Module } from '@nestjs/common';
import { AnalysesModule } from '../analyses/analyses.module';
import { JobsModule } from '../jobs/jobs.module';
import { ReportLinksController } from './report-links.controller';
import { ReportLinksService } from './report-links.service';
import { ReportsController } from './reports.controller';
import { ReportsService } from './reports.service';

@Module({
  imports: [AnalysesModule, JobsModule],
  controllers: [ReportsController, ReportLinksController],
  providers: [ReportsService, ReportLinksService],
})
export class ReportsModule {}
