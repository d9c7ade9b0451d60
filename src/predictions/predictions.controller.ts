import { Body, Controller, Get, HttpCode, Param, Post, Query, StreamableFile } from '@nestjs/common';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import { Access } from '../auth/access.decorator';
import { Auth, AuthContext } from '../auth/auth-context';
import { Permission } from '../auth/permission';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { ParseCountPipe, ParseIdPipe, ParseOffsetPipe } from '../common/pipes';
import { PredictDto, Prediction, PredictionPage, PredictionRef, PredictionResult, PredictionStatus } from './dto/predict.dto';
import { PredictionsService } from './predictions.service';
import { ApiEnvelope, ApiErrors, bodyErrors } from '../common/api-docs.decorators';

@ApiTags('predictions')
@Controller()
export class PredictionsController {
  constructor(private readonly predictions: PredictionsService) {}

  @ApiEnvelope("Predict a dataset with a model of an analysis' result", PredictionRef)
  @ApiErrors(
    ...bodyErrors(PredictDto),
    Codes.AnalysisUnfinished,
    Codes.SignatureIndexUnavailable,
    Codes.PredictionColumnsMissing,
    Codes.TooManyQueuedJobs,
    Codes.UnknownField,
    Codes.ResultPartMissing,
  )
  @Post('analysis/:analysisId/predict/:datasetId')
  @HttpCode(200)
  @Access(Permission.ProjectExecute, 'analysisId')
  @Access(Permission.ProjectRead, 'datasetId')
  create(
    @Auth() auth: AuthContext,
    @Param('analysisId', ParseIdPipe) analysisId: string,
    @Param('datasetId', ParseIdPipe) datasetId: string,
    @Body() dto: PredictDto,
  ) {
    return this.predictions.create(auth.userId, analysisId, datasetId, dto);
  }

  @ApiEnvelope('Status of a prediction', PredictionStatus)
  @Get('prediction/:predictionId/status')
  @Access(Permission.ProjectRead, 'predictionId')
  @Access(Permission.ProjectRead, 'predictionId', { kind: 'predictionDataset' })
  status(@Param('predictionId', ParseIdPipe) predictionId: string) {
    return this.predictions.status(predictionId);
  }

  @ApiEnvelope('The predictions of a finished prediction (JSON, or CSV with format=csv)', PredictionResult, { csv: true })
  @ApiErrors(Codes.BadResultFormat, Codes.PredictionUnfinished, Codes.UnknownField)
  @Get('prediction/:predictionId/result')
  @Access(Permission.ProjectRead, 'predictionId')
  @Access(Permission.ProjectRead, 'predictionId', { kind: 'predictionDataset' })
  @ApiQuery({ name: 'format', required: false, enum: ['json', 'csv'] })
  async result(@Param('predictionId', ParseIdPipe) predictionId: string, @Query() query: Record<string, unknown>) {
    // format is the only parameter: `format[]=csv` or a misspelling answered JSON as if nothing was asked
    const unknown = Object.keys(query).filter((k) => k !== 'format');
    if (unknown.length)
      throw new ApiError(Codes.UnknownField, `unknown query parameter ${JSON.stringify(unknown[0].slice(0, 40))}: only format`);
    const format = query.format;
    if (format !== undefined && format !== 'json' && format !== 'csv')
      throw new ApiError(Codes.BadResultFormat, 'format must be json or csv');
    if (format !== 'csv') {
      // the envelope is written around the stored rows' text (see resultJson), so it is sent as it is
      return new StreamableFile(Buffer.from(await this.predictions.resultJson(predictionId), 'utf8'), {
        type: 'application/json; charset=utf-8',
      });
    }
    const csv = await this.predictions.resultCsv(predictionId);
    return new StreamableFile(Buffer.from(csv, 'utf8'), {
      type: 'text/csv; charset=utf-8',
      disposition: `attachment; filename="prediction-${predictionId}.csv"`,
    });
  }

  @ApiEnvelope('List the predictions made with an analysis', PredictionPage)
  @Get('analysis/:analysisId/predictions/:offset/:count')
  @Access(Permission.ProjectRead, 'analysisId')
  list(
    @Auth() auth: AuthContext,
    @Param('analysisId', ParseIdPipe) analysisId: string,
    @Param('offset', ParseOffsetPipe) offset: number,
    @Param('count', ParseCountPipe) count: number,
  ) {
    // only the predictions whose dataset the caller may read too (docs/decisions.md)
    return this.predictions.list(analysisId, offset, count, auth.userId);
  }

  @ApiEnvelope('Delete a prediction', Prediction)
  @Post('prediction/:predictionId/delete')
  @HttpCode(200)
  @Access(Permission.ProjectWrite, 'predictionId')
  delete(@Param('predictionId', ParseIdPipe) predictionId: string) {
    return this.predictions.delete(predictionId);
  }
}
