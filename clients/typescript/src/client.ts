import * as fs from 'node:fs';
import * as path from 'node:path';
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema';

/** The payload shapes of the API, from the generated schema (src/schema.ts, `npm run generate`). */
export type Schemas = components['schemas'];
export type Project = Schemas['Project'];
export type Dataset = Schemas['Dataset'];
export type TaskStatus = Schemas['TaskStatus'];
export type AnalysisStatus = Schemas['AnalysisStatus'];
export type AnalysisResult = Schemas['AnalysisResult'];
export type Model = Schemas['Model'];
export type PlotOne = Schemas['PlotOne'];
export type PlotAll = Schemas['PlotAll'];
export type ConfigurationPage = Schemas['ConfigurationPage'];
export type OutOfFoldPredictions = Schemas['OutOfFoldPredictions'];
export type PredictionStatus = Schemas['PredictionStatus'];
export type PredictionResult = Schemas['PredictionResult'];
export type AnalyzeParameters = Schemas['AnalyzeDto'];
export type CreateDatasetOptions = Omit<Schemas['CreateDatasetDto'], 'projectId' | 'name' | 'fileSizeInBytes'>;

/** An error envelope of the API (or a failed task, analysis or prediction), with its `code`. */
export class SignetError extends Error {
  override readonly name = 'SignetError';
  constructor(
    /** The API's error code (`notFound-120-2-3`, ...), or `http-<status>` for a 403/404/500 without one. */
    readonly code: string,
    message: string,
    /** The operation that failed, e.g. `POST /api/public/v1/login`. */
    readonly operation: string,
    readonly httpStatus = 200,
  ) {
    super(`${operation}: ${code}: ${message}`);
  }
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

/**
 * The Signet API: `api` is the typed openapi-fetch client of every operation; the methods here are the
 * flows most programs need. Every method throws a SignetError carrying the API's code on an error envelope.
 */
export class SignetClient {
  readonly api: Client<paths>;
  private token?: string;

  /** `baseUrl`: where the service answers, e.g. `http://localhost:8080`. */
  constructor(baseUrl: string, options: { token?: string; fetch?: typeof fetch } = {}) {
    this.token = options.token;
    this.api = createClient<paths>({ baseUrl: baseUrl.replace(/\/$/, ''), fetch: options.fetch });
    this.api.use({
      onRequest: ({ request }) => {
        if (this.token) request.headers.set('Authorization', `Bearer ${this.token}`);
        return request;
      },
    });
  }

  /** The payload of a call's success envelope; a SignetError for an error envelope or a non-200 answer. */
  private async call<D>(operation: string, pending: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<PayloadOf<D>> {
    const { data, response } = await pending;
    const body = data as Envelope | undefined;
    if (response.status !== 200 || !body) throw new SignetError(`http-${response.status}`, response.statusText, operation, response.status);
    if (body.status === 'error') throw new SignetError(body.code, body.message, operation);
    return body.payload as PayloadOf<D>;
  }

  // --- authentication

  async login(usernameOrEmail: string, password: string): Promise<string> {
    const { token } = await this.call('POST login', this.api.POST('/api/public/v1/login', { body: { usernameOrEmail, password } }));
    this.token = token;
    return token;
  }

  async logout(): Promise<void> {
    await this.call('POST logout', this.api.POST('/api/public/v1/logout'));
    this.token = undefined;
  }

  async version(): Promise<Schemas['Version']> {
    return this.call('GET version', this.api.GET('/api/public/v1/version'));
  }

  // --- projects

  async createProject(name: string, description?: string): Promise<string> {
    const body = description === undefined ? { name } : { name, description };
    return (await this.call('POST createProject', this.api.POST('/api/public/v1/createProject', { body }))).projectId;
  }

  async getProject(projectId: string): Promise<Project> {
    return this.call('GET project', this.api.GET('/api/public/v1/project/{projectId}', { params: { path: { projectId } } }));
  }

  // --- files and datasets

  /** Uploads a file's bytes under `fileId` (1 to 64 of A-Za-z0-9._-, chosen by the caller). */
  async uploadFile(fileId: string, bytes: Uint8Array): Promise<Schemas['UploadedFile']> {
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

  /** Starts creating a dataset from an uploaded file; returns the task id (see waitForTask). */
  async createDataset(projectId: string, fileId: string, name: string, fileSizeInBytes: number, options: CreateDatasetOptions = {}): Promise<string> {
    const body = { ...options, projectId, name, fileSizeInBytes };
    const { taskId } = await this.call(
      'POST createDataset',
      this.api.POST('/api/public/v1/file/{fileId}/createDataset', { params: { path: { fileId } }, body }),
    );
    return taskId;
  }

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
    const fileId = `${path.basename(csvPath).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40)}-${Date.now().toString(36)}`;
    await this.uploadFile(fileId, bytes);
    const taskId = await this.createDataset(projectId, fileId, name, bytes.length, options);
    const { datasetId } = await this.waitForTask(taskId);
    return this.getDataset(datasetId as string);
  }

  async getDataset(datasetId: string): Promise<Dataset> {
    return this.call('GET dataset', this.api.GET('/api/public/v1/dataset/{datasetId}', { params: { path: { datasetId } } }));
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
  async outOfFoldPredictions(analysisId: string, modelKey: string): Promise<OutOfFoldPredictions> {
    return this.call(
      'GET outOfFoldPredictions',
      this.api.GET('/api/public/v1/analysis/{analysisId}/outOfFoldPredictions', { params: { path: { analysisId }, query: { modelKey } } }),
    );
  }

  // --- plots

  async availablePlots(analysisId: string, modelKey: string): Promise<string[]> {
    const payload = await this.call(
      'GET availablePlots',
      this.api.GET('/api/public/v1/analysis/{analysisId}/availablePlots', { params: { path: { analysisId }, query: { modelKey } } }),
    );
    return payload.plots;
  }

  async plot(analysisId: string, modelKey: string, plotKey: string): Promise<PlotOne> {
    return this.call(
      'GET getPlot',
      this.api.GET('/api/public/v1/analysis/{analysisId}/getPlot', { params: { path: { analysisId }, query: { modelKey, plotKey } } }),
    );
  }

  async plots(analysisId: string, modelKey: string): Promise<PlotAll> {
    return this.call(
      'GET getPlots',
      this.api.GET('/api/public/v1/analysis/{analysisId}/getPlots', { params: { path: { analysisId }, query: { modelKey } } }),
    );
  }

  // --- predictions

  /** Starts predicting a dataset with a model of the analysis' result; returns the prediction id. */
  async predict(analysisId: string, datasetId: string, modelKey: string, signatureIndex?: number): Promise<string> {
    const body = signatureIndex === undefined ? { modelKey } : { modelKey, signatureIndex };
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
    const { data, error, response } = await this.api.GET('/api/public/v1/prediction/{predictionId}/result', {
      params: { path: { predictionId }, query: { format: 'csv' } },
      parseAs: 'text',
    });
    if (response.status !== 200) throw new SignetError(`http-${response.status}`, response.statusText, 'GET prediction result', response.status);
    const text = String(data ?? error ?? '');
    // an error (unknown prediction, not finished) still comes as the JSON error envelope
    if ((response.headers.get('content-type') ?? '').startsWith('application/json')) {
      const body = JSON.parse(text) as Envelope;
      if (body.status === 'error') throw new SignetError(body.code, body.message, 'GET prediction result');
    }
    return text;
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
      if (Date.now() > deadline) throw new SignetError('timeout', `${what} still ${status.state} after ${timeoutMs} ms`, `wait for ${what}`);
      await sleep(intervalMs);
    }
  }
}
