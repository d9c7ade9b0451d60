import type { ReferenceObject, SchemaObject } from '@nestjs/swagger';
import { PLOT_SCHEMAS } from '../engine/plots';

type Schema = SchemaObject | ReferenceObject;

/**
 * The payload shapes of api-v1.md (and of decisions.md for the routes it adds), as OpenAPI component
 * schemas. Routes name them with `@ApiEnvelope('Project')`; the document builder adds them under
 * components.schemas. Ids are strings of digits, as the spec shows them.
 */
const ref = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });
const str = (description?: string): SchemaObject => ({ type: 'string', ...(description ? { description } : {}) });
const num = (description?: string): SchemaObject => ({ type: 'number', ...(description ? { description } : {}) });
const int = (description?: string): SchemaObject => ({ type: 'integer', ...(description ? { description } : {}) });
const obj = (properties: Record<string, Schema>, required: string[], description?: string): SchemaObject => ({
  type: 'object',
  properties,
  required,
  ...(description ? { description } : {}),
});
const arrayOf = (items: Schema): SchemaObject => ({ type: 'array', items });
const page = (item: string, extra: Record<string, Schema> = {}): SchemaObject =>
  obj({ ...extra, offset: int('echoed from the request'), totalCount: int('items in the whole list'), data: arrayOf(ref(item)) }, [
    ...Object.keys(extra),
    'offset',
    'totalCount',
    'data',
  ]);

/** An id as the API writes it: a positive decimal integer in a string. */
export const ID_SCHEMA: SchemaObject = { type: 'string', pattern: '^[1-9][0-9]{0,18}$', example: '1' };
const id = (description: string): SchemaObject => ({ ...ID_SCHEMA, description });

const STATE: SchemaObject = { type: 'string', enum: ['pending', 'running', 'finished', 'failed'] };
const CIS: SchemaObject = {
  type: 'array',
  items: { type: 'number' },
  minItems: 2,
  maxItems: 2,
  description: '95% interval (lower, upper)',
};

/** The three forms of an analysis' outcome (api-v1.md, "Analyze dataset"), each a named schema. */
export const OUTCOME_FORMS: ReferenceObject[] = [ref('RegressionOutcome'), ref('ClassificationOutcome'), ref('SurvivalOutcome')];

