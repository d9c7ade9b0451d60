import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Codes } from '../common/error-codes';
import { ColumnStore } from '../datasets/column-store';
import { DatasetsService } from '../datasets/datasets.service';
import type { AnalysisOutput } from '../engine/types';
import type { JobKind, JobSubject } from '../jobs/job-kinds';
import { JobsService } from '../jobs/jobs.service';
import { JobFailure, ReportProgress } from '../jobs/jobs.types';
import { analysisToRun, insertResult } from './analyses.queries';
import { checkParameters } from './analysis-parameters';
import { AnalysisInputError, runAnalysisInWorker } from './analysis-runner';

/** Analyses, as their status shows them: times, and progress while running. */
export const ANALYSIS_SUBJECT: JobSubject = {
  name: 'analysis',
  table: 'analyses',
  jobColumn: 'analysis_id',
  times: true,
  showsTimes: true,
  progress: true,
};

export const ANALYSIS_JOB: JobKind<{ analysisId: string }> = {
  name: 'analysis',
  subject: ANALYSIS_SUBJECT,
  subjectId: (p) => p.analysisId,
  failureCode: Codes.AnalysisFailed,
  waitsAs: 'pending',
};

/** The analysis job: load the dataset, run the engine on a worker thread; store models, plots and pipelines. */
@Injectable()
export class AnalysisJob implements OnModuleInit {
  constructor(
    private readonly db: DataSource,
    private readonly jobs: JobsService,
    private readonly columns: ColumnStore,
    private readonly datasets: DatasetsService,
  ) {}

  onModuleInit(): void {
    this.jobs.register(ANALYSIS_JOB, {
      execute: (payload, signal, report) => this.run(payload.analysisId, signal, report),
      store: (tx, payload, output) => insertResult(tx, payload.analysisId, output),
    });
  }

  private async run(analysisId: string, signal: AbortSignal, report: ReportProgress): Promise<AnalysisOutput> {
    // a time limit counts from here: the loading of the dataset is part of the running time the status shows
    const startedAt = Date.now();
    const a = await analysisToRun(this.db, analysisId);
    // deleted meanwhile: its job row went with it, and the runner drops this run
    if (!a) throw new Error(`analysis ${analysisId} is gone`);
    // the feature types may have changed since the analysis was queued (an outcome retyped to identifier was
    // analysed all the same): the parameters must still fit the dataset, as at analyze
    const features = await this.datasets.featuresOf(String(a.dataset_id));
    const { datasetId: _d, ...body } = a.parameters;
    const [changed] = checkParameters(body, String(a.dataset_id), features).violations;
    if (changed) throw new JobFailure(changed.code, `${changed.message} (the feature types changed after the analysis was queued)`);
    const data = await this.columns.loadForEngine(String(a.dataset_id));
    const { datasetId: _d2, name: _n, ...engineParams } = a.parameters;
    let output: AnalysisOutput;
    try {
      output = await runAnalysisInWorker(data, engineParams, { seed: Number(a.seed), startedAt }, report, signal);
    } catch (e) {
      if (e instanceof AnalysisInputError) throw new JobFailure(Codes.DatasetNotAnalysable, e.message);
      throw e;
    }
    // a finished analysis states its performance: metrics that could not be estimated (NaN, written as null) fail it
    for (const [key, model] of Object.entries(output.models)) {
      const missing = Object.entries(model.performance).filter(([, v]) => !Number.isFinite(v));
      if (missing.length) {
        throw new JobFailure(
          Codes.DatasetNotAnalysable,
          `the ${key} model's ${missing.map(([m]) => m).join(', ')} could not be estimated from the held-out samples: ` +
            ('classification' in a.parameters.outcome
              ? 'check that each class has enough samples'
              : 'regression' in a.parameters.outcome
                ? 'check that the outcome varies among the samples (and is not tiny: rescale it)'
                : 'check that enough samples have an event, at different times') +
            (a.parameters.groupingFeature !== undefined ? ', and that the grouping feature has enough groups' : ''),
        );
      }
    }
    return output;
  }
}
