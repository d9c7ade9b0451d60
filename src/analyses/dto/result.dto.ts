import { Id, MapOf, NullableNumber, OneOf, PageOf, StringEnum, Type } from '../../common/api-schema';
import type { Fits, Static } from '../../common/api-schema';
import type { ShapleyMethod } from '../../engine/explain/types';
import type { OutputScale } from '../../engine/models/shapley-form';
import type {
  ConfigurationSummary,
  Explanation as EngineExplanation,
  ModelReport,
  SearchFacts as EngineSearchFacts,
} from '../../engine/types';
import { MODEL_FAMILIES } from '../../engine/models';
import { ModelKey } from '../../engine/types';
import { AnalysisEstimate, AnalysisParameters } from './analysis.dto';

/** A 95% interval. */
const Cis = Type.Array(Type.Number(), { minItems: 2, maxItems: 2, description: '95% interval (lower, upper)' });
const Numbers = Type.Array(Type.Number());

/** The coefficients of a linear model (ridge, logistic, Cox). */
const ModelView = Type.Object({
  featureNames: Type.Array(Type.String()),
  coefficients: OneOf([Numbers, Type.Array(Numbers)]),
  intercept: Type.Optional(
    OneOf([Type.Number(), Numbers], {
      description:
        'with originalCoefficients: the linear predictor is intercept + sum of coefficient x value (one per class of a multinomial model)',
    }),
  ),
  originalCoefficients: Type.Optional(
    OneOf([Numbers, Type.Array(Numbers)], {
      description: 'per unit of each numerical feature, per level (against the reference level) of a categorical one',
    }),
  ),
  hazardRatios: Type.Optional(Type.Array(Type.Number(), { description: 'Cox models: hazard ratio per unit of each feature' })),
  classes: Type.Optional(
    Type.Array(Type.String(), { description: 'logistic models: the class of each row of coefficients (binary: the positive class)' }),
  ),
});

const CalibrationFacts = Type.Object(
  {
    logLoss: Type.Optional(Type.Number({ description: 'log loss of the out-of-fold probabilities (absent in results of engine 0.2)' })),
    brier: Type.Number({ description: 'Brier score of the out-of-fold probabilities' }),
    ece: Type.Number({ description: 'expected calibration error (10 bins of equal count) of the out-of-fold probabilities' }),
    method: Type.Optional(
      StringEnum(['platt', 'temperature', 'isotonic'], {
        description:
          'present when the probabilities are calibrated (the values above are then after it): Platt scaling (two classes) or temperature scaling (more); isotonic in results of engine 0.2',
      }),
    ),
    uncalibrated: Type.Optional(
      Type.Object(
        { logLoss: Type.Optional(Type.Number()), brier: Type.Number(), ece: Type.Number() },
        { description: 'before calibration' },
      ),
    ),
  },
  { description: 'classification: how well the probabilities are calibrated' },
);

/** One model of a result (docs/api-reference.md's Model object, with docs/decisions.md's additions). */
export const Model = Type.Object(
  {
    preprocessing: Type.String({ description: 'preprocessing steps' }),
    featureSelection: Type.String({ description: 'feature-selection algorithm' }),
    model: Type.String({ description: 'statistical model' }),
    signatures: Type.Array(Type.Array(Type.String()), { description: 'reference signature first' }),
    signatureCount: Type.Optional(Type.Integer({ description: 'equivalent signatures found in all' })),
    performance: MapOf(Type.Number(), {
      description: 'metric name -> estimate on new data, bias-corrected for the choice among the configurations (BBC-CV)',
    }),
    performanceCis: Type.Optional(MapOf(Cis, { description: 'metric name -> 95% interval' })),
    pooledPerformance: Type.Optional(
      MapOf(Type.Number(), {
        description:
          "metric name -> value on this model's own out-of-fold predictions (the value its plots show: the ROC curve's area, the confusion matrix's sensitivity); not corrected for the choice among the configurations",
      }),
    ),
    pooledPerformanceCis: Type.Optional(
      MapOf(Cis, {
        description: 'metric name -> 95% bootstrap interval (the bootstraps of the ROC Curve, Calibration and Confusion Matrix plots)',
      }),
    ),
    stability: Type.Optional(
      MapOf(Type.Number({ minimum: 0, maximum: 1 }), {
        description:
          'feature of a shown signature -> fraction of the cross-validation folds in which the selector chose it or one of its equivalents',
      }),
    ),
    modelView: Type.Optional(ModelView),
    classes: Type.Optional(
      Type.Array(Type.String(), { description: 'classification: the class labels, in the order of the probabilities' }),
    ),
    positiveClass: Type.Optional(
      Type.String({ description: 'binary classification: the class the ROC curve, sensitivity and the log-odds are of' }),
    ),
    calibration: Type.Optional(CalibrationFacts),
  },
  { $id: 'Model' },
);
export type Model = Static<typeof Model>;
/** the engine's report of a model (engine/types.ts) is what this schema says */
export const MODEL_FITS: Fits<ModelReport, Model> = true;

