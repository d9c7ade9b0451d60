/**
 * Every error code the service can return, each written once: its name in code, the code the API answers and the
 * condition it stands for. Codes are part of the API: never change one; add new ones. The error table of docs/api-guide.md is
 * this list (`npm run docs:errors` writes it; a test checks that they agree). Format `<kind>-<area>-<operation>-<n>`;
 * areas: 1 general, 10 auth, 100 project, 110 dataset, 115 file/task, 120 analysis, 130 image upload, 140 plots,
 * 150 prediction. The order is the catalogue's: that table and each operation's list of codes follow it.
 */
const CATALOGUE = {
  // general
  BadPagination: ['badRequest-1-0-1', 'bad pagination: offset or count not a non-negative integer, or count above 100'],
  MalformedId: ['badRequest-1-0-2', 'malformed id in the path (not a positive decimal integer)'],
  BodyTooLarge: ['badRequest-1-0-3', 'body larger than the configured limit'],
  MalformedBody: ['badRequest-1-0-4', 'malformed JSON or multipart body'],
  MissingField: ['badRequest-1-0-5', 'a required field is missing'],
  WrongType: ['badRequest-1-0-6', 'a field has the wrong type or format'],
  UnknownField: ['badRequest-1-0-7', 'a field not defined for this request was sent'],
  BodyStalled: [
    'badRequest-1-0-8',
    'the request body stalled: nothing was received for UPLOAD_IDLE_TIMEOUT_SECONDS (the connection is closed)',
  ],
  TooManyQueuedJobs: [
    'tooMany-1-0-1',
    'the user already has MAX_QUEUED_JOBS_PER_USER jobs waiting to run (dataset builds, image tasks, analyses, predictions), or 34 requests queueing jobs at once in one API process; retry when some have started',
  ],
  ServiceBusy: [
    'unavailable-1-0-1',
    'service busy or its database unreachable: no database connection came free within DB_POOL_WAIT_MS, the database could not be reached (stopped, restarting, the connection cut), or the disk has no room to receive an upload; try again',
  ],
  // auth
  InvalidCredentials: ['auth-10-3', 'invalid credentials at login'],
  UnknownUsername: ['badRequest-10-0-1', 'username unknown (sharing)'],
  BadPermission: ['badRequest-10-0-2', 'permission value not one of read, write, execute'],
  ShareWithOwner: ['badRequest-10-0-3', 'a project cannot be shared with (or unshared from) its owner'],
  LoginThrottled: [
    'auth-10-4',
    'too many failed logins for this username or from this address: try again after the window (LOGIN_FAILURE_WINDOW_SECONDS)',
  ],
  // projects
  ProjectNotFound: ['notFound-100-1-1', 'unknown project'],
  ProjectNameLength: ['badRequest-100-0-1', 'project name not 1 to 60 characters, blank or holding control characters'],
  ProjectDescriptionLength: ['badRequest-100-0-2', 'project description over 255 characters'],
  // datasets
  DatasetNotFound: ['notFound-110-1-1', 'unknown dataset'],
  DatasetNameTaken: ['conflict-110-0-1', 'dataset name already used in the project'],
  DatasetNameLength: ['badRequest-110-0-2', 'dataset name not 3 to 60 characters, blank or holding control characters'],
  DatasetDescriptionLength: ['badRequest-110-0-3', 'dataset description over 255 characters'],
  UnknownFeature: ['badRequest-110-3-1', 'unknown feature name in featureTypes'],
  ImpossibleFeatureType: ['badRequest-110-3-2', 'feature type not possible for that column'],
  BadFeatureType: ['badRequest-110-3-3', 'feature type not one of numerical, categorical, identifier, event, timeToEvent'],
  // files and tasks
  FileOrTaskNotFound: ['notFound-115-1-1', 'unknown file or task'],
  BadFileId: ['badRequest-115-0-1', 'fileId not 1 to 64 of A-Za-z0-9._-'],
  FileSizeMismatch: ['badRequest-115-2-1', 'fileSizeInBytes does not match the uploaded file'],
  BadSeparator: [
    'badRequest-115-2-2',
    'separator not a single character (of the Basic Multilingual Plane, other than a quote or a line break)',
  ],
  UnreadableTable: ['badRequest-115-3-1', 'the file could not be read as a table (the task error names the row and column)'],
  DatasetBuildFailed: [
    'internal-115-4-1',
    'the dataset could not be built on the server after every attempt (a failed task carries this in its error)',
  ],
  TooManyUploads: ['tooMany-115-0-2', 'the user already has MAX_UPLOADS_PER_USER uploads in progress; retry when one ends'],
  StorageQuotaExceeded: [
    'badRequest-115-0-3',
    'the upload, dataset or image would take the user over the storage quota (USER_STORAGE_QUOTA_BYTES)',
  ],
  FileInUse: ['conflict-115-5-1', 'the file cannot be deleted or replaced: a dataset is still being created from it'],
  // analyses
  AnalysisNotFound: ['notFound-120-1-1', 'unknown analysis (other than result)'],
  BadOutcome: [
    'badRequest-120-0-1',
    'outcome missing or not one of { regression }, { classification }, { survival: { event, timeToEvent } }',
  ],
  UnknownOutcomeFeature: ['badRequest-120-0-2', 'an outcome feature is not a feature of the dataset'],
  OutcomeFeatureType: [
    'badRequest-120-0-3',
    'an outcome feature has the wrong type (regression: numerical; classification: categorical; survival: event and timeToEvent)',
  ],
  BadThoroughness: ['badRequest-120-0-4', 'thoroughness not one of preliminary, typical, extensive'],
  BadModelsConsidered: ['badRequest-120-0-5', 'modelsConsidered not one of interpretable, all'],
  BadFeatureSelection: ['badRequest-120-0-6', 'featureSelection not one of mostRelevant, mostRelevantOrAll'],
  BadCoreCount: ['badRequest-120-0-7', 'coreCount not a positive integer'],
  BadMaxSignatureSize: ['badRequest-120-0-8', 'maxSignatureSize not an integer from 1 to 1000'],
  BadMaxVisualizedSignatureCount: ['badRequest-120-0-9', 'maxVisualizedSignatureCount not an integer from 1 to 50'],
  BadAnalysisName: ['badRequest-120-0-10', 'name not a string of 1 to 120 characters, blank or holding control characters'],
  UnknownGroupingFeature: ['badRequest-120-0-11', 'groupingFeature is not a feature of the dataset'],
  GroupingFeatureType: ['badRequest-120-0-12', 'groupingFeature is not an identifier feature'],
  DatasetNotAnalysable: [
    'badRequest-120-0-13',
    'the dataset cannot be analysed for this outcome (too few samples, a single class, no events); the message says why',
  ],
  BadTimeLimit: ['badRequest-120-0-14', 'timeLimitSeconds not an integer from 10 to 604800 (seven days)'],
  AnalysisFailed: [
    'internal-120-4-1',
    'the analysis failed on the server after every attempt (a failed analysis carries this in its error)',
  ],
  CoreCountTooHigh: ['badRequest-120-1-7', 'coreCount above the cores available to the user'],
  AnalysisResultUnknown: ['notFound-120-2-1', 'unknown analysis (result)'],
  AnalysisUnfinished: ['notFound-120-2-3', 'analysis has no result: not finished'],
  ResultPartMissing: [
    'notFound-120-2-4',
    'the analysis finished before results kept this (its leaderboard, its out-of-fold predictions, what explanations need): run it again',
  ],
  BadLinkValidity: ['badRequest-120-7-1', 'validForDays not an integer from 1 to 90 (report link)'],
  ReportLinkNotFound: ['notFound-120-7-2', 'unknown report link of this analysis'],
  // image upload
  ImageTaskNotFound: ['notFound-130-1-1', 'unknown image upload task'],
  BadSampleId: ['badRequest-130-2-1', 'sampleId not in the init file'],
  BadImage: [
    'badRequest-130-2-2',
    'image format not allowed or content not an image, or an image that cannot be decoded safely (a second IHDR or frame header, PNG data inflating beyond what its header needs, chunks past the end, over 100,000 PNG chunks, over 2,000 JPEG segments or 100 scans, a run-length BMP claiming over 128 pixels a byte, a truncated BMP, a TIFF tag given twice); the message says which',
  ],
  ImageTooLarge: ['badRequest-130-2-5', 'image has more pixels (width x height, from its header) than MAX_IMAGE_PIXELS'],
  UnreadableSampleTable: [
    'badRequest-130-0-1',
    'the init file could not be read as a sample table (not UTF-8 text, ragged rows, no rows); the message names the line',
  ],
  BadSampleIds: [
    'badRequest-130-0-2',
    'a sample id in the first column of the init file is empty or appears twice; the message names the row',
  ],
  ReservedFeatureName: [
    'badRequest-130-0-3',
    'a column of the init file has a name starting with img_ (reserved for the computed image features)',
  ],
  ImageAlreadyAdded: ['conflict-130-2-3', 'the sample already has an image'],
  AddAfterCommit: ['conflict-130-2-4', 'the upload is already committed: no more images can be added'],
  AlreadyCommitted: ['conflict-130-3-1', 'the upload is already committed'],
  ImagesMissing: ['badRequest-130-3-2', 'some samples have no image yet; the message says how many and which'],
  UndecodableImage: ['badRequest-130-4-1', 'an image could not be decoded while computing features (the task error names the sample)'],
  ImageTaskTooSlow: [
    'badRequest-130-4-3',
    'the images took longer to decode than an image task may take (IMAGE_TASK_DECODE_SECONDS, by default 60 s plus 10 s per MB of images)',
  ],
  ImageDatasetFailed: ['internal-130-4-2', 'the image dataset could not be built on the server after every attempt'],
  ImageUploadExpired: [
    'conflict-130-5-1',
    'the image upload expired: it was not committed within IMAGE_UPLOAD_EXPIRY_HOURS of its init or its last add, so it failed and its images were deleted; start a new upload',
  ],
  // plots
  ModelKeyNotFound: ['notFound-140-1-1', 'modelKey not in the result'],
  PlotKeyNotFound: ['notFound-140-1-2', 'plotKey not available for that model'],
  // predictions
  PredictionNotFound: ['notFound-150-1-1', 'unknown prediction'],
  PredictionUnfinished: ['notFound-150-2-1', 'prediction has no result: not finished'],
  SignatureIndexUnavailable: ['badRequest-150-0-1', 'signatureIndex is not the index of a signature shown in the result for that model'],
  BadResultFormat: ['badRequest-150-0-2', 'format is not json or csv'],
  PredictionColumnsMissing: ['badRequest-150-3-1', 'the dataset lacks columns the model uses'],
  PredictionInputRejected: [
    'badRequest-150-3-2',
    'the dataset cannot be used by the model (wrong column types, no rows); the prediction fails with this code',
  ],
  PredictionFailed: ['internal-150-4-1', 'the prediction failed on the server after every attempt'],
  ModelNotExportable: [
    'badRequest-150-5-1',
    'the model cannot be exported to ONNX exactly (a model that reads no feature, an isotonic calibration map of engine 0.2): the message says why',
  ],
  ModelFormatUnknown: ['badRequest-150-5-2', 'format is not onnx (the model export has no other format)'],
} as const satisfies Record<string, readonly [code: string, condition: string]>;

type Catalogue = typeof CATALOGUE;
export type ErrorCode = Catalogue[keyof Catalogue][0];

/** The codes by name, so that code names them and a typo is a compile error: `Codes.ProjectNotFound`. */
export const Codes = Object.fromEntries(Object.entries(CATALOGUE).map(([name, [code]]) => [name, code])) as {
  readonly [Name in keyof Catalogue]: Catalogue[Name][0];
};

/** Code -> condition, in the catalogue's order. */
export const ERROR_CODES = Object.fromEntries(Object.values(CATALOGUE)) as Readonly<Record<ErrorCode, string>>;
