import { Controller, Get, Param, Query, StreamableFile } from '@nestjs/common';
import { Readable } from 'node:stream';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import { Access } from '../auth/access.decorator';
import { Permission } from '../auth/permission';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { ParseCountPipe, ParseIdPipe, ParseOffsetPipe } from '../common/pipes';
import { parseBody } from '../common/validation';
import { ApiEnvelope, ApiErrors } from '../common/api-docs.decorators';
import { ModelKeyDto } from './dto/model-key.dto';
import { ResultDetailsService } from './result-details.service';
import { isModelKey } from '../engine/types';
import { ConfigurationPage, OutOfFoldPredictions } from './dto/result.dto';

/** The leaderboard and the out-of-fold predictions of a finished analysis (read permission, as its result). */
@ApiTags('analyses')
@Controller('analysis/:analysisId')
export class ResultDetailsController {
  constructor(private readonly details: ResultDetailsService) {}

  @ApiEnvelope('Every configuration the analysis evaluated, from the highest pooled out-of-fold primary metric', ConfigurationPage)
  @ApiErrors(Codes.AnalysisUnfinished, Codes.ResultPartMissing)
  @Get('configurations/:offset/:count')
  @Access(Permission.ProjectRead, 'analysisId', { notFound: Codes.AnalysisResultUnknown })
  configurations(
    @Param('analysisId', ParseIdPipe) analysisId: string,
    @Param('offset', ParseOffsetPipe) offset: number,
    @Param('count', ParseCountPipe) count: number,
  ) {
    return this.details.configurations(analysisId, offset, count);
  }

  @ApiEnvelope('The out-of-fold predictions of a model, per sample (JSON, or CSV with format=csv)', OutOfFoldPredictions, { csv: true })
  @ApiErrors(
    Codes.AnalysisUnfinished,
    Codes.ResultPartMissing,
    Codes.ModelKeyNotFound,
    Codes.MissingField,
    Codes.WrongType,
    Codes.UnknownField,
    Codes.BadResultFormat,
  )
  @Get('outOfFoldPredictions')
  @Access(Permission.ProjectRead, 'analysisId', { notFound: Codes.AnalysisResultUnknown })
  @ApiQuery({ name: 'modelKey', required: true })
  @ApiQuery({ name: 'format', required: false, enum: ['json', 'csv'] })
  @ApiQuery({
    name: 'explain',
    required: false,
    enum: ['true', 'false'],
    description: "JSON: add each sample's explanation (the Shapley values of its prediction)",
  })
  async outOfFold(@Param('analysisId', ParseIdPipe) analysisId: string, @Query() query: Record<string, unknown>) {
    const { format, explain, ...rest } = query;
    const { modelKey } = parseBody(ModelKeyDto, rest);
    if (explain !== undefined && explain !== 'true' && explain !== 'false')
      throw new ApiError(Codes.WrongType, 'explain must be true or false');
    if (format !== undefined && format !== 'json' && format !== 'csv')
      throw new ApiError(Codes.BadResultFormat, 'format must be json or csv');
    if (format !== 'csv') {
      // the envelope is written around the stored rows' bytes (as prediction results are), so it is sent as it is
      return new StreamableFile(Readable.from(await this.details.outOfFold(analysisId, modelKey, explain === 'true')), {
        type: 'application/json; charset=utf-8',
      });
    }
    const csv = await this.details.outOfFoldCsv(analysisId, modelKey);
    return new StreamableFile(Readable.from(csv), {
      type: 'text/csv; charset=utf-8',
      disposition: `attachment; filename="analysis-${analysisId}-${isModelKey(modelKey) ? modelKey : 'model'}-out-of-fold.csv"`,
    });
  }
}
