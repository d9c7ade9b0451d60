import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Codes } from '../common/error-codes';
import { urlOf } from '../database/sql';
import type { FeatureType } from '../engine/types';
import type { JobKind } from '../jobs/job-kinds';
import { JobsService } from '../jobs/jobs.service';
import { JobFailure } from '../jobs/jobs.types';
import { textColumnsOf } from './column-codec';
import { ColumnStore, TypedTable } from './column-store';
import * as queries from './datasets.queries';
import { FilesService } from './files.service';
import { parseStoredTable } from './parse-in-worker';
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

/**
 * A parsed file, typed, whose columns' data waits in the engine process that parsed it until written, but for
 * its long number columns, written already in pieces under the key `build` (column-pieces.ts).
 */
interface BuiltTable {
  table: TypedTable;
  build: string;
  release: () => void;
}

/**
 * The createDataset job: an engine process reads the stored file from the database, parses it and packs its
 * columns, writing the long number columns in pieces while it parses; the columns are typed here and
 * written as a dataset straight from that process's pipe, in the transaction that attaches the pieces.
 */
@Injectable()
export class CreateDatasetJob implements OnModuleInit {
  private readonly logger = new Logger('Datasets');

  constructor(
    private readonly db: DataSource,
    private readonly jobs: JobsService,
    private readonly files: FilesService,
    private readonly columns: ColumnStore,
  ) {}

  onModuleInit(): void {
    this.jobs.register(CREATE_DATASET_JOB, {
      execute: (payload, signal) => this.parse(payload, signal),
      store: async (tx, payload, built) => {
        const datasetId = await this.columns.write(tx, payload, built.table);
        await queries.attachPieces(tx, built.build, payload.taskId, datasetId);
        return { datasetId };
      },
      release: (built) => built.release(),
      onFailed: (tx, payload) => queries.dropLoosePieces(tx, payload.taskId),
    });
  }

  private async parse(job: CreateDatasetPayload, signal: AbortSignal): Promise<BuiltTable> {
    const overrides = job.featureTypes;
    const started = Date.now();
    try {
      const sizeInBytes = await this.files.storedSize(job.filePk);
      const source = { databaseUrl: urlOf(this.db), filePk: job.filePk, sizeInBytes };
      const options = {
        separator: job.separator,
        hasFeatureHeaders: job.hasFeatureHeaders,
        hasSampleHeaders: job.hasSampleHeaders,
        hasSamplesInRows: job.hasSamplesInRows,
        textColumns: textColumnsOf(overrides),
        sizeInBytes,
      };
      // an earlier attempt's pieces are of no use: its columns are parsed again
      await queries.dropLoosePieces(this.db, job.taskId);
      const build = randomUUID();
      // read, parsed and packed by an engine process (at its lower priority): this process never holds the bytes
      const parsed = await parseStoredTable(source, options, signal, { build, taskId: job.taskId });
      this.logger.log(`task ${job.taskId}: parsed in ${(Date.now() - started) / 1000} s`);
      try {
        return { table: this.columns.typeColumns(parsed.table, overrides), build, release: parsed.release };
      } catch (e) {
        parsed.release();
        throw e;
      }
    } catch (e) {
      if (e instanceof TableError) throw new JobFailure(Codes.UnreadableTable, e.message);
      throw e;
    }
  }
}