/** How much of the grid the search tried, and whether the time limit stopped it (docs/api-guide.md, "Running time and time limit"). */
const SearchFacts = Type.Object(
  {
    configurationsPlanned: Type.Integer({ description: 'the configurations of the grid of the thoroughness' }),
    configurationsTried: Type.Integer({
      description:
        'the configurations evaluated on every fold of every repeat (or dropped early by BBCD-CV on the way): the models, their bias-corrected estimates and the leaderboard are over these',
    }),
    stoppedAtTimeLimit: Type.Boolean({ description: 'timeLimitSeconds stopped the search before it tried every configuration' }),
    firstRoundOverran: Type.Optional(
      Type.Boolean({ description: "the search's first round, which always completes, ran past the time the limit left for the search" }),
    ),
    timeLimitSeconds: Type.Optional(Type.Integer({ description: 'the limit, when the analysis had one' })),
  },
  { description: 'how much of the grid the search tried (absent in results stored before)' },
);
/** the engine's facts of the search (engine/types.ts) are what this schema says */
export const SEARCH_FITS: Fits<EngineSearchFacts, Static<typeof SearchFacts>> = true;

export const AnalysisResult = Type.Object(
  {
    analysisId: Id('identifier'),
    parameters: AnalysisParameters,
    mlEngine: Type.String({ description: 'engine and version that produced the result' }),
    startTime: Type.String({ format: 'date-time' }),
    executionTimeInSeconds: Type.Number(),
    models: MapOf(Model, { description: 'model key (best, interpretable) -> model' }),
    estimate: Type.Optional(
      Type.Unsafe<AnalysisEstimate>({
        allOf: [AnalysisEstimate],
        description:
          'the estimate made when the analysis was created (absent for analyses created before estimates), beside the actual executionTimeInSeconds',
      }),
    ),
    search: Type.Optional(SearchFacts),
  },
  { $id: 'AnalysisResult' },
);
export type AnalysisResult = Static<typeof AnalysisResult>;

/** A row of the leaderboard (decisions beyond api-v1: the configurations an analysis evaluated). */
export const Configuration = Type.Object(
  {
    rank: Type.Integer({ description: '1 for the highest metric' }),
    configuration: Type.Integer({ description: 'index in the grid of the thoroughness' }),
    featureSelection: Type.String({ description: 'feature-selection algorithm and settings' }),
    model: Type.String({ description: 'statistical model and settings' }),
    interpretable: Type.Boolean(),
    metric: Type.String({ description: 'the primary metric' }),
    value: NullableNumber(
      'pooled out-of-fold value, the one the winner rule compared (of its calibrated probabilities when calibrated); droppedEarly: on the samples evaluated when dropped',
    ),
    uncalibratedValue: Type.Optional(
      Type.Number({ description: 'a calibrated configuration: the pooled out-of-fold value of its probabilities before calibration' }),
    ),
    calibration: Type.Optional(
      StringEnum(['platt', 'temperature'], {
        description: 'the calibration its probabilities go through (absent: none lowered their log loss and Brier score)',
      }),
    ),
    signatureSize: Type.Number({ description: 'mean size of its selector signature over the training folds' }),
    droppedEarly: Type.Boolean({ description: 'BBCD-CV stopped evaluating it (it lost to the leader with probability above 0.99)' }),
    standardError: Type.Optional(
      Type.Number({
        description: "the winner rule (absent when dropped early): the standard error of the leader's lead over it (0 for the leader)",
      }),
    ),
    tiedOnMetric: Type.Optional(Type.Boolean({ description: "the winner rule: its value is within one standard error of the leader's" })),
    logLoss: Type.Optional(
      Type.Number({ description: 'classification: the log loss of its out-of-fold probabilities (calibrated when it is)' }),
    ),
    logLossStandardError: Type.Optional(
      Type.Number({
        description:
          'classification, tied on the metric: the standard error of its log loss above the lowest of those tied on the metric (0 for that one)',
      }),
    ),
    tied: Type.Optional(
      Type.Boolean({ description: 'the winner rule: tied with the leader, on the metric and, for classification, on the log loss' }),
    ),
    simplicity: Type.Optional(
      Type.Object(
        {
          features: Type.Integer({ description: 'mean signature size, rounded (fewer first)' }),
          // the families as the kinds of model name and rank them (a string in the engine's summary)
          family: Type.Unsafe<string>({ type: 'string', enum: MODEL_FAMILIES, description: 'from the most to the least interpretable' }),
          flexibility: Type.Number({ description: 'within the family: smaller is more strongly regularised (smaller first)' }),
        },
        { description: "the winner rule's simplicity keys, in the order it compares them" },
      ),
    ),
    simplicityRank: Type.Optional(
      Type.Integer({ description: 'position in the simplicity order (1 = simplest): best is the tied row with the smallest' }),
    ),
    interpretableStandardError: Type.Optional(
      Type.Number({
        description: 'an interpretable configuration, when the result has an interpretable model: against the best interpretable one',
      }),
    ),
    interpretableTied: Type.Optional(Type.Boolean({ description: 'an interpretable configuration: tied with the best interpretable one' })),
    modelKey: Type.Optional(StringEnum(Object.values(ModelKey), { description: 'the model of the result it became' })),
  },
  { $id: 'Configuration' },
);
export type Configuration = Static<typeof Configuration>;
/** the engine's summary of a configuration (engine/types.ts) is a row of it, without its rank */
export const CONFIGURATION_FITS: Fits<ConfigurationSummary, Omit<Configuration, 'rank'>> = true;

