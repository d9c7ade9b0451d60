import { Codes, ErrorCode } from '../common/error-codes';
import type { FeatureType } from '../engine/types';

/** The createDataset job: the stored file and how to read it, and where the dataset goes. */
export interface CreateDatasetPayload {
  taskId: string;
  filePk: string;
  projectId: string;
  name: string;
  description: string | null;
  separator: string;
  hasFeatureHeaders: boolean;
  hasSampleHeaders: boolean;
  hasSamplesInRows: boolean;
  featureTypes: Record<string, FeatureType>;
}

/**
 * Every kind of job and its payload (the jobs table's `payload` column). Start-up fails when a kind has
 * no registered handler, so a job can never sit in the table with nobody to run it. Add a kind here and
 * in JOB_DEFINITIONS, and register its handler in its module's onModuleInit.
 */
export interface JobPayloads {
  createDataset: CreateDatasetPayload;
  imageDataset: { taskId: string };
  analysis: { analysisId: string };
  prediction: { predictionId: string };
}

export type JobKind = keyof JobPayloads;

/** One job with its payload, typed by kind (a union over kinds when K is not narrowed). */
export type JobOf<K extends JobKind = JobKind> = { [P in K]: { kind: P; payload: JobPayloads[P] } }[K];

/**
 * The domain row a job works for. Its state is the state clients see; the job row goes with it
 * (a foreign key with ON DELETE CASCADE), so deleting the subject cancels the job.
 */
export type SubjectKind = 'task' | 'analysis' | 'prediction';

interface JobDefinition<K extends JobKind> {
  subject: SubjectKind;
  /** The subject's id, read from the payload when the job is enqueued. */
  subjectId: (payload: JobPayloads[K]) => string;
  /** The code a failure gets when the job gives up on an error that carries none (a crash, a lost worker). */
  failureCode: ErrorCode;
  /**
   * What the subject shows while its job waits to run, from enqueue and again when a stopping worker hands it back:
   * `pending` (not started), or `running` for an image task, whose `pending` means it still takes images.
   */
  waitsAs: 'pending' | 'running';
}

export const JOB_DEFINITIONS: { [K in JobKind]: JobDefinition<K> } = {
  // a build that gives up on a fault of ours has its own code; an unreadable file is a JobFailure (badRequest-115-3-1)
  createDataset: { subject: 'task', subjectId: (p) => p.taskId, failureCode: Codes.DatasetBuildFailed, waitsAs: 'pending' },
  imageDataset: { subject: 'task', subjectId: (p) => p.taskId, failureCode: Codes.ImageDatasetFailed, waitsAs: 'running' },
  analysis: { subject: 'analysis', subjectId: (p) => p.analysisId, failureCode: Codes.AnalysisFailed, waitsAs: 'pending' },
  prediction: { subject: 'prediction', subjectId: (p) => p.predictionId, failureCode: Codes.PredictionFailed, waitsAs: 'pending' },
};

export const JOB_KINDS = Object.keys(JOB_DEFINITIONS) as JobKind[];
