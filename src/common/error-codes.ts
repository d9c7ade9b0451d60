/**
 * Every error code the service can return, with the condition it stands for.
 * Codes are part of the API: never change one; add new ones. The README's error table mirrors this file
 * (a test checks that they agree). Format `<kind>-<area>-<operation>-<n>`; areas: 1 general, 10 auth,
 * 100 project, 110 dataset, 115 file/task, 120 analysis, 130 image upload, 140 plots, 150 prediction.
 */
export const ERROR_CODES = {
  // general
  'badRequest-1-0-1': 'bad pagination: offset or count not a non-negative integer, or count above 100',
  'badRequest-1-0-2': 'malformed id in the path (not a positive decimal integer)',
  'badRequest-1-0-3': 'body larger than the configured limit',
  'badRequest-1-0-4': 'malformed JSON or multipart body',
  'badRequest-1-0-5': 'a required field is missing',
  'badRequest-1-0-6': 'a field has the wrong type or format',
  'badRequest-1-0-7': 'a field not defined for this request was sent',
  // auth
  'auth-10-3': 'invalid credentials at login',
  'badRequest-10-0-1': 'username unknown (sharing)',
  'badRequest-10-0-2': 'permission value not one of read, write, execute',
  'badRequest-10-0-3': 'a project cannot be shared with its owner',
  // projects
  'notFound-100-1-1': 'unknown project',
  'badRequest-100-0-1': 'project name not 1 to 60 characters',
  'badRequest-100-0-2': 'project description over 255 characters',
  // datasets
  'notFound-110-1-1': 'unknown dataset',
  'conflict-110-0-1': 'dataset name already used in the project',
  'badRequest-110-0-2': 'dataset name not 3 to 60 characters',
  'badRequest-110-0-3': 'dataset description over 255 characters',
  'badRequest-110-3-1': 'unknown feature name in featureTypes',
  'badRequest-110-3-2': 'feature type not possible for that column',
  'badRequest-110-3-3': 'feature type not one of numerical, categorical, identifier, event, timeToEvent',
  // files and tasks
  'notFound-115-1-1': 'unknown file or task',
  'badRequest-115-0-1': 'fileId not 1 to 64 of A-Za-z0-9._-',
  'badRequest-115-2-1': 'fileSizeInBytes does not match the uploaded file',
  'badRequest-115-2-2': 'separator not a single character',
  'badRequest-115-3-1': 'the file could not be read as a table (the task error names the row and column)',
  // analyses
  'notFound-120-1-1': 'unknown analysis (other than result)',
  'badRequest-120-1-7': 'coreCount above the cores available to the user',
  'notFound-120-2-1': 'unknown analysis (result)',
  'notFound-120-2-3': 'analysis has no result: not finished',
  // image upload
  'notFound-130-1-1': 'unknown image upload task',
  'badRequest-130-2-1': 'sampleId not in the init file',
  'badRequest-130-2-2': 'image format not allowed or content not an image',
  // plots
  'notFound-140-1-1': 'modelKey not in the result',
  'notFound-140-1-2': 'plotKey not available for that model',
  // predictions
  'notFound-150-1-1': 'unknown prediction',
  'notFound-150-2-1': 'prediction has no result: not finished',
  'badRequest-150-0-1': 'signatureIndex names a signature that has no fitted model (only 0, the reference signature, has one)',
  'badRequest-150-0-2': 'format is not json or csv',
  'badRequest-150-3-1': 'the dataset lacks columns the model uses',
  'badRequest-150-3-2': 'the dataset cannot be used by the model (wrong column types, no rows); the prediction fails with this code',
  'internal-150-4-1': 'the prediction failed on the server after every attempt',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Names for the codes used in code, so a typo is a compile error. */
export const Codes = {
  BadPagination: 'badRequest-1-0-1',
  MalformedId: 'badRequest-1-0-2',
  BodyTooLarge: 'badRequest-1-0-3',
  MalformedBody: 'badRequest-1-0-4',
  MissingField: 'badRequest-1-0-5',
  WrongType: 'badRequest-1-0-6',
  UnknownField: 'badRequest-1-0-7',
  InvalidCredentials: 'auth-10-3',
  UnknownUsername: 'badRequest-10-0-1',
  BadPermission: 'badRequest-10-0-2',
  ShareWithOwner: 'badRequest-10-0-3',
  ProjectNotFound: 'notFound-100-1-1',
  ProjectNameLength: 'badRequest-100-0-1',
  ProjectDescriptionLength: 'badRequest-100-0-2',
  DatasetNotFound: 'notFound-110-1-1',
  DatasetNameTaken: 'conflict-110-0-1',
  DatasetNameLength: 'badRequest-110-0-2',
  DatasetDescriptionLength: 'badRequest-110-0-3',
  UnknownFeature: 'badRequest-110-3-1',
  ImpossibleFeatureType: 'badRequest-110-3-2',
  BadFeatureType: 'badRequest-110-3-3',
  FileOrTaskNotFound: 'notFound-115-1-1',
  BadFileId: 'badRequest-115-0-1',
  FileSizeMismatch: 'badRequest-115-2-1',
  BadSeparator: 'badRequest-115-2-2',
  UnreadableTable: 'badRequest-115-3-1',
  AnalysisNotFound: 'notFound-120-1-1',
  CoreCountTooHigh: 'badRequest-120-1-7',
  AnalysisResultUnknown: 'notFound-120-2-1',
  AnalysisUnfinished: 'notFound-120-2-3',
  ImageTaskNotFound: 'notFound-130-1-1',
  BadSampleId: 'badRequest-130-2-1',
  BadImage: 'badRequest-130-2-2',
  ModelKeyNotFound: 'notFound-140-1-1',
  PlotKeyNotFound: 'notFound-140-1-2',
  PredictionNotFound: 'notFound-150-1-1',
  PredictionUnfinished: 'notFound-150-2-1',
  SignatureIndexUnavailable: 'badRequest-150-0-1',
  BadResultFormat: 'badRequest-150-0-2',
  PredictionColumnsMissing: 'badRequest-150-3-1',
  PredictionInputRejected: 'badRequest-150-3-2',
  PredictionFailed: 'internal-150-4-1',
} as const satisfies Record<string, ErrorCode>;