export const PAYLOAD_SCHEMAS = {
  RegressionOutcome: obj({ regression: str('the numerical feature to predict') }, ['regression']),
  ClassificationOutcome: obj({ classification: str('the categorical feature to predict') }, ['classification']),
  SurvivalOutcome: obj(
    { survival: obj({ event: str('the event feature'), timeToEvent: str('the time-to-event feature') }, ['event', 'timeToEvent']) },
    ['survival'],
  ),
  Empty: obj({}, [], 'an empty object'),
  Token: obj({ token: str('bearer token for the Authorization header') }, ['token']),
  Version: obj({ version: str('service version'), mlEngine: str('analysis engine and its version') }, ['version', 'mlEngine']),
  Health: obj({ status: { type: 'string', enum: ['ok', 'unavailable'] }, database: { type: 'string', enum: ['ok', 'unreachable'] } }, [
    'status',
  ]),
  /** The error a failed task, analysis or prediction carries in its status. */
  StatusError: obj({ code: str('an error code of the catalogue'), message: str() }, ['code', 'message']),
  ProjectRef: obj({ projectId: id('the new project') }, ['projectId']),
  Project: obj({ projectId: id('identifier'), name: str(), description: str() }, ['projectId', 'name']),
  ProjectPage: page('Project'),
  Share: obj(
    {
      projectId: id('the shared project'),
      username: str(),
      permissions: { type: 'array', items: { type: 'string', enum: ['read', 'write', 'execute'] } },
    },
    ['projectId', 'username', 'permissions'],
  ),
  Unshare: obj({ projectId: id('the project'), username: str() }, ['projectId', 'username']),
  UploadedFile: obj({ fileId: str('the client-chosen file id'), sizeInBytes: int() }, ['fileId', 'sizeInBytes']),
  File: obj(
    {
      fileId: str(),
      sizeInBytes: int(),
      created: { type: 'string', format: 'date-time' },
      usedByDataset: { type: 'boolean', description: 'a dataset that still exists was created from this upload' },
      inUse: { type: 'boolean', description: 'a dataset is being created from it right now' },
    },
    ['fileId', 'sizeInBytes', 'created', 'usedByDataset', 'inUse'],
  ),
  FilePage: page('File'),
  TaskRef: obj({ taskId: id('the task to poll') }, ['taskId']),
  TaskStatus: obj({ taskId: id('echoed'), state: STATE, datasetId: id('the dataset made, when finished'), error: ref('StatusError') }, [
    'taskId',
    'state',
  ]),
  Dataset: obj(
    {
      datasetId: id('identifier'),
      projectId: id('owning project'),
      name: str('3 to 60 characters, unique within the project'),
      description: str('at most 255 characters'),
      sampleCount: int(),
      featureCount: int(),
      sizeInBytes: int('storage occupied'),
    },
    ['datasetId', 'projectId', 'name', 'sampleCount', 'featureCount', 'sizeInBytes'],
  ),
  DatasetPage: page('Dataset', { projectId: id('echoed') }),
  Features: obj(
    {
      datasetId: id('echoed'),
      features: arrayOf(
        obj(
          {
            name: str(),
            type: { type: 'string', enum: ['numerical', 'categorical', 'identifier', 'event', 'timeToEvent'] },
            missingCount: int(),
            distinctCount: int(),
          },
          ['name', 'type', 'missingCount', 'distinctCount'],
        ),
      ),
    },
    ['datasetId', 'features'],
  ),
  AnalysisParameters: {
    type: 'object',
    description: 'the parameters given to analyze (with their defaults) and the dataset analysed',
    properties: {
      datasetId: id('the dataset analysed'),
      outcome: { oneOf: OUTCOME_FORMS, description: '{ regression }, { classification } or { survival: { event, timeToEvent } }' },
      groupingFeature: str(),
      modelsConsidered: { type: 'string', enum: ['interpretable', 'all'] },
      featureSelection: { type: 'string', enum: ['mostRelevant', 'mostRelevantOrAll'] },
      thoroughness: { type: 'string', enum: ['preliminary', 'typical', 'extensive'] },
      coreCount: int(),
      maxSignatureSize: int(),
      maxVisualizedSignatureCount: int(),
      name: str(),
    },
    required: ['datasetId', 'outcome', 'thoroughness', 'coreCount', 'name'],
  },
  AnalysisRef: obj({ analysisId: id('the analysis started') }, ['analysisId']),
  /** What analyze would refuse (errors) and what it would accept with a caveat (warnings); nothing is started. */
  AnalysisCheck: obj(
    {
      errors: arrayOf(ref('StatusError')),
      warnings: arrayOf(ref('StatusError')),
    },
    ['errors', 'warnings'],
    'errors: what analyze would refuse, with the codes it would answer; warnings: accepted with a caveat',
  ),
  Analysis: obj({ analysisId: id('identifier'), projectId: id('owning project'), parameters: ref('AnalysisParameters'), state: STATE }, [
    'analysisId',
    'projectId',
    'parameters',
    'state',
  ]),
  AnalysisPage: page('Analysis', { projectId: id('echoed') }),
  AnalysisStatus: obj(
    {
      analysisId: id('identifier'),
      projectId: id('owning project'),
      parameters: ref('AnalysisParameters'),
      state: STATE,
      startTime: { type: 'string', format: 'date-time', description: 'when running or finished (maybe when failed)' },
      executionTimeInSeconds: num('when running or finished (maybe when failed)'),
      progress: { type: 'number', minimum: 0, maximum: 1, description: 'only while running' },
      error: ref('StatusError'),
    },
    ['analysisId', 'projectId', 'parameters', 'state'],
  ),
  Model: obj(
    {
      preprocessing: str('preprocessing steps'),
      featureSelection: str('feature-selection algorithm'),
      model: str('statistical model'),
      signatures: { type: 'array', items: { type: 'array', items: { type: 'string' } }, description: 'reference signature first' },
      signatureCount: int('equivalent signatures found in all'),
      performance: {
        type: 'object',
        additionalProperties: { type: 'number' },
        description: 'metric name -> estimate on new data, bias-corrected for the choice among the configurations (BBC-CV)',
      },
      performanceCis: { type: 'object', additionalProperties: CIS, description: 'metric name -> 95% interval' },
      pooledPerformance: {
        type: 'object',
        additionalProperties: { type: 'number' },
        description:
          "metric name -> value on this model's own out-of-fold predictions (the value its plots show: the ROC curve's area, the confusion matrix's sensitivity); not corrected for the choice among the configurations",
      },
      pooledPerformanceCis: {
        type: 'object',
        additionalProperties: CIS,
        description: 'metric name -> 95% bootstrap interval (the bootstraps of the ROC Curve, Calibration and Confusion Matrix plots)',
      },
      stability: {
        type: 'object',
        additionalProperties: { type: 'number', minimum: 0, maximum: 1 },
        description:
          'feature of a shown signature -> fraction of the cross-validation folds in which the selector chose it or one of its equivalents',
      },
      modelView: obj(
        {
          featureNames: arrayOf(str()),
          coefficients: { oneOf: [arrayOf(num()), arrayOf(arrayOf(num()))] },
          intercept: {
            oneOf: [num(), arrayOf(num())],
            description:
              'with originalCoefficients: the linear predictor is intercept + sum of coefficient x value (one per class of a multinomial model)',
          },
          originalCoefficients: {
            oneOf: [arrayOf(num()), arrayOf(arrayOf(num()))],
            description: 'per unit of each numerical feature, per level (against the reference level) of a categorical one',
          },
          hazardRatios: { ...arrayOf(num()), description: 'Cox models: hazard ratio per unit of each feature' },
          classes: {
            ...arrayOf(str()),
            description: 'logistic models: the class of each row of coefficients (binary: the positive class)',
          },
        },
        ['featureNames', 'coefficients'],
      ),
      classes: { ...arrayOf(str()), description: 'classification: the class labels, in the order of the probabilities' },
      positiveClass: str('binary classification: the class the ROC curve, sensitivity and the log-odds are of'),
      calibration: obj(
        {
          logLoss: num('log loss of the out-of-fold probabilities (absent in results of engine 0.2)'),
          brier: num('Brier score of the out-of-fold probabilities'),
          ece: num('expected calibration error (10 bins of equal count) of the out-of-fold probabilities'),
          method: {
            type: 'string',
            enum: ['platt', 'temperature', 'isotonic'],
            description:
              'present when the probabilities are calibrated (the values above are then after it): Platt scaling (two classes) or temperature scaling (more); isotonic in results of engine 0.2',
          },
          uncalibrated: obj({ logLoss: num(), brier: num(), ece: num() }, ['brier', 'ece'], 'before calibration'),
        },
        ['brier', 'ece'],
        'classification: how well the probabilities are calibrated',
      ),
    },
    ['preprocessing', 'featureSelection', 'model', 'signatures', 'performance'],
  ),
  AnalysisResult: obj(
    {
      analysisId: id('identifier'),
      parameters: ref('AnalysisParameters'),
      mlEngine: str('engine and version that produced the result'),
      startTime: { type: 'string', format: 'date-time' },
      executionTimeInSeconds: num(),
      models: { type: 'object', additionalProperties: ref('Model'), description: 'model key (best, interpretable) -> model' },
    },
    ['analysisId', 'parameters', 'mlEngine', 'startTime', 'executionTimeInSeconds', 'models'],
  ),
  /** One schema per plot kind and `Plot` (one plot by its name), from the engine's plot registry. */
  ...(PLOT_SCHEMAS as Record<never, SchemaObject>),
  AvailablePlots: obj({ analysisId: id('echoed'), modelKey: str('echoed'), plots: arrayOf(str()) }, ['analysisId', 'modelKey', 'plots']),
  PlotOne: obj({ analysisId: id('echoed'), modelKey: str('echoed'), plot: ref('Plot') }, ['analysisId', 'modelKey', 'plot']),
  PlotAll: obj({ analysisId: id('echoed'), modelKey: str('echoed'), plots: arrayOf(ref('Plot')) }, ['analysisId', 'modelKey', 'plots']),
  /** A row of the leaderboard (decisions beyond api-v1: the configurations an analysis evaluated). */
  Configuration: obj(
    {
      rank: int('1 for the highest metric'),
      configuration: int('index in the grid of the thoroughness'),
      featureSelection: str('feature-selection algorithm and settings'),
      model: str('statistical model and settings'),
      interpretable: { type: 'boolean' },
      metric: str('the primary metric'),
      value: {
        type: 'number',
        nullable: true,
        description:
          'pooled out-of-fold value, the one the winner rule compared (of its calibrated probabilities when calibrated); droppedEarly: on the samples evaluated when dropped',
      },
      uncalibratedValue: num('a calibrated configuration: the pooled out-of-fold value of its probabilities before calibration'),
      calibration: {
        type: 'string',
        enum: ['platt', 'temperature'],
        description: 'the calibration its probabilities go through (absent: none lowered their log loss and Brier score)',
      },
      signatureSize: num('mean size of its selector signature over the training folds'),
      droppedEarly: { type: 'boolean', description: 'BBCD-CV stopped evaluating it (it lost to the leader with probability above 0.99)' },
      standardError: num("the winner rule (absent when dropped early): the standard error of the leader's lead over it (0 for the leader)"),
      tiedOnMetric: { type: 'boolean', description: "the winner rule: its value is within one standard error of the leader's" },
      logLoss: num('classification: the log loss of its out-of-fold probabilities (calibrated when it is)'),
      logLossStandardError: num(
        'classification, tied on the metric: the standard error of its log loss above the lowest of those tied on the metric (0 for that one)',
      ),
      tied: {
        type: 'boolean',
        description: 'the winner rule: tied with the leader, on the metric and, for classification, on the log loss',
      },
      simplicity: obj(
        {
          features: int('mean signature size, rounded (fewer first)'),
          family: {
            type: 'string',
            enum: ['linear', 'tree', 'svm-linear', 'forest', 'svm-rbf'],
            description: 'from the most to the least interpretable',
          },
          flexibility: num('within the family: smaller is more strongly regularised (smaller first)'),
        },
        ['features', 'family', 'flexibility'],
        "the winner rule's simplicity keys, in the order it compares them",
      ),
      simplicityRank: int('position in the simplicity order (1 = simplest): best is the tied row with the smallest'),
      interpretableStandardError: num(
        'an interpretable configuration, when the result has an interpretable model: against the best interpretable one',
      ),
      interpretableTied: { type: 'boolean', description: 'an interpretable configuration: tied with the best interpretable one' },
      modelKey: { type: 'string', enum: ['best', 'interpretable'], description: 'the model of the result it became' },
    },
    ['rank', 'configuration', 'featureSelection', 'model', 'interpretable', 'metric', 'value', 'signatureSize', 'droppedEarly'],
  ),
  ConfigurationPage: page('Configuration', { analysisId: id('echoed') }),
  OutOfFoldPredictions: obj(
    {
      analysisId: id('echoed'),
      modelKey: str('echoed'),
      repeats: int('repeats of the cross-validation: each prediction is the mean over them'),
      predictions: arrayOf(
        obj(
          {
            row: int('zero-based row of the dataset'),
            sampleId: str('the sample id, when the dataset has an identifier feature'),
            actual: { oneOf: [str('class label'), num('value or time')] },
            event: int('survival: 1 = event, 0 = censored'),
            prediction: { oneOf: [str('class of highest probability'), num('value or risk score')] },
            probabilities: { type: 'object', additionalProperties: { type: 'number' }, description: 'class -> probability' },
            risk: num('survival: higher is an earlier event'),
            explanation: {
              allOf: [ref('Explanation')],
              description:
                "explain=true: the Shapley values of the sample's prediction by the reference signature refitted on the plot fold that held it out (close to, not equal to, the prediction above)",
            },
          },
          ['row', 'actual', 'prediction'],
        ),
      ),
    },
    ['analysisId', 'modelKey', 'repeats', 'predictions'],
  ),
  Explanation: obj(
    {
      scale: {
        type: 'string',
        enum: [
          'prediction',
          'log-odds',
          'softmax score',
          'probability',
          'decision value',
          'one-vs-one decision sum',
          'log relative hazard',
          'risk',
        ],
        description:
          "the model's output the base and the contributions add up to, before a classifier's probability floor and calibration (README, Explanations)",
      },
      method: {
        type: 'string',
        enum: ['closedForm', 'exactTree', 'exactKernel', 'enumeration', 'sampling'],
        description: 'how the Shapley values were computed: exactly, or by sampling with standard errors',
      },
      outputs: arrayOf(
        obj(
          {
            class: str('classification: the class whose output this is'),
            value: num('the output: base + the sum of the contributions'),
            base: num("the mean output over the model's background of training samples"),
            contributions: { type: 'object', additionalProperties: { type: 'number' }, description: 'feature -> contribution' },
            standardErrors: {
              type: 'object',
              additionalProperties: { type: 'number' },
              description: 'method sampling: feature -> standard error of its contribution',
            },
          },
          ['value', 'base', 'contributions'],
        ),
      ),
    },
    ['scale', 'method', 'outputs'],
    'interventional Shapley values of one prediction: one output per class explained (binary: the positive class) or the one output',
  ),
  PredictionRef: obj({ predictionId: id('the prediction started') }, ['predictionId']),
  Prediction: obj(
    {
      predictionId: id('identifier'),
      analysisId: id('the analysis whose model predicts'),
      datasetId: id('the dataset predicted'),
      modelKey: str(),
      signatureIndex: int(),
      state: STATE,
    },
    ['predictionId', 'analysisId', 'datasetId', 'modelKey', 'signatureIndex', 'state'],
  ),
  PredictionStatus: {
    allOf: [ref('Prediction'), obj({ error: ref('StatusError') }, [])],
  },
  PredictionPage: page('Prediction', { analysisId: id('echoed') }),
  PredictionResult: obj(
    {
      predictionId: id('identifier'),
      analysisId: id('analysis'),
      datasetId: id('dataset'),
      modelKey: str(),
      predictions: arrayOf(
        obj(
          {
            row: int('zero-based row of the dataset'),
            sampleId: str('the sample id, when the dataset has an identifier feature'),
            prediction: { oneOf: [str('class label'), num('value or risk score')] },
            probabilities: { type: 'object', additionalProperties: { type: 'number' }, description: 'class -> probability' },
            risk: num('survival: higher is an earlier event'),
            survival: {
              ...arrayOf(
                obj({ time: num(), probability: num('predicted probability of surviving past the time') }, ['time', 'probability']),
              ),
              description:
                'survival models (Cox regression, random survival forests): at the times of the predict body, default the quartiles of the training times',
            },
            medianSurvivalTime: num(
              'survival models: the first training event time at which the predicted survival falls to 0.5 or below, when it does',
            ),
            explanation: {
              allOf: [ref('Explanation')],
              description: 'explain: true in the predict body: the Shapley values of the prediction',
            },
          },
          ['row', 'prediction'],
        ),
      ),
    },
    ['predictionId', 'analysisId', 'datasetId', 'modelKey', 'predictions'],
  ),
} satisfies Record<string, SchemaObject>;

