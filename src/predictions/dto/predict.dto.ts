import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsInt, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import { Codes } from '../../common/error-codes';
import { code } from '../../common/validation';

export class PredictDto {
  @ApiProperty({ example: 'best', description: 'a key of the models of the analysis result' })
  @IsDefined(code(Codes.MissingField, 'modelKey is required'))
  @IsString(code(Codes.WrongType, 'modelKey must be a string'))
  @MaxLength(100, code(Codes.ModelKeyNotFound, 'modelKey is not a model of the result'))
  modelKey: string;

  @ApiPropertyOptional({ default: 0, description: 'index in the model\'s signatures (0 = the reference signature); every signature shown has its own fitted model' })
  @IsOptional()
  @IsInt(code(Codes.WrongType, 'signatureIndex must be an integer'))
  @Min(0, code(Codes.WrongType, 'signatureIndex must not be negative'))
  signatureIndex?: number;
}

export interface PredictionView {
  predictionId: string;
  analysisId: string;
  datasetId: string;
  modelKey: string;
  signatureIndex: number;
  state: string;
}
