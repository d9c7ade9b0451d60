import { Body, Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBody, ApiTags } from '@nestjs/swagger';
import { Access } from '../auth/access.decorator';
import { Auth, AuthContext, AuthedRequest } from '../auth/auth-context';
import { Permission } from '../auth/permission';
import { Codes } from '../common/error-codes';
import { ParseCountPipe, ParseIdPipe, ParseOffsetPipe } from '../common/pipes';
import { AnalysesService } from './analyses.service';
import { AnalyzeDto } from './dto/analyze.dto';

/** The body is validated by checkParameters (AnalyzeDto, then the dataset's features); AnalyzeDto documents it. */
const ANALYZE_BODY = { type: AnalyzeDto };

@ApiTags('analyses')
@Controller()
export class AnalysesController {
  constructor(private readonly analyses: AnalysesService) {}

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

  @Post('check/dataset/:datasetId/analyze')
  @HttpCode(200)
  @Access(Permission.ProjectExecute, 'datasetId')
  @ApiBody(ANALYZE_BODY)
  check(@Auth() auth: AuthContext, @Param('datasetId', ParseIdPipe) datasetId: string, @Body() body: Record<string, unknown>) {
    return this.analyses.check(auth.userId, datasetId, body);
  }

  @Get('analysis/:analysisId')
  @Access(Permission.ProjectRead, 'analysisId')
  get(@Param('analysisId', ParseIdPipe) analysisId: string) {
    return this.analyses.get(analysisId);
  }

  @Get('analyses/all/:projectId/:offset/:count')
  @Access(Permission.ProjectRead, 'projectId')
  list(
    @Param('projectId', ParseIdPipe) projectId: string,
    @Param('offset', ParseOffsetPipe) offset: number,
    @Param('count', ParseCountPipe) count: number,
  ) {
    return this.analyses.list(projectId, offset, count);
  }

  @Get('analysis/:analysisId/status')
  @Access(Permission.ProjectRead, 'analysisId')
  status(@Param('analysisId', ParseIdPipe) analysisId: string) {
    return this.analyses.status(analysisId);
  }

  @Get('analysis/:analysisId/result')
  @Access(Permission.ProjectRead, 'analysisId', { notFound: Codes.AnalysisResultUnknown })
  result(@Param('analysisId', ParseIdPipe) analysisId: string) {
    return this.analyses.result(analysisId);
  }

  @Post('analysis/:analysisId/delete')
  @HttpCode(200)
  @Access(Permission.ProjectWrite, 'analysisId')
  delete(@Param('analysisId', ParseIdPipe) analysisId: string) {
    return this.analyses.delete(analysisId);
  }
}
