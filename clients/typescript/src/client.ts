import * as fs from 'node:fs';
import * as path from 'node:path';
import createClient, { type Client } from 'openapi-fetch';
import { networkError, SignetError } from './errors';
import type { components, operations, paths } from './schema';

export { SignetError, SignetNetworkError, type NetworkFailure } from './errors';

/** The payload shapes of the API, from the generated schema (src/schema.ts, `npm run generate`). */
export type Schemas = components['schemas'];
export type Version = Schemas['Version'];
export type Health = Schemas['Health'];
export type Project = Schemas['Project'];
export type ProjectPage = Schemas['ProjectPage'];
export type Share = Schemas['Share'];
export type Unshare = Schemas['Unshare'];
export type Permission = Schemas['ShareProjectDto']['permissions'][number];
export type UploadedFile = Schemas['UploadedFile'];
export type FilePage = Schemas['FilePage'];
export type Dataset = Schemas['Dataset'];
export type DatasetPage = Schemas['DatasetPage'];
export type Features = Schemas['Features'];
export type FeatureTypes = Schemas['ChangeFeatureTypesDto']['featureTypes'];
export type TaskStatus = Schemas['TaskStatus'];
export type Analysis = Schemas['Analysis'];
export type AnalysisPage = Schemas['AnalysisPage'];
export type AnalysisCheck = Schemas['AnalysisCheck'];
export type AnalysisStatus = Schemas['AnalysisStatus'];
export type AnalysisResult = Schemas['AnalysisResult'];
export type Model = Schemas['Model'];
export type AvailablePlots = Schemas['AvailablePlots'];
export type PlotOne = Schemas['PlotOne'];
export type PlotAll = Schemas['PlotAll'];
export type Prediction = Schemas['Prediction'];
export type ModelCard = Schemas['ModelCard'];
export type ScoreResult = Schemas['ScoreResult'];
export type PredictionPage = Schemas['PredictionPage'];
export type ConfigurationPage = Schemas['ConfigurationPage'];
export type OutOfFoldPredictions = Schemas['OutOfFoldPredictions'];
export type PredictionStatus = Schemas['PredictionStatus'];
export type PredictionResult = Schemas['PredictionResult'];
export type Explanation = Schemas['Explanation'];
export type ReportLink = Schemas['ReportLink'];
export type ReportLinkInfo = Schemas['ReportLinkInfo'];
export type ReportLinkPage = Schemas['ReportLinkPage'];
export type AnalyzeParameters = Schemas['AnalyzeDto'];
export type CreateDatasetOptions = Omit<Schemas['CreateDatasetDto'], 'projectId' | 'name' | 'fileSizeInBytes'>;
/** The attributes of an image upload (init): the project, the dataset's name, and the CSV's layout. */
export interface ImageUploadAttributes {
  projectId: string;
  name: string;
  description?: string;
  hasFeatureHeaders?: boolean;
}

export interface ClientOptions {
  /** A token from login (or the CLI's `tokens create`); `login` sets one. */
  token?: string;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  /** Give up on a request with no complete answer after this many milliseconds (a SignetNetworkError, reason `timeout`); default: no limit of the client's own. */
  timeoutMs?: number;
}

export interface WaitOptions<S> {
  /** Called after every poll with the status read (progress is there while an analysis runs). */
  progress?: (status: S) => void;
  /** Milliseconds between polls (default 500). */
  intervalMs?: number;
  /** Give up after this many milliseconds (default 10 minutes). */
  timeoutMs?: number;
}