export type PayloadSchema = keyof typeof PAYLOAD_SCHEMAS;

/**
 * The error envelope, one named schema for every operation. `code` is a plain string rather than an enum:
 * each operation lists the codes it can answer in `x-error-codes` and its response description, and a code
 * the catalogue adds later must not make a generated client fail to read the answer.
 */
export const ERROR_ENVELOPE: SchemaObject = obj(
  {
    status: { type: 'string', enum: ['error'] },
    code: str('an error code of the catalogue (README, Errors); the operation lists those it can answer'),
    message: str('for humans; its wording is not part of the API'),
  },
  ['status', 'code', 'message'],
  'the answer to a request the service refused or could not carry out (HTTP 200)',
);

/** The body of the generic HTTP 403, 404 and 500 answers (not part of the API, api-v1.md: Errors). */
export const HTTP_ERROR: SchemaObject = obj(
  {
    statusCode: int('the HTTP status again'),
    message: str('Forbidden, Not Found or Internal Server Error'),
    correlationId: str('HTTP 500 only: names the fault in the service log'),
  },
  ['statusCode', 'message'],
  'the body of HTTP 403, 404 and 500 (not part of the API: programs should read the HTTP status)',
);

/** The success envelope around a payload: `{ "status": "success", "payload": <payload> }`. */
export function successEnvelope(payload: PayloadSchema): SchemaObject {
  return obj({ status: { type: 'string', enum: ['success'] }, payload: ref(payload) }, ['status', 'payload'], `success, with a ${payload}`);
}

/**
 * An operation's JSON answer: its success envelope or the error envelope. Two named schemas in a `oneOf`
 * (never inline objects) give generators a class per envelope; `status` tells them apart ('success' or 'error').
 */
export function answerSchema(payload: PayloadSchema): SchemaObject {
  return {
    description: `the success envelope with a ${payload}, or the error envelope (status tells which)`,
    oneOf: [ref(`${payload}Success`), ref('ErrorEnvelope')],
  };
}