export const ConfigurationPage = PageOf('ConfigurationPage', Configuration, { analysisId: Id('echoed') });
export type ConfigurationPage = Static<typeof ConfigurationPage>;

/** The values of a type that is a union of strings, each once: the compiler checks that every member is there. */
const valuesOf = <T extends string>(members: Record<T, true>): T[] => Object.keys(members) as T[];

/** Interventional Shapley values of one prediction (the engine's Explanation, engine/types.ts). */
export const Explanation = Type.Object(
  {
    scale: StringEnum(
      valuesOf<OutputScale>({
        prediction: true,
        'log-odds': true,
        'softmax score': true,
        probability: true,
        'decision value': true,
        'one-vs-one decision sum': true,
        'log relative hazard': true,
        risk: true,
      }),
      {
        description:
          "the model's output the base and the contributions add up to, before a classifier's probability floor and calibration (docs/api-guide.md, Explanations)",
      },
    ),
    method: StringEnum(
      valuesOf<ShapleyMethod>({ closedForm: true, exactTree: true, exactKernel: true, enumeration: true, sampling: true }),
      { description: 'how the Shapley values were computed: exactly, or by sampling with standard errors' },
    ),
    outputs: Type.Array(
      Type.Object({
        class: Type.Optional(Type.String({ description: 'classification: the class whose output this is' })),
        value: Type.Number({ description: 'the output: base + the sum of the contributions' }),
        base: Type.Number({ description: "the mean output over the model's background of training samples" }),
        contributions: MapOf(Type.Number(), { description: 'feature -> contribution' }),
        standardErrors: Type.Optional(
          MapOf(Type.Number(), { description: 'method sampling: feature -> standard error of its contribution' }),
        ),
      }),
    ),
  },
  {
    $id: 'Explanation',
    description:
      'interventional Shapley values of one prediction: one output per class explained (binary: the positive class) or the one output',
  },
);
export type Explanation = Static<typeof Explanation>;
/** the engine's explanation (engine/types.ts) is what this schema says */
export const EXPLANATION_FITS: Fits<EngineExplanation, Explanation> = true;

/** An explanation beside a prediction, `description` saying which. */
export const ExplanationOf = (description: string) => Type.Unsafe<Explanation>({ allOf: [Explanation], description });

/** The fields a row of predictions (out-of-fold, or of a prediction) starts with: which sample it is. */
export const SAMPLE_FIELDS = {
  row: Type.Integer({ description: 'zero-based row of the dataset' }),
  sampleId: Type.Optional(Type.String({ description: 'the sample id, when the dataset has an identifier feature' })),
};

/** The fields that follow a row's prediction: the class probabilities or the survival risk. */
export const SCORE_FIELDS = {
  probabilities: Type.Optional(MapOf(Type.Number(), { description: 'class -> probability' })),
  risk: Type.Optional(Type.Number({ description: 'survival: higher is an earlier event' })),
};

/** One sample's out-of-fold prediction. */
export const OutOfFoldRow = Type.Object({
  ...SAMPLE_FIELDS,
  actual: OneOf([Type.String({ description: 'class label' }), Type.Number({ description: 'value or time' })]),
  event: Type.Optional(Type.Integer({ description: 'survival: 1 = event, 0 = censored' })),
  prediction: OneOf([Type.String({ description: 'class of highest probability' }), Type.Number({ description: 'value or risk score' })]),
  ...SCORE_FIELDS,
  explanation: Type.Optional(
    ExplanationOf(
      "explain=true: the Shapley values of the sample's prediction by the reference signature refitted on the plot fold that held it out (close to, not equal to, the prediction above)",
    ),
  ),
});
export type OutOfFoldRow = Static<typeof OutOfFoldRow>;

export const OutOfFoldPredictions = Type.Object(
  {
    analysisId: Id('echoed'),
    modelKey: Type.String({ description: 'echoed' }),
    repeats: Type.Integer({ description: 'repeats of the cross-validation: each prediction is the mean over them' }),
    predictions: Type.Array(OutOfFoldRow),
  },
  { $id: 'OutOfFoldPredictions' },
);
export type OutOfFoldPredictions = Static<typeof OutOfFoldPredictions>;