type Envelope = { status: 'success'; payload?: unknown } | { status: 'error'; code: string; message: string };
/** The payload type of an operation's success envelope. */
type PayloadOf<D> = D extends { status: 'success'; payload: infer P } ? P : never;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The method of SignetClient for each operation of the API (by its operationId); the compiler checks that none is missing. */
export const OPERATION_METHODS = {
  healthVersion: 'version',
  healthLive: 'live',
  healthReady: 'ready',
  authLogin: 'login',
  authLogout: 'logout',
  projectsCreate: 'createProject',
  projectsGet: 'getProject',
  projectsOwned: 'ownedProjects',
  projectsShared: 'sharedProjects',
  projectsDelete: 'deleteProject',
  projectsShare: 'shareProject',
  projectsUnshare: 'unshareProject',
  datasetsUpload: 'uploadFile',
  datasetsListFiles: 'files',
  datasetsDeleteFile: 'deleteFile',
  datasetsCreateDataset: 'createDataset',
  datasetsTaskStatus: 'taskStatus',
  datasetsGet: 'getDataset',
  datasetsList: 'datasets',
  datasetsDelete: 'deleteDataset',
  datasetsFeatures: 'features',
  datasetsChangeFeatureTypes: 'changeFeatureTypes',
  analysesAnalyze: 'analyze',
  analysesCheck: 'checkAnalyze',
  analysesGet: 'getAnalysis',
  analysesList: 'analyses',
  analysesStatus: 'analysisStatus',
  analysesResult: 'analysisResult',
  analysesDelete: 'deleteAnalysis',
  resultDetailsConfigurations: 'configurations',
  resultDetailsOutOfFold: 'outOfFoldPredictions',
  plotsAvailableByQuery: 'availablePlots',
  plotsAvailableByBody: 'availablePlotsByBody',
  plotsPlotByQuery: 'plot',
  plotsPlotByBody: 'plotByBody',
  plotsPlotsByQuery: 'plots',
  plotsPlotsByBody: 'plotsByBody',
  predictionsCreate: 'predict',
  predictionsStatus: 'predictionStatus',
  predictionsResult: 'predictionResult',
  predictionsList: 'predictions',
  predictionsDelete: 'deletePrediction',
  modelExportModel: 'exportModel',
  modelExportModelCard: 'modelCard',
  modelExportScore: 'score',
  imageUploadInit: 'initImageUpload',
  imageUploadAdd: 'addImage',
  imageUploadCommit: 'commitImageUpload',
  imageUploadStatus: 'imageUploadStatus',
  reportsReport: 'downloadReport',
  reportLinksCreate: 'createReportLink',
  reportLinksList: 'reportLinks',
  reportLinksDelete: 'deleteReportLink',
  reportLinksOpen: 'openReportLink',
} as const satisfies Record<keyof operations, keyof SignetClient>;

/**
 * The Signet API: a typed method for every operation (OPERATION_METHODS), and the flows most programs need
 * (uploadDataset, waitForTask, waitForAnalysis, waitForPrediction). `api` is the underlying openapi-fetch
 * client, typed from the document. Every method throws a SignetError carrying the API's code on an error
 * envelope, and a SignetNetworkError (with its `reason`) when no answer comes.
 */
export class SignetClient {
  readonly api: Client<paths>;
  private token?: string;
  private readonly baseUrl: string;

  /** `baseUrl`: where the service answers, e.g. `http://localhost:8080`. */
  constructor(baseUrl: string, options: ClientOptions = {}) {
    this.token = options.token;
    this.baseUrl = baseUrl.replace(/\/$/, '');
    this.api = createClient<paths>({
      baseUrl: this.baseUrl,
      fetch: withNetworkErrors(options.fetch ?? globalThis.fetch, options.timeoutMs),
    });
    this.api.use({
      onRequest: ({ request }) => {
        if (this.token) request.headers.set('Authorization', `Bearer ${this.token}`);
        return request;
      },
    });
  }

