import { Module } from '@nestjs/common';
import { AnalysesModule } from '../analyses/analyses.module';
import { PlotsController } from './plots.controller';
import { PlotsService } from './plots.service';

@Module({ imports: [AnalysesModule], controllers: [PlotsController], providers: [PlotsService] })
export class PlotsModule {}
