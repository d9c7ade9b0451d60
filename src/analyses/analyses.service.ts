import { Inject, Injectable } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/config';
import { ApiError } from '../common/api-error';
import { Codes, ErrorCode } from '../common/error-codes';
import { paginateSql } from '../database/paginate';
import { keepRow } from '../database/sql';
import { DatasetsService } from '../datasets/datasets.service';
import type { Feature } from '../datasets/dto/dataset.dto';
import { ColumnStore } from '../datasets/column-store';
import { renderStatus, seconds } from '../jobs/job-state';
import { JobsService } from '../jobs/jobs.service';
import type { EngineColumn, ModelPlots, SavedPipeline } from '../engine/types';
import * as queries from './analyses.queries';
import { AnalysisRow } from './analyses.queries';
import { ANALYSIS_JOB, ANALYSIS_SUBJECT } from './analysis.job';
import { checkDataInWorker, dataChecks } from './data-check';
import { checkParameters, StoredParameters, Violation } from './analysis-parameters';
import { currentEstimate, shapeEstimate } from './estimate';
import type { Analysis, AnalysisCheck, AnalysisPage, AnalysisRef, AnalysisStatus } from './dto/analysis.dto';

function view(r: AnalysisRow): Analysis {
  return { analysisId: String(r.id), projectId: String(r.project_id), parameters: r.parameters, state: r.state };
}

