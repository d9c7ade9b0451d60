import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import { Access } from '../auth/access.decorator';
import { Permission } from '../auth/permission';
import { ParseIdPipe } from '../common/pipes';
import { PlotsService } from './plots.service';
import { ApiEnvelope, ApiErrors } from '../common/api-docs.decorators';
import { Codes } from '../common/error-codes';
import { parseBody } from '../common/validation';
import { AvailablePlots, ModelPlotsDto, OnePlotDto, PlotAll, PlotOne } from './dto/plot.dto';

/** What every plot route can answer beyond the guard's codes: no result yet, no modelKey or an unknown one, a value that is not a string, a field other than modelKey and plotKey. */
const PLOT_ERRORS = [Codes.AnalysisUnfinished, Codes.MissingField, Codes.WrongType, Codes.UnknownField, Codes.ModelKeyNotFound];

/** The three plot routes, by GET with a query string and by POST with a JSON body (docs/decisions.md). */
@ApiTags('plots')
@Controller('analysis/:analysisId')
export class PlotsController {
  constructor(private readonly plots: PlotsService) {}

  @ApiEnvelope('Names of the plots of a model (modelKey in the query)', AvailablePlots)
  @ApiErrors(...PLOT_ERRORS)
  @Get('availablePlots')
  @Access(Permission.ProjectWrite, 'analysisId')
  @ApiQuery({ name: 'modelKey', required: true })
  availableByQuery(@Param('analysisId', ParseIdPipe) analysisId: string, @Query() query: unknown) {
    const q = parseBody(ModelPlotsDto, query);
    return this.plots.available(analysisId, q.modelKey);
  }

  @ApiEnvelope('Names of the plots of a model (modelKey in the body)', AvailablePlots)
  @ApiErrors(...PLOT_ERRORS)
  @Post('availablePlots')
  @HttpCode(200)
  @Access(Permission.ProjectWrite, 'analysisId')
  availableByBody(@Param('analysisId', ParseIdPipe) analysisId: string, @Body() b: ModelPlotsDto) {
    return this.plots.available(analysisId, b.modelKey);
  }

  @ApiEnvelope('One plot of a model (modelKey, plotKey in the query)', PlotOne)
  @ApiErrors(...PLOT_ERRORS, Codes.PlotKeyNotFound)
  @Get('getPlot')
  @Access(Permission.ProjectWrite, 'analysisId')
  @ApiQuery({ name: 'modelKey', required: true })
  @ApiQuery({ name: 'plotKey', required: true })
  plotByQuery(@Param('analysisId', ParseIdPipe) analysisId: string, @Query() query: unknown) {
    const q = parseBody(OnePlotDto, query);
    return this.plots.plot(analysisId, q.modelKey, q.plotKey);
  }

  @ApiEnvelope('One plot of a model (modelKey, plotKey in the body)', PlotOne)
  @ApiErrors(...PLOT_ERRORS, Codes.PlotKeyNotFound)
  @Post('getPlot')
  @HttpCode(200)
  @Access(Permission.ProjectWrite, 'analysisId')
  plotByBody(@Param('analysisId', ParseIdPipe) analysisId: string, @Body() b: OnePlotDto) {
    return this.plots.plot(analysisId, b.modelKey, b.plotKey);
  }

  @ApiEnvelope('Every plot of a model (modelKey in the query)', PlotAll)
  @ApiErrors(...PLOT_ERRORS)
  @Get('getPlots')
  @Access(Permission.ProjectWrite, 'analysisId')
  @ApiQuery({ name: 'modelKey', required: true })
  plotsByQuery(@Param('analysisId', ParseIdPipe) analysisId: string, @Query() query: unknown) {
    const q = parseBody(ModelPlotsDto, query);
    return this.plots.all(analysisId, q.modelKey);
  }

  @ApiEnvelope('Every plot of a model (modelKey in the body)', PlotAll)
  @ApiErrors(...PLOT_ERRORS)
  @Post('getPlots')
  @HttpCode(200)
  @Access(Permission.ProjectWrite, 'analysisId')
  plotsByBody(@Param('analysisId', ParseIdPipe) analysisId: string, @Body() b: ModelPlotsDto) {
    return this.plots.all(analysisId, b.modelKey);
  }
}
