import { Body, Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBody, ApiBodyOptions, ApiTags } from '@nestjs/swagger';
import { Access } from '../auth/access.decorator';
import { Auth, AuthContext, AuthedRequest } from '../auth/auth-context';
import { Permission } from '../auth/permission';
import { Codes } from '../common/error-codes';
import { ParseCountPipe, ParseIdPipe, ParseOffsetPipe } from '../common/pipes';
import { AnalysesService } from './analyses.service';

const ANALYZE_BODY: ApiBodyOptions = {
  schema: {
    type: 'object',
    required: ['outcome', 'thoroughness', 'coreCount', 'name'],
    properties: {
      outcome: {
        oneOf: [
          { type: 'object', properties: { regression: { type: 'string' } } },
          { type: 'object', properties: { classification: { type: 'string' } } },
          {
            type: 'object',
            properties: { survival: { type: 'object', properties: { event: { type: 'string' }, timeToEvent: { type: 'string' } } } },
          },
        ],
      },
      groupingFeature: { type: 'string' },
      modelsConsidered: { type: 'string', enum: ['interpretable', 'all'], default: 'all' },
      featureSelection: { type: 'string', enum: ['mostRelevant', 'mostRelevantOrAll'], default: 'mostRelevant' },
      thoroughness: { type: 'string', enum: ['preliminary', 'typical', 'extensive'] },
      coreCount: { type: 'integer', minimum: 1 },
      maxSignatureSize: { type: 'integer', minimum: 1, default: 25 },
      maxVisualizedSignatureCount: { type: 'integer', minimum: 1, default: 5 },
      name: { type: 'string', maxLength: 120 },
    },
  },
};

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