/** Analyses as the API shows them: validation, queueing with the user's core quota, reads and deletes. */
@Injectable()
export class AnalysesService {
  constructor(
    private readonly db: DataSource,
    private readonly datasets: DatasetsService,
    private readonly columns: ColumnStore,
    private readonly jobs: JobsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Cores the user may still ask for: quota minus the coreCount of their pending and running analyses. */
  private async availableCores(userId: string, manager = this.db.manager, lock = false): Promise<number> {
    const quota = await queries.coreQuotaOf(manager, userId, lock);
    return (quota ?? this.config.workerCores) - (await queries.coresInUse(manager, userId));
  }

  async check(userId: string, datasetId: string, body: unknown): Promise<AnalysisCheck> {
    const features = await this.datasets.featuresOf(datasetId);
    const { violations, parameters } = checkParameters(body, datasetId, features);
    const warnings: Violation[] = [];
    if (parameters) {
      const available = await this.availableCores(userId);
      if (parameters.coreCount > available) {
        violations.push({
          code: Codes.CoreCountTooHigh,
          message: `coreCount ${parameters.coreCount} is above the ${Math.max(0, available)} cores available to you`,
        });
      }
      for (const problem of await this.dataProblems(datasetId, parameters, features)) {
        violations.push({ code: Codes.DatasetNotAnalysable, message: problem });
      }
      const ds = await this.datasets.get(datasetId);
      if (ds.sampleCount < 50) {
        warnings.push({ code: Codes.DatasetNotAnalysable, message: `only ${ds.sampleCount} samples: estimates will have wide intervals` });
      }
    }
    return { errors: violations, warnings };
  }

  /**
   * What the engine would refuse in this dataset for these parameters (a single class, too few samples, no
   * events...): its own validation, on the outcome and grouping columns, run on an engine process
   * (data-check.ts) to which their stored bytes are streamed: the work and memory that grow with the data stay
   * off this event loop. The other columns are passed with their types only (the validation needs just to
   * know that features are left). At most `dataChecks` run at once; the others wait before reading anything.
   */
  private async dataProblems(datasetId: string, parameters: StoredParameters, features: Feature[]): Promise<string[]> {
    const outcome = parameters.outcome;
    const needed = new Set(
      'classification' in outcome
        ? [outcome.classification]
        : 'regression' in outcome
          ? [outcome.regression]
          : [outcome.survival.event, outcome.survival.timeToEvent],
    );
    if (parameters.groupingFeature !== undefined) needed.add(parameters.groupingFeature);
    const typesOnly = features
      .filter((f) => !needed.has(f.name))
      .map((f): EngineColumn =>
        f.type === 'numerical' || f.type === 'timeToEvent'
          ? { name: f.name, type: f.type, values: new Float64Array(0) }
          : { name: f.name, type: f.type, codes: new Int32Array(0), levels: [] },
      );
    return dataChecks.run(() =>
      this.columns.readPacked(datasetId, needed, (sampleCount, columns, pieces) =>
        checkDataInWorker(sampleCount, { typesOnly, parameters }, columns, pieces),
      ),
    );
  }

  async analyze(userId: string, datasetId: string, projectId: string, body: unknown): Promise<AnalysisRef> {
    return this.jobs.enqueueTurn(userId, () => this.queueAnalysis(userId, datasetId, projectId, body));
  }

  private async queueAnalysis(userId: string, datasetId: string, projectId: string, body: unknown): Promise<AnalysisRef> {
    return this.db.transaction(async (tx) => {
      // the dataset stays until this commits (a concurrent delete waits, then takes the analysis with it)
      await keepRow(tx, 'datasets', datasetId, new ApiError(Codes.DatasetNotFound));
      const features = await this.datasets.featuresOf(datasetId, tx);
      const { violations, parameters } = checkParameters(body, datasetId, features);
      if (violations.length || !parameters) throw new ApiError(violations[0].code, violations[0].message);
      // The user's row lock makes the quota check and the insert one step for concurrent requests.
      const available = await this.availableCores(userId, tx, true);
      if (parameters.coreCount > available) {
        throw new ApiError(
          Codes.CoreCountTooHigh,
          `coreCount ${parameters.coreCount} is above the ${Math.max(0, available)} cores available to you`,
        );
      }
      const seed = this.config.analysisSeed ?? randomInt(1, 2 ** 31 - 1);
      const estimate = shapeEstimate(parameters, await this.datasets.sampleCountOf(datasetId, tx), features);
      const analysisId = await queries.insertAnalysis(tx, { projectId, datasetId, userId, parameters, seed, estimate });
      await this.jobs.enqueue(ANALYSIS_JOB, { analysisId }, { projectId, cost: parameters.coreCount, manager: tx });
      return { analysisId, estimate };
    });
  }

  /** The SQL of an analysis's state as clients see it. */
  private state(): string {
    return this.jobs.states.shownState(ANALYSIS_SUBJECT);
  }

  private async row(analysisId: string, notFound: ErrorCode = Codes.AnalysisNotFound): Promise<AnalysisRow> {
    const row = await queries.analysisById(this.db, this.state(), analysisId);
    if (!row) throw new ApiError(notFound);
    return row;
  }

  async get(analysisId: string): Promise<Analysis> {
    return view(await this.row(analysisId));
  }

  async list(projectId: string, offset: number, count: number): Promise<AnalysisPage> {
    const sql = { table: 'analyses', columns: queries.analysisColumns(this.state()), where: 'project_id = $1', params: [projectId] };
    return { projectId, ...(await paginateSql(this.db, sql, offset, count, view)) };
  }

  /** Status with the presence rules of api-v1 (the one status view of src/jobs), and the estimate of its cost. */
  async status(analysisId: string): Promise<AnalysisStatus> {
    const r = await this.row(analysisId);
    const status = renderStatus(ANALYSIS_SUBJECT, r);
    const estimate = r.estimate ? currentEstimate(r.estimate, status, r.parameters.timeLimitSeconds) : undefined;
    return { ...view(r), ...status, ...(estimate ? { estimate } : {}) };
  }

  async result(analysisId: string) {
    const r = await this.row(analysisId, Codes.AnalysisResultUnknown);
    const res = await this.storedResult(analysisId, r);
    return {
      analysisId: String(r.id),
      parameters: r.parameters,
      mlEngine: res.ml_engine,
      startTime: (r.start_time as Date).toISOString(),
      executionTimeInSeconds: seconds(r.start_time as Date, r.end_time as Date),
      models: res.models,
      ...(r.estimate ? { estimate: r.estimate } : {}),
      ...(res.search ? { search: res.search } : {}),
    };
  }

  private async storedResult(analysisId: string, r?: AnalysisRow): Promise<queries.ResultRow> {
    const state = r?.state ?? (await this.row(analysisId)).state;
    const result = await queries.resultOf(this.db, analysisId);
    if (state !== 'finished' || !result) throw new ApiError(Codes.AnalysisUnfinished, `the analysis is ${state}: it has no result`);
    return result;
  }

  /** The plots of one model of a finished analysis (404-style codes for unknown keys). */
  async plotsOf(analysisId: string, modelKey: string): Promise<{ modelKey: string; plots: ModelPlots }> {
    const res = await this.storedResult(analysisId);
    if (!Object.prototype.hasOwnProperty.call(res.models, modelKey)) {
      throw new ApiError(Codes.ModelKeyNotFound, `modelKey "${modelKey.slice(0, 60)}" is not one of ${Object.keys(res.models).join(', ')}`);
    }
    return { modelKey, plots: res.plots[modelKey] ?? {} };
  }

  /** Signatures by model key of a finished analysis. */
  async modelSignatures(analysisId: string): Promise<Record<string, string[][]>> {
    const res = await this.storedResult(analysisId);
    return Object.fromEntries(Object.entries(res.models).map(([k, m]) => [k, m.signatures]));
  }

  /**
   * The fitted pipeline of one signature of a model (0 = the reference signature). Results stored before
   * equivalent signatures had models hold one pipeline per key instead of a list: that one is signature 0.
   */
  async pipeline(analysisId: string, modelKey: string, signatureIndex = 0): Promise<SavedPipeline | undefined> {
    const p = await queries.pipelinesOf(this.db, analysisId, modelKey);
    if (!p) return undefined;
    if (Array.isArray(p)) return p[signatureIndex];
    return signatureIndex === 0 ? p : undefined;
  }

  /** Names of the dataset columns the model of one signature reads. */
  async modelInputs(analysisId: string, modelKey: string, signatureIndex = 0): Promise<string[]> {
    return (await this.pipeline(analysisId, modelKey, signatureIndex))?.featureNames ?? [];
  }

  /** Deletes the analysis with its result, predictions and job: the runner stops a running one within 2 s. */
  async delete(analysisId: string): Promise<Analysis> {
    const row = await queries.deleteAnalysis(this.db, this.state(), analysisId);
    if (!row) throw new ApiError(Codes.AnalysisNotFound);
    return view(row);
  }
}
