import { Id, OneOf, PageOf, StringEnum, Type } from '../../common/api-schema';
import type { Static } from '../../common/api-schema';
import { FeatureSelection, ModelsConsidered, Thoroughness } from '../../engine/types';
import { SubjectError, SubjectState } from '../../jobs/job-state';

/** The three forms of an analysis' outcome (docs/api-reference.md, "Analyze dataset"), each a named schema. */
export const RegressionOutcome = Type.Object(
  { regression: Type.String({ description: 'the numerical feature to predict' }) },
  { $id: 'RegressionOutcome' },
);
export const ClassificationOutcome = Type.Object(
  { classification: Type.String({ description: 'the categorical feature to predict' }) },
  { $id: 'ClassificationOutcome' },
);
export const SurvivalOutcome = Type.Object(
  {
    survival: Type.Object({
      event: Type.String({ description: 'the event feature' }),
      timeToEvent: Type.String({ description: 'the time-to-event feature' }),
    }),
  },
  { $id: 'SurvivalOutcome' },
);
export const OUTCOME_FORMS = [RegressionOutcome, ClassificationOutcome, SurvivalOutcome];

const ParametersFields = Type.Object({
  datasetId: Id('the dataset analysed'),
  outcome: OneOf(OUTCOME_FORMS, { description: '{ regression }, { classification } or { survival: { event, timeToEvent } }' }),
  groupingFeature: Type.Optional(Type.String()),
  modelsConsidered: Type.Optional(StringEnum(Object.values(ModelsConsidered))),
  featureSelection: Type.Optional(StringEnum(Object.values(FeatureSelection))),
  thoroughness: StringEnum(Object.values(Thoroughness)),
  coreCount: Type.Integer(),
  maxSignatureSize: Type.Optional(Type.Integer()),
  maxVisualizedSignatureCount: Type.Optional(Type.Integer()),
  name: Type.String(),
  timeLimitSeconds: Type.Optional(Type.Integer({ description: 'as given; absent: no limit' })),
});

/**
 * The parameters given to analyze (with their defaults) and the dataset analysed. Written out (not as Type.Object's
 * options) so that its description stays before its properties, where the document has always had it.
 */
export const AnalysisParameters = Type.Unsafe<Static<typeof ParametersFields>>({
  type: 'object',
  description: 'the parameters given to analyze (with their defaults) and the dataset analysed',
  properties: ParametersFields.properties,
  required: ParametersFields.required,
  $id: 'AnalysisParameters',
});
export type AnalysisParameters = Static<typeof AnalysisParameters>;

/** What an estimate is from: the data's shape alone (before the run), or the progress measured while it runs. */
export const EstimateBasis = { Shape: 'shape', Measured: 'measured' } as const;
export type EstimateBasis = (typeof EstimateBasis)[keyof typeof EstimateBasis];

const CostInterval = (description: string) =>
  Type.Object(
    {
      expected: Type.Number(),
      low: Type.Number({ description: 'the lower end of the interval the real value is expected in' }),
      high: Type.Number({ description: 'the upper end of that interval' }),
    },
    { description },
  );

/** What an analysis will cost (docs/api-guide.md, "Running time and time limit"): an addition to api-v1. */
export const AnalysisEstimate = Type.Object(
  {
    basis: StringEnum(Object.values(EstimateBasis), {
      description:
        "shape: predicted from the dataset's shape, the thoroughness and the cores before the run; measured: from the time the analysis has run and the fraction of its planned work done",
    }),
    executionTimeInSeconds: CostInterval('the running time from startTime to the end (capped by timeLimitSeconds when given)'),
    peakMemoryInBytes: CostInterval("the peak resident memory of the analysis's engine process (always from the shape)"),
  },
  {
    $id: 'AnalysisEstimate',
    description:
      'the expected running time and peak memory, each with an interval; pending: from the shape; running: measured once progress reaches 0.05; finished or failed: the estimate made when the analysis was created',
  },
);
export type AnalysisEstimate = Static<typeof AnalysisEstimate>;

export const AnalysisRef = Type.Object(
  {
    analysisId: Id('the analysis started'),
    estimate: Type.Optional(AnalysisEstimate),
  },
  { $id: 'AnalysisRef' },
);
export type AnalysisRef = Static<typeof AnalysisRef>;

/** What analyze would refuse (errors) and what it would accept with a caveat (warnings); nothing is started. */
export const AnalysisCheck = Type.Object(
  { errors: Type.Array(SubjectError), warnings: Type.Array(SubjectError) },
  {
    $id: 'AnalysisCheck',
    description: 'errors: what analyze would refuse, with the codes it would answer; warnings: accepted with a caveat',
  },
);
export type AnalysisCheck = Static<typeof AnalysisCheck>;

const AnalysisFields = {
  analysisId: Id('identifier'),
  projectId: Id('owning project'),
  parameters: AnalysisParameters,
  state: SubjectState,
};

export const Analysis = Type.Object(AnalysisFields, { $id: 'Analysis' });
export type Analysis = Static<typeof Analysis>;

export const AnalysisPage = PageOf('AnalysisPage', Analysis, { projectId: Id('echoed') });
export type AnalysisPage = Static<typeof AnalysisPage>;

export const AnalysisStatus = Type.Object(
  {
    ...AnalysisFields,
    startTime: Type.Optional(Type.String({ format: 'date-time', description: 'when running or finished (maybe when failed)' })),
    executionTimeInSeconds: Type.Optional(Type.Number({ description: 'when running or finished (maybe when failed)' })),
    progress: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'only while running' })),
    error: Type.Optional(SubjectError),
    estimate: Type.Optional(AnalysisEstimate),
  },
  { $id: 'AnalysisStatus' },
);
export type AnalysisStatus = Static<typeof AnalysisStatus>;
