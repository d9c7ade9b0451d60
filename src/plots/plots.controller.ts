import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Access } from '../auth/access.decorator';
import { Permission } from '../auth/permission';
import { ParseIdPipe } from '../common/pipes';
import { PlotsService } from './plots.service';

type PlotParams = { modelKey?: unknown; plotKey?: unknown };
const BODY = { schema: { type: 'object', properties: { modelKey: { type: 'string' }, plotKey: { type: 'string' } } } };

/** The three plot routes, by GET with a query string and by POST with a JSON body (decisions.md). */
@ApiTags('plots')
@Controller('analysis/:analysisId')
export class PlotsController {
  constructor(private readonly plots: PlotsService) {}

  @Get('availablePlots')
  @Access(Permission.ProjectWrite, 'analysisId')
  @ApiQuery({ name: 'modelKey', required: true })
  availableByQuery(@Param('analysisId', ParseIdPipe) analysisId: string, @Query() q: PlotParams) {
    return this.plots.available(analysisId, q.modelKey);
  }

  @Post('availablePlots')
  @HttpCode(200)
  @Access(Permission.ProjectWrite, 'analysisId')
  @ApiBody(BODY)
  availableByBody(@Param('analysisId', ParseIdPipe) analysisId: string, @Body() b: PlotParams) {
    return this.plots.available(analysisId, b?.modelKey);
  }

  @Get('getPlot')
  @Access(Permission.ProjectWrite, 'analysisId')
  @ApiQuery({ name: 'modelKey', required: true })
  @ApiQuery({ name: 'plotKey', required: true })
  plotByQuery(@Param('analysisId', ParseIdPipe) analysisId: string, @Query() q: PlotParams) {
    return this.plots.plot(analysisId, q.modelKey, q.plotKey);
  }

  @Post('getPlot')
  @HttpCode(200)
  @Access(Permission.ProjectWrite, 'analysisId')
  @ApiBody(BODY)
  plotByBody(@Param('analysisId', ParseIdPipe) analysisId: string, @Body() b: PlotParams) {
    return this.plots.plot(analysisId, b?.modelKey, b?.plotKey);
  }

  @Get('getPlots')
  @Access(Permission.ProjectWrite, 'analysisId')
  @ApiQuery({ name: 'modelKey', required: true })
  plotsByQuery(@Param('analysisId', ParseIdPipe) analysisId: string, @Query() q: PlotParams) {
    return this.plots.all(analysisId, q.modelKey);
  }

  @Post('getPlots')
  @HttpCode(200)
  @Access(Permission.ProjectWrite, 'analysisId')
  @ApiBody(BODY)
  plotsByBody(@Param('analysisId', ParseIdPipe) analysisId: string, @Body() b: PlotParams) {
    return this.plots.all(analysisId, b?.modelKey);
  }
}