  /** The payload of a call's success envelope; a SignetError for an error envelope or a non-200 answer. */
  private async call<D>(operation: string, pending: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<PayloadOf<D>> {
    const { data, response } = await this.settle(operation, pending);
    const body = data as Envelope | undefined;
    if (response.status !== 200 || !body) throw new SignetError(`http-${response.status}`, response.statusText, operation, response.status);
    if (body.status === 'error') throw new SignetError(body.code, body.message, operation);
    return body.payload as PayloadOf<D>;
  }

  /** The call's outcome; a connection lost while its body was read (after fetch had the headers) as a SignetNetworkError. */
  private async settle<R>(operation: string, pending: Promise<R>): Promise<R> {
    try {
      return await pending;
    } catch (e) {
      throw networkError(e, operation, this.baseUrl) ?? e;
    }
  }

  // --- the service

  async version(): Promise<Version> {
    return this.call('GET version', this.api.GET('/api/public/v1/version'));
  }

  /** Liveness: `{ status: 'ok' }` while the process runs. */
  async live(): Promise<Health> {
    const { data, response } = await this.settle('GET health/live', this.api.GET('/api/public/v1/health/live'));
    if (!data) throw new SignetError(`http-${response.status}`, response.statusText, 'GET health/live', response.status);
    return data;
  }

  /** Readiness: `status` ok, or unavailable with `database: 'unreachable'` (HTTP 503, returned as it is, not thrown). */
  async ready(): Promise<Health> {
    const { data, error, response } = await this.settle('GET health/ready', this.api.GET('/api/public/v1/health/ready'));
    const health = data ?? (response.status === 503 ? (error as Health) : undefined);
    if (!health) throw new SignetError(`http-${response.status}`, response.statusText, 'GET health/ready', response.status);
    return health;
  }

  // --- authentication

  /** Logs in and keeps the token for the calls that follow; returns it. */
  async login(usernameOrEmail: string, password: string): Promise<string> {
    const { token } = await this.call('POST login', this.api.POST('/api/public/v1/login', { body: { usernameOrEmail, password } }));
    this.token = token;
    return token;
  }

  /** Ends the token's validity (the client forgets it). */
  async logout(): Promise<void> {
    await this.call('POST logout', this.api.POST('/api/public/v1/logout'));
    this.token = undefined;
  }

  // --- projects

  /** Creates a project; returns its id. */
  async createProject(name: string, description?: string): Promise<string> {
    const body = description === undefined ? { name } : { name, description };
    return (await this.call('POST createProject', this.api.POST('/api/public/v1/createProject', { body }))).projectId;
  }

  async getProject(projectId: string): Promise<Project> {
    return this.call('GET project', this.api.GET('/api/public/v1/project/{projectId}', { params: { path: { projectId } } }));
  }

  /** The caller's own projects, `count` (at most 100) from `offset`. */
  async ownedProjects(offset = 0, count = 100): Promise<ProjectPage> {
    return this.call(
      'GET projects/owned',
      this.api.GET('/api/public/v1/projects/owned/{offset}/{count}', { params: { path: { offset, count } } }),
    );
  }

  /** The projects others shared with the caller. */
  async sharedProjects(offset = 0, count = 100): Promise<ProjectPage> {
    return this.call(
      'GET projects/shared',
      this.api.GET('/api/public/v1/projects/shared/{offset}/{count}', { params: { path: { offset, count } } }),
    );
  }

  /** Deletes a project and everything in it; returns the project as it was. */
  async deleteProject(projectId: string): Promise<Project> {
    return this.call(
      'POST project delete',
      this.api.POST('/api/public/v1/project/{projectId}/delete', { params: { path: { projectId } } }),
    );
  }

  /** Shares a project with a user (replacing the permissions they had on it). */
  async shareProject(projectId: string, username: string, permissions: Permission[]): Promise<Share> {
    return this.call(
      'POST project share',
      this.api.POST('/api/public/v1/project/{projectId}/share', { params: { path: { projectId } }, body: { username, permissions } }),
    );
  }

  async unshareProject(projectId: string, username: string): Promise<Unshare> {
    return this.call(
      'POST project unshare',
      this.api.POST('/api/public/v1/project/{projectId}/unshare', { params: { path: { projectId } }, body: { username } }),
    );
  }

  // --- files and datasets

  /** Uploads a file's bytes under `fileId` (1 to 64 of A-Za-z0-9._-, chosen by the caller; the same id again replaces it). */
  async uploadFile(fileId: string, bytes: Uint8Array): Promise<UploadedFile> {
    return this.call(
      'POST file upload',
      this.api.POST('/api/public/v1/file/{fileId}/upload', {
        params: { path: { fileId } },
        // the body is the file itself, sent as it is
        body: bytes as unknown as string,
        bodySerializer: (b) => b,
        headers: { 'Content-Type': 'application/octet-stream' },
      }),
    );
  }

  /** The caller's uploaded files. */
  async files(offset = 0, count = 100): Promise<FilePage> {
    return this.call('GET files', this.api.GET('/api/public/v1/files/{offset}/{count}', { params: { path: { offset, count } } }));
  }

  async deleteFile(fileId: string): Promise<UploadedFile> {
    return this.call('POST file delete', this.api.POST('/api/public/v1/file/{fileId}/delete', { params: { path: { fileId } } }));
  }

  /** Starts creating a dataset from an uploaded file; returns the task id (see waitForTask). */
  async createDataset(
    projectId: string,
    fileId: string,
    name: string,
    fileSizeInBytes: number,
    options: CreateDatasetOptions = {},
  ): Promise<string> {
    const body = { ...options, projectId, name, fileSizeInBytes };
    const { taskId } = await this.call(
      'POST createDataset',
      this.api.POST('/api/public/v1/file/{fileId}/createDataset', { params: { path: { fileId } }, body }),
    );
    return taskId;
  }

  /** The status of a dataset task (or an image upload's). */
  async taskStatus(taskId: string): Promise<TaskStatus> {
    return this.call('GET task status', this.api.GET('/api/public/v1/task/{taskId}/status', { params: { path: { taskId } } }));
  }

  /** Polls a dataset task until it ends: its finished status (with datasetId), or a SignetError with the task's code. */
  async waitForTask(taskId: string, options: WaitOptions<TaskStatus> = {}): Promise<TaskStatus> {
    return this.waitFor(`task ${taskId}`, () => this.taskStatus(taskId), options);
  }

  /** Uploads a CSV file and waits for its dataset: the dataset. */
  async uploadDataset(projectId: string, csvPath: string, name: string, options: CreateDatasetOptions = {}): Promise<Dataset> {
    const bytes = fs.readFileSync(csvPath);
    const fileId = `${path
      .basename(csvPath)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 40)}-${Date.now().toString(36)}`;
    await this.uploadFile(fileId, bytes);
    const taskId = await this.createDataset(projectId, fileId, name, bytes.length, options);
    const { datasetId } = await this.waitForTask(taskId);
    return this.getDataset(datasetId as string);
  }

  async getDataset(datasetId: string): Promise<Dataset> {
    return this.call('GET dataset', this.api.GET('/api/public/v1/dataset/{datasetId}', { params: { path: { datasetId } } }));
  }

  /** The datasets of a project. */
  async datasets(projectId: string, offset = 0, count = 100): Promise<DatasetPage> {
    return this.call(
      'GET datasets',
      this.api.GET('/api/public/v1/datasets/{projectId}/{offset}/{count}', { params: { path: { projectId, offset, count } } }),
    );
  }

  async deleteDataset(datasetId: string): Promise<Dataset> {
    return this.call(
      'POST dataset delete',
      this.api.POST('/api/public/v1/dataset/{datasetId}/delete', { params: { path: { datasetId } } }),
    );
  }

  /** The features of a dataset with their types and counts. */
  async features(datasetId: string): Promise<Features> {
    return this.call('GET features', this.api.GET('/api/public/v1/dataset/{datasetId}/features', { params: { path: { datasetId } } }));
  }

  /** Changes the types of some features (name -> type); returns every feature. */
  async changeFeatureTypes(datasetId: string, featureTypes: FeatureTypes): Promise<Features> {
    return this.call(
      'POST changeFeatureTypes',
      this.api.POST('/api/public/v1/dataset/{datasetId}/changeFeatureTypes', { params: { path: { datasetId } }, body: { featureTypes } }),
    );
  }

  // --- image datasets

  /**
   * Starts an image dataset: a CSV whose first column holds the sample ids; returns the task id. Then addImage
   * for every sample, commitImageUpload, and waitForTask.
   */
  async initImageUpload(csv: Uint8Array | string, attributes: ImageUploadAttributes): Promise<string> {
    const form = new FormData();
    // attributes first: a refusal is then answered before the file is read
    form.append('attributes', JSON.stringify(attributes));
    form.append('file', new Blob([typeof csv === 'string' ? csv : copy(csv)], { type: 'text/csv' }), 'samples.csv');
    const { taskId } = await this.call(
      'POST image initUpload',
      // openapi-fetch sends a FormData as it is, with its multipart boundary
      this.api.POST('/api/public/v1/image/initUpload', { body: form as never }),
    );
    return taskId;
  }

  /** Adds the image of one sample (jpeg, png, tif or bmp, recognised by its content). */
  async addImage(taskId: string, sampleId: string, image: Uint8Array, filename = `${sampleId}.img`): Promise<string> {
    const form = new FormData();
    form.append('sampleId', sampleId);
    form.append('file', new Blob([copy(image)]), filename);
    const payload = await this.call(
      'POST image add',
      this.api.POST('/api/public/v1/image/{taskId}/add', { params: { path: { taskId } }, body: form as never }),
    );
    return payload.taskId;
  }

  /** Commits an image upload once every sample has its image: the dataset is then built (waitForTask). */
  async commitImageUpload(taskId: string): Promise<void> {
    await this.call('GET image commit', this.api.GET('/api/public/v1/image/{taskId}/commit', { params: { path: { taskId } } }));
  }

  async imageUploadStatus(taskId: string): Promise<TaskStatus> {
    return this.call('GET image status', this.api.GET('/api/public/v1/image/{taskId}/status', { params: { path: { taskId } } }));
  }

  // --- analyses

  /** Starts an analysis; returns its id (see waitForAnalysis). */
  async analyze(datasetId: string, parameters: AnalyzeParameters): Promise<string> {
    const { analysisId } = await this.call(
      'POST analyze',
      this.api.POST('/api/public/v1/dataset/{datasetId}/analyze', { params: { path: { datasetId } }, body: parameters }),
    );
    return analysisId;
  }

  /** What analyze would refuse (errors) and accept with a caveat (warnings); nothing is started. */
  async checkAnalyze(datasetId: string, parameters: AnalyzeParameters): Promise<AnalysisCheck> {
    return this.call(
      'POST check analyze',
      this.api.POST('/api/public/v1/check/dataset/{datasetId}/analyze', { params: { path: { datasetId } }, body: parameters }),
    );
  }

  async getAnalysis(analysisId: string): Promise<Analysis> {
    return this.call('GET analysis', this.api.GET('/api/public/v1/analysis/{analysisId}', { params: { path: { analysisId } } }));
  }

  /** The analyses of a project. */
  async analyses(projectId: string, offset = 0, count = 100): Promise<AnalysisPage> {
    return this.call(
      'GET analyses',
      this.api.GET('/api/public/v1/analyses/all/{projectId}/{offset}/{count}', { params: { path: { projectId, offset, count } } }),
    );
  }

  async analysisStatus(analysisId: string): Promise<AnalysisStatus> {
    return this.call(
      'GET analysis status',
      this.api.GET('/api/public/v1/analysis/{analysisId}/status', { params: { path: { analysisId } } }),
    );
  }

  /** Polls until the analysis ends, calling `progress` with every status read; a failed analysis throws its code. */
  async waitForAnalysis(analysisId: string, options: WaitOptions<AnalysisStatus> = {}): Promise<AnalysisStatus> {
    return this.waitFor(`analysis ${analysisId}`, () => this.analysisStatus(analysisId), options);
  }

  async analysisResult(analysisId: string): Promise<AnalysisResult> {
    return this.call(
      'GET analysis result',
      this.api.GET('/api/public/v1/analysis/{analysisId}/result', { params: { path: { analysisId } } }),
    );
  }

  /** Deletes an analysis (a running one is stopped); returns it as it was. */
  async deleteAnalysis(analysisId: string): Promise<Analysis> {
    return this.call(
      'POST analysis delete',
      this.api.POST('/api/public/v1/analysis/{analysisId}/delete', { params: { path: { analysisId } } }),
    );
  }
  /** A page of the leaderboard: every configuration the analysis evaluated, from the highest pooled out-of-fold metric. */
  async configurations(analysisId: string, offset = 0, count = 100): Promise<ConfigurationPage> {
    return this.call(
      'GET configurations',
      this.api.GET('/api/public/v1/analysis/{analysisId}/configurations/{offset}/{count}', {
        params: { path: { analysisId, offset, count } },
      }),
    );
  }

  /** The out-of-fold predictions of a model, per sample, beside the actual outcome (JSON). */
  /** The out-of-fold predictions per sample; `explain`: with each one's explanation (by the signature refitted without it). */
  async outOfFoldPredictions(analysisId: string, modelKey: string, options: { explain?: boolean } = {}): Promise<OutOfFoldPredictions> {
    const query = options.explain ? { modelKey, explain: 'true' as const } : { modelKey };
    return this.call(
      'GET outOfFoldPredictions',
      this.api.GET('/api/public/v1/analysis/{analysisId}/outOfFoldPredictions', { params: { path: { analysisId }, query } }),
    );
  }

  /** The same as CSV text (format=csv): `row,sampleId,actual,event,prediction,probability:<class>...,risk` (the columns that apply). */
  async outOfFoldPredictionsCsv(analysisId: string, modelKey: string): Promise<string> {
    return this.csvText(
      'GET outOfFoldPredictions',
      this.api.GET('/api/public/v1/analysis/{analysisId}/outOfFoldPredictions', {
        params: { path: { analysisId }, query: { modelKey, format: 'csv' } },
        parseAs: 'text',
      }),
    );
  }

  /**
   * Writes the analysis report (one self-contained HTML page: models, estimates with intervals, signatures, every
   * plot drawn, the leaderboard) to `filePath`, and returns that path. An analysis without a result throws its code.
   */
  async downloadReport(analysisId: string, filePath: string): Promise<string> {
    const operation = 'GET analysis report';
    const { data, error, response } = await this.settle(
      operation,
      this.api.GET('/api/public/v1/analysis/{analysisId}/report', { params: { path: { analysisId } }, parseAs: 'text' }),
    );
    if (response.status !== 200) throw new SignetError(`http-${response.status}`, response.statusText, operation, response.status);
    const text = String(data ?? error ?? '');
    // an error (unknown analysis, not finished) comes as the JSON error envelope
    if (!(response.headers.get('content-type') ?? '').startsWith('text/html')) {
      const body = JSON.parse(text) as Envelope;
      throw body.status === 'error'
        ? new SignetError(body.code, body.message, operation)
        : new SignetError('http-200', 'not a report', operation, 200);
    }
    await fs.promises.writeFile(filePath, text, 'utf8');
    return filePath;
  }

  /**
   * A link that opens the report of a finished analysis in a browser without a bearer header, for `validForDays`
   * (default 7, at most 90). Its `url` is shown this once: keep it, or make another.
   */
  async createReportLink(analysisId: string, validForDays?: number): Promise<ReportLink> {
    return this.call(
      'POST reportLink',
      this.api.POST('/api/public/v1/analysis/{analysisId}/reportLink', {
        params: { path: { analysisId } },
        body: validForDays === undefined ? {} : { validForDays },
      }),
    );
  }

  /** An analysis's report links (the project's owner sees every one, others their own); never their URLs. */
  async reportLinks(analysisId: string, offset = 0, count = 100): Promise<ReportLinkPage> {
    return this.call(
      'GET reportLinks',
      this.api.GET('/api/public/v1/analysis/{analysisId}/reportLinks/{offset}/{count}', { params: { path: { analysisId, offset, count } } }),
    );
  }

  /** Withdraws a report link (the project's owner): it opens nothing from then on. */
  async deleteReportLink(analysisId: string, linkId: string): Promise<ReportLinkInfo> {
    return this.call(
      'POST reportLink delete',
      this.api.POST('/api/public/v1/analysis/{analysisId}/reportLink/{linkId}/delete', { params: { path: { analysisId, linkId } } }),
    );
  }

  /** The report page a link's token opens (the link needs no login); a link that opens nothing throws http-404. */
  async openReportLink(token: string): Promise<string> {
    const operation = 'GET sharedReport';
    const { data, error, response } = await this.settle(
      operation,
      this.api.GET('/api/public/v1/sharedReport/{token}', { params: { path: { token } }, parseAs: 'text' }),
    );
    if (response.status !== 200) throw new SignetError(`http-${response.status}`, 'the link opens no report', operation, response.status);
    return String(data ?? error ?? '');
  }

  // --- plots (each as GET with a query, and as POST with a JSON body: the same answers)

  /** The names of the plots of a model (`best`, `interpretable`). */
  async availablePlots(analysisId: string, modelKey: string): Promise<string[]> {
    const payload = await this.call(
      'GET availablePlots',
      this.api.GET('/api/public/v1/analysis/{analysisId}/availablePlots', { params: { path: { analysisId }, query: { modelKey } } }),
    );
    return payload.plots;
  }

  async availablePlotsByBody(analysisId: string, modelKey: string): Promise<AvailablePlots> {
    return this.call(
      'POST availablePlots',
      this.api.POST('/api/public/v1/analysis/{analysisId}/availablePlots', { params: { path: { analysisId } }, body: { modelKey } }),
    );
  }

  async plot(analysisId: string, modelKey: string, plotKey: string): Promise<PlotOne> {
    return this.call(
      'GET getPlot',
      this.api.GET('/api/public/v1/analysis/{analysisId}/getPlot', { params: { path: { analysisId }, query: { modelKey, plotKey } } }),
    );
  }

  async plotByBody(analysisId: string, modelKey: string, plotKey: string): Promise<PlotOne> {
    return this.call(
      'POST getPlot',
      this.api.POST('/api/public/v1/analysis/{analysisId}/getPlot', { params: { path: { analysisId } }, body: { modelKey, plotKey } }),
    );
  }

  async plots(analysisId: string, modelKey: string): Promise<PlotAll> {
    return this.call(
      'GET getPlots',
      this.api.GET('/api/public/v1/analysis/{analysisId}/getPlots', { params: { path: { analysisId }, query: { modelKey } } }),
    );
  }

  async plotsByBody(analysisId: string, modelKey: string): Promise<PlotAll> {
    return this.call(
      'POST getPlots',
      this.api.POST('/api/public/v1/analysis/{analysisId}/getPlots', { params: { path: { analysisId } }, body: { modelKey } }),
    );
  }

  // --- predictions

  /**
   * Starts predicting a dataset with a model of the analysis' result; returns the prediction id. `explain`: each row
   * of the result then has its explanation (each feature's contribution and a base value, adding up to the model's
   * output on the stated scale); `times`: survival models' times of the survival probabilities.
   */
  async predict(
    analysisId: string,
    datasetId: string,
    modelKey: string,
    signatureIndex?: number,
    options: { explain?: boolean; times?: number[] } = {},
  ): Promise<string> {
    const body = { modelKey, ...(signatureIndex === undefined ? {} : { signatureIndex }), ...options };
    const { predictionId } = await this.call(
      'POST predict',
      this.api.POST('/api/public/v1/analysis/{analysisId}/predict/{datasetId}', { params: { path: { analysisId, datasetId } }, body }),
    );
    return predictionId;
  }

  async predictionStatus(predictionId: string): Promise<PredictionStatus> {
    return this.call(
      'GET prediction status',
      this.api.GET('/api/public/v1/prediction/{predictionId}/status', { params: { path: { predictionId } } }),
    );
  }

  async waitForPrediction(predictionId: string, options: WaitOptions<PredictionStatus> = {}): Promise<PredictionStatus> {
    return this.waitFor(`prediction ${predictionId}`, () => this.predictionStatus(predictionId), options);
  }

  async predictionResult(predictionId: string): Promise<PredictionResult> {
    return this.call(
      'GET prediction result',
      this.api.GET('/api/public/v1/prediction/{predictionId}/result', { params: { path: { predictionId } } }),
    );
  }

  /** The predictions as CSV text (format=csv). */
  async predictionResultCsv(predictionId: string): Promise<string> {
    return this.csvText(
      'GET prediction result',
      this.api.GET('/api/public/v1/prediction/{predictionId}/result', {
        params: { path: { predictionId }, query: { format: 'csv' } },
        parseAs: 'text',
      }),
    );
  }

  /** The text of a CSV answer; an error (unknown prediction or analysis, not finished) still comes as the JSON error envelope. */
  private async csvText(operation: string, request: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<string> {
    const { data, error, response } = await this.settle(operation, request);
    if (response.status !== 200) throw new SignetError(`http-${response.status}`, response.statusText, operation, response.status);
    const text = String(data ?? error ?? '');
    if ((response.headers.get('content-type') ?? '').startsWith('application/json')) {
      const body = JSON.parse(text) as Envelope;
      if (body.status === 'error') throw new SignetError(body.code, body.message, operation);
    }
    return text;
  }

  // --- models that leave the service

  /**
   * The ONNX file of a model's signature (preprocessing, model, calibration: one graph whose inputs are named after the
   * features), written to `filePath`; returns that path. A model the export refuses throws badRequest-150-5-1.
   */
  async exportModel(analysisId: string, modelKey: string, filePath: string, signatureIndex = 0): Promise<string> {
    const operation = 'GET model';
    const { data, error, response } = await this.settle(
      operation,
      this.api.GET('/api/public/v1/analysis/{analysisId}/model', {
        params: { path: { analysisId }, query: { modelKey, signatureIndex: String(signatureIndex), format: 'onnx' } },
        parseAs: 'arrayBuffer',
      }),
    );
    if (response.status !== 200) throw new SignetError(`http-${response.status}`, response.statusText, operation, response.status);
    const bytes = Buffer.from((data ?? error) as ArrayBuffer);
    // an error (unknown model, not exportable) comes as the JSON error envelope
    if ((response.headers.get('content-type') ?? '').startsWith('application/json')) {
      const body = JSON.parse(bytes.toString('utf8')) as Envelope;
      throw body.status === 'error'
        ? new SignetError(body.code, body.message, operation)
        : new SignetError('http-200', 'not a model', operation, 200);
    }
    await fs.promises.writeFile(filePath, bytes);
    return filePath;
  }

  /** The model card of a model's signature: inputs, outcome, metrics with intervals, signatures, training size, engine, parameters. */
  async modelCard(analysisId: string, modelKey: string, signatureIndex = 0): Promise<ModelCard> {
    return this.call(
      'GET modelCard',
      this.api.GET('/api/public/v1/analysis/{analysisId}/modelCard', {
        params: { path: { analysisId }, query: { modelKey, signatureIndex: String(signatureIndex) } },
      }),
    );
  }

  /**
   * Scores up to 1,000 rows (feature name -> value; null where missing) within the call, with the fields of a
   * prediction's rows; `times` and `explain` as for predict.
   */
  async score(
    analysisId: string,
    modelKey: string,
    rows: Record<string, unknown>[],
    options: { signatureIndex?: number; times?: number[]; explain?: boolean } = {},
  ): Promise<ScoreResult> {
    return this.call(
      'POST score',
      this.api.POST('/api/public/v1/analysis/{analysisId}/score', {
        params: { path: { analysisId } },
        body: { modelKey, rows, ...options },
      }),
    );
  }

  /** The predictions made with an analysis' models. */
  async predictions(analysisId: string, offset = 0, count = 100): Promise<PredictionPage> {
    return this.call(
      'GET predictions',
      this.api.GET('/api/public/v1/analysis/{analysisId}/predictions/{offset}/{count}', {
        params: { path: { analysisId, offset, count } },
      }),
    );
  }

  async deletePrediction(predictionId: string): Promise<Prediction> {
    return this.call(
      'POST prediction delete',
      this.api.POST('/api/public/v1/prediction/{predictionId}/delete', { params: { path: { predictionId } } }),
    );
  }

  // --- waiting

  private async waitFor<S extends { state: string; error?: { code: string; message: string } }>(
    what: string,
    read: () => Promise<S>,
    { progress, intervalMs = 500, timeoutMs = 600_000 }: WaitOptions<S>,
  ): Promise<S> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await read();
      progress?.(status);
      if (status.state === 'finished') return status;
      if (status.state === 'failed') {
        throw new SignetError(status.error?.code ?? 'failed', status.error?.message ?? `${what} failed`, `wait for ${what}`);
      }
      if (Date.now() > deadline)
        throw new SignetError('timeout', `${what} still ${status.state} after ${timeoutMs} ms`, `wait for ${what}`);
      await sleep(intervalMs);
    }
  }
}

/** A copy of the bytes in an ArrayBuffer of their own (Blob takes no view of a SharedArrayBuffer). */
const copy = (bytes: Uint8Array): Uint8Array<ArrayBuffer> => new Uint8Array(bytes);

/** `fetch` whose failures are SignetNetworkErrors with their reason, and which gives up after `timeoutMs` when set. */
function withNetworkErrors(base: typeof fetch, timeoutMs?: number): typeof fetch {
  return async (input, init) => {
    const request = typeof input === 'object' && 'method' in input ? input : undefined;
    const url = request?.url ?? String(input);
    const operation = `${request?.method ?? init?.method ?? 'GET'} ${new URL(url).pathname}`;
    const timer = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
    const own = init?.signal ?? request?.signal;
    const signal = timer && own ? AbortSignal.any([own, timer]) : (timer ?? own);
    try {
      return await base(input, signal ? { ...init, signal } : init);
    } catch (e) {
      throw networkError(e, operation, url, timer?.aborted) ?? e;
    }
  };
}
