import { Body, Controller, Get, HttpCode, Param, Post, Query, StreamableFile } from '@nestjs/common';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import { Access } from '../auth/access.decorator';
import { Permission } from '../auth/permission';
import { ApiEnvelope, ApiErrors, ApiFile, bodyErrors } from '../common/api-docs.decorators';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { ParseIdPipe } from '../common/pipes';
import { parseBody } from '../common/validation';
import { isModelKey } from '../engine/types';
import { ModelKeyDto } from '../analyses/dto/model-key.dto';
import { ModelCard, ScoreDto, ScoreResult } from './dto/model-export.dto';
import { ModelExportService } from './model-export.service';

/** What the model routes answer besides the guard's codes: no result, an unknown model or signature, a bad query. */
const MODEL_ERRORS = [
  Codes.AnalysisUnfinished,
  Codes.MissingField,
  Codes.WrongType,
  Codes.UnknownField,
  Codes.ModelKeyNotFound,
  Codes.SignatureIndexUnavailable,
];

/** The query's modelKey and signatureIndex (a decimal integer, default 0); `others` the other names it may hold. */
function modelQuery(query: Record<string, unknown>, others: string[] = []): { modelKey: string; signatureIndex: number } {
  const { signatureIndex, ...rest } = query;
  for (const name of others) delete rest[name];
  const { modelKey } = parseBody(ModelKeyDto, rest);
  if (signatureIndex !== undefined && (typeof signatureIndex !== 'string' || !/^\d{1,9}$/.test(signatureIndex)))
    throw new ApiError(Codes.WrongType, 'signatureIndex must be a non-negative integer');
  return { modelKey, signatureIndex: signatureIndex === undefined ? 0 : Number(signatureIndex) };
}

/** A finished analysis's models as they leave the service: the ONNX file, the model card, rows scored in one call. */
@ApiTags('predictions')
@Controller('analysis/:analysisId')
export class ModelExportController {
  constructor(private readonly models: ModelExportService) {}

  @ApiFile(
    "A model's signature as an ONNX file (format=onnx): preprocessing, model and calibration in one graph",
    'application/octet-stream',
  )
  @ApiErrors(...MODEL_ERRORS, Codes.ModelFormatUnknown, Codes.ModelNotExportable)
  @Get('model')
  @Access(Permission.ProjectRead, 'analysisId')
  @ApiQuery({ name: 'modelKey', required: true })
  @ApiQuery({ name: 'signatureIndex', required: false, description: "index in the model's signatures (default 0)" })
  @ApiQuery({ name: 'format', required: true, enum: ['onnx'] })
  async model(@Param('analysisId', ParseIdPipe) analysisId: string, @Query() query: Record<string, unknown>) {
    const { modelKey, signatureIndex } = modelQuery(query, ['format']);
    if (query.format !== 'onnx') throw new ApiError(Codes.ModelFormatUnknown, 'format must be onnx');
    const bytes = await this.models.onnx(analysisId, modelKey, signatureIndex);
    const name = `analysis-${analysisId}-${isModelKey(modelKey) ? modelKey : 'model'}-${signatureIndex}.onnx`;
    return new StreamableFile(bytes, { type: 'application/octet-stream', disposition: `attachment; filename="${name}"` });
  }

  @ApiEnvelope(
    "The model card of a model's signature: its inputs, outcome, metrics, signatures, training size, engine and parameters",
    ModelCard,
  )
  @ApiErrors(...MODEL_ERRORS)
  @Get('modelCard')
  @Access(Permission.ProjectRead, 'analysisId')
  @ApiQuery({ name: 'modelKey', required: true })
  @ApiQuery({ name: 'signatureIndex', required: false, description: "index in the model's signatures (default 0)" })
  modelCard(@Param('analysisId', ParseIdPipe) analysisId: string, @Query() query: Record<string, unknown>) {
    const { modelKey, signatureIndex } = modelQuery(query);
    return this.models.modelCard(analysisId, modelKey, signatureIndex);
  }

  @ApiEnvelope('Rows scored by a model within the request (at most 1,000), with the fields of a prediction', ScoreResult)
  @ApiErrors(
    ...bodyErrors(ScoreDto),
    Codes.AnalysisUnfinished,
    Codes.SignatureIndexUnavailable,
    Codes.PredictionColumnsMissing,
    Codes.PredictionInputRejected,
    Codes.PredictionFailed,
    Codes.ResultPartMissing,
  )
  @Post('score')
  @HttpCode(200)
  @Access(Permission.ProjectExecute, 'analysisId')
  score(@Param('analysisId', ParseIdPipe) analysisId: string, @Body() dto: ScoreDto) {
    return this.models.score(analysisId, dto);
  }
}
