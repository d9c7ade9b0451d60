import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { Codes } from '../common/error-codes';
import type { FeatureType } from '../engine/types';
import type { JobKind } from '../jobs/job-kinds';
import { JobsService } from '../jobs/jobs.service';
import { JobFailure } from '../jobs/jobs.types';
import { textColumnsOf } from './column-codec';
import { ColumnStore, TypedTable } from './column-store';
import { FilesService } from './files.service';
import { parseTableInWorker } from './parse-in-worker';
import { TableError } from './table-parser';
import { TASK_SUBJECT } from './task.subject';

/** The createDataset job's payload: the stored file and how to read it, and where the dataset goes. */
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

export const CREATE_DATASET_JOB: JobKind<CreateDatasetPayload> = {
  name: 'createDataset',
  subject: TASK_SUBJECT,
  subjectId: (p) => p.taskId,
  // a build that gives up on a fault of ours has its own code; an unreadable file is a JobFailure (badRequest-115-3-1)
  failureCode: Codes.DatasetBuildFailed,
  waitsAs: 'pending',
};

/** The createDataset job: parse the stored file and pack its columns on a worker thread, type them; store them as a dataset. */
@Injectable()
export class CreateDatasetJob implements OnModuleInit {
  private readonly logger = new Logger('Datasets');

  constructor(
    private readonly jobs: JobsService,
    private readonly files: FilesService,
    private readonly columns: ColumnStore,
  ) {}

  onModuleInit(): void {
    this.jobs.register(CREATE_DATASET_JOB, {
      execute: (payload, signal) => this.parse(payload, signal),
      store: async (tx, payload, table) => ({ datasetId: await this.columns.write(tx, payload, table) }),
    });
  }

  private async parse(job: CreateDatasetPayload, signal: AbortSignal): Promise<TypedTable> {
    const overrides = job.featureTypes;
    const textColumns = textColumnsOf(overrides);
    const started = Date.now();
    try {
      const file = await this.files.open(job.filePk);
      const options = {
        separator: job.separator,
        hasFeatureHeaders: job.hasFeatureHeaders,
        hasSampleHeaders: job.hasSampleHeaders,
        hasSamplesInRows: job.hasSamplesInRows,
        textColumns,
        sizeInBytes: file.sizeInBytes,
        pack: true,
      };
      // parsed, and packed as stored, on a worker thread of an engine process while this one reads the file from PostgreSQL
      const table = await parseTableInWorker(file.chunks, options, signal, file.release);
      this.logger.log(`task ${job.taskId}: parsed in ${(Date.now() - started) / 1000} s`);
      return this.columns.typeColumns(table, overrides);
    } catch (e) {
      if (e instanceof TableError) throw new JobFailure(Codes.UnreadableTable, e.message);
      throw e;
    }
  }
}
