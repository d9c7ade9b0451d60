import { ApiProperty } from '@nestjs/swagger';
import { ValidateBy, ValidationArguments } from 'class-validator';
import { Codes } from '../../common/error-codes';
import { ValidateEnum, ValidatePositiveInt, ValidateText } from '../../common/validation';
import { refTo } from '../../common/api-schema';
import { OUTCOME_FORMS } from './analysis.dto';
import { FeatureSelection, ModelsConsidered, Thoroughness } from '../../engine/types';
import type { AnalysisParameters, Outcome } from '../../engine/types';

/** Upper bounds of the analyze parameters api-v1 leaves open (docs/api-guide.md, error codes badRequest-120-0-8 and -9). */
export const MAX_SIGNATURE_SIZE = 1000;
export const MAX_VISUALIZED_SIGNATURES = 50;
/**
 * Bounds of timeLimitSeconds (badRequest-120-0-14): under 10 s an analysis has no time for a search and its final
 * phase (its engine process alone takes a second to start); seven days is beyond any analysis the grids plan.
 */
export const MIN_TIME_LIMIT_SECONDS = 10;
export const MAX_TIME_LIMIT_SECONDS = 7 * 24 * 3600;

/** The values of the optional parameters an analysis gets when its body leaves them out (docs/api-reference.md, "Analyze dataset"). */
export const ANALYZE_DEFAULTS = {
  modelsConsidered: ModelsConsidered.All,
  featureSelection: FeatureSelection.MostRelevant,
  maxSignatureSize: 25,
  maxVisualizedSignatureCount: 5,
} as const satisfies Partial<AnalysisParameters>;

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const isName = (v: unknown) => typeof v === 'string' && v.length > 0;

/** What is wrong with the shape of an outcome (which features it names is checked against the dataset later). */
export function outcomeProblem(o: unknown): string | undefined {
  const forms = 'outcome must be one of { regression }, { classification }, { survival }';
  if (!isObject(o) || Object.keys(o).length !== 1) return forms;
  if ('regression' in o) return isName(o.regression) ? undefined : 'the regression outcome must name a feature';
  if ('classification' in o) return isName(o.classification) ? undefined : 'the classification outcome must name a feature';
  if (!('survival' in o)) return forms;
  const s = o.survival;
  if (!isObject(s) || Object.keys(s).some((k) => k !== 'event' && k !== 'timeToEvent')) return 'survival must be { event, timeToEvent }';
  if (!isName(s.event)) return 'the survival event must name a feature';
  if (!isName(s.timeToEvent)) return 'the survival time to event must name a feature';
  return undefined;
}

/** The body of analyze and of its check (docs/api-reference.md, "Analyze dataset"); fields in the order they are reported. */
export class AnalyzeDto {
  // the named forms (./analysis.dto.ts): a oneOf of inline objects is what generators cannot name
  @ApiProperty({ description: 'the outcome to predict, one of three forms', oneOf: OUTCOME_FORMS.map((form) => refTo(form.$id as string)) })
  @ValidateBy(
    { name: 'isDefined', validator: { validate: (v) => v !== undefined } },
    { message: 'outcome is required', context: { code: Codes.MissingField } },
  )
  @ValidateBy(
    { name: 'isOutcome', validator: { validate: (v) => v === undefined || outcomeProblem(v) === undefined } },
    { message: (a: ValidationArguments) => outcomeProblem(a.value) ?? '', context: { code: Codes.BadOutcome } },
  )
  outcome: Outcome;

  @ValidateEnum('thoroughness', Object.values(Thoroughness), { nullIs: 'value', code: Codes.BadThoroughness })
  thoroughness: AnalysisParameters['thoroughness'];

  @ValidateEnum('modelsConsidered', Object.values(ModelsConsidered), {
    optional: true,
    nullIs: 'value',
    code: Codes.BadModelsConsidered,
    default: ANALYZE_DEFAULTS.modelsConsidered,
  })
  modelsConsidered?: AnalysisParameters['modelsConsidered'];

  @ValidateEnum('featureSelection', Object.values(FeatureSelection), {
    optional: true,
    nullIs: 'value',
    code: Codes.BadFeatureSelection,
    default: ANALYZE_DEFAULTS.featureSelection,
  })
  featureSelection?: AnalysisParameters['featureSelection'];

  @ValidatePositiveInt('coreCount', {
    nullIs: 'value',
    code: Codes.BadCoreCount,
    description: 'at most the cores currently available to the user',
  })
  coreCount: number;

  // bounded: the LASSO path runs to 2 x maxSignatureSize + 20 non-zero columns, and every shown signature is refitted
  @ValidatePositiveInt('maxSignatureSize', {
    optional: true,
    nullIs: 'value',
    code: Codes.BadMaxSignatureSize,
    default: ANALYZE_DEFAULTS.maxSignatureSize,
    max: MAX_SIGNATURE_SIZE,
  })
  maxSignatureSize?: number;

  @ValidatePositiveInt('maxVisualizedSignatureCount', {
    optional: true,
    nullIs: 'value',
    code: Codes.BadMaxVisualizedSignatureCount,
    default: ANALYZE_DEFAULTS.maxVisualizedSignatureCount,
    max: MAX_VISUALIZED_SIGNATURES,
  })
  maxVisualizedSignatureCount?: number;

  @ValidateText('name', { nullIs: 'value', min: 1, max: 120, typeCode: Codes.BadAnalysisName, visible: true })
  name: string;

  // feature names are at most 200 characters (the table parser's limit): a longer one names no feature
  @ValidateText('groupingFeature', {
    optional: true,
    nullIs: 'value',
    max: 200,
    typeCode: Codes.UnknownGroupingFeature,
    description: 'an identifier feature; its groups are never split between training and test data',
  })
  groupingFeature?: string;

  // an addition to api-v1's parameters (docs/api-guide.md, "Time limit"); absent: the whole grid is searched
  @ValidatePositiveInt('timeLimitSeconds', {
    optional: true,
    nullIs: 'value',
    code: Codes.BadTimeLimit,
    min: MIN_TIME_LIMIT_SECONDS,
    max: MAX_TIME_LIMIT_SECONDS,
    description:
      'bounds the running time: the search stops in time for the final phase and the result is over the configurations it tried (absent: every configuration)',
  })
  timeLimitSeconds?: number;
}
