import { Body, Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBody, ApiTags } from '@nestjs/swagger';
import { Access } from '../auth/access.decorator';
import { Auth, AuthContext, AuthedRequest } from '../auth/auth-context';
import { Permission } from '../auth/permission';
import { Codes } from '../common/error-codes';
import { ParseCountPipe, ParseIdPipe, ParseOffsetPipe } from '../common/pipes';
import { AnalysesService } from './analyses.service';
import { AnalyzeDto } from './dto/analyze.dto';
import { ApiEnvelope, ApiErrors, bodyErrors } from '../common/api-docs.decorators';
import { AnalysisRef, AnalysisCheck, Analysis, AnalysisPage, AnalysisStatus } from './dto/analysis.dto';
import { AnalysisResult } from './dto/result.dto';

/** The body is validated by checkParameters (AnalyzeDto, then the dataset's features); AnalyzeDto documents it. */
const ANALYZE_BODY = { type: AnalyzeDto };
/** The body's own codes, then those of checking it against the dataset and the caller's cores. */
const ANALYZE_ERRORS = [
  ...bodyErrors(AnalyzeDto),
  Codes.UnknownOutcomeFeature,
  Codes.OutcomeFeatureType,
  Codes.UnknownGroupingFeature,
  Codes.GroupingFeatureType,
  Codes.CoreCountTooHigh,
  Codes.DatasetNotAnalysable,
];

@ApiTags('analyses')
@Controller()
export class AnalysesController {
  constructor(private readonly analyses: AnalysesService) {}

  @ApiEnvelope('Start an analysis of a dataset', AnalysisRef)
  @ApiErrors(...ANALYZE_ERRORS, Codes.TooManyQueuedJobs)
  @Post('dataset/:datasetId/analyze')
  @HttpCode(200)
  @Access(Permission.ProjectExecute, 'datasetId')
  @ApiBody(ANALYZE_BODY)
  analyze(
    @Auth() auth: AuthContext,
    @Param('datasetId', ParseIdPipe) datasetId: string,
    @Req() req: AuthedRequest,
    @Body() body: Record<string, unknown>,
  ) {
    return this.analyses.analyze(auth.userId, datasetId, req.projectOf?.datasetId as string, body);
  }

  @ApiEnvelope('Check analysis parameters against a dataset without starting anything: the violations analyze would answer', AnalysisCheck)
  @ApiErrors(...ANALYZE_ERRORS)
  @Post('check/dataset/:datasetId/analyze')
  @HttpCode(200)
  @Access(Permission.ProjectExecute, 'datasetId')
  @ApiBody(ANALYZE_BODY)
  check(@Auth() auth: AuthContext, @Param('datasetId', ParseIdPipe) datasetId: string, @Body() body: Record<string, unknown>) {
    return this.analyses.check(auth.userId, datasetId, body);
  }

  @ApiEnvelope('Get an analysis', Analysis)
  @Get('analysis/:analysisId')
  @Access(Permission.ProjectRead, 'analysisId')
  get(@Param('analysisId', ParseIdPipe) analysisId: string) {
    return this.analyses.get(analysisId);
  }

  @ApiEnvelope('List the analyses of a project', AnalysisPage)
  @Get('analyses/all/:projectId/:offset/:count')
  @Access(Permission.ProjectRead, 'projectId')
  list(
    @Param('projectId', ParseIdPipe) projectId: string,
    @Param('offset', ParseOffsetPipe) offset: number,
    @Param('count', ParseCountPipe) count: number,
  ) {
    return this.analyses.list(projectId, offset, count);
  }

  @ApiEnvelope('Status of an analysis (progress while running)', AnalysisStatus)
  @Get('analysis/:analysisId/status')
  @Access(Permission.ProjectRead, 'analysisId')
  status(@Param('analysisId', ParseIdPipe) analysisId: string) {
    return this.analyses.status(analysisId);
  }

  @ApiEnvelope('The result of a finished analysis: models, signatures, performance', AnalysisResult)
  @ApiErrors(Codes.AnalysisUnfinished)
  @Get('analysis/:analysisId/result')
  @Access(Permission.ProjectRead, 'analysisId', { notFound: Codes.AnalysisResultUnknown })
  result(@Param('analysisId', ParseIdPipe) analysisId: string) {
    return this.analyses.result(analysisId);
  }

  @ApiEnvelope('Delete an analysis (its state just before is returned)', Analysis)
  @Post('analysis/:analysisId/delete')
  @HttpCode(200)
  @Access(Permission.ProjectWrite, 'analysisId')
  delete(@Param('analysisId', ParseIdPipe) analysisId: string) {
    return this.analyses.delete(analysisId);
  }
}
