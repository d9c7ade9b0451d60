import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../common/api-error';
import { Codes, ErrorCode } from '../common/error-codes';
import { Page } from '../common/pipes';
import { paginateSql } from '../database/paginate';
import { keepRow } from '../database/sql';
import { renderStatus } from '../jobs/job-state';
import { JobsService } from '../jobs/jobs.service';
import type { FeatureType } from '../engine/types';
import { impossibleType } from './column-codec';
import { ColumnStore } from './column-store';
import { CREATE_DATASET_JOB, CreateDatasetPayload } from './create-dataset.job';
import * as queries from './datasets.queries';
import { ColumnShape, DatasetRow } from './datasets.queries';
import { CreateDatasetDto, Dataset, Feature, TaskStatus } from './dto/dataset.dto';
import { FilesService } from './files.service';
import { FILE_TASK_KIND, TASK_SUBJECT } from './task.subject';
import { checkTypesInWorker, typeChecks } from './type-check';

export function toDatasetView(r: DatasetRow): Dataset {
  const v: Dataset = {
    datasetId: String(r.id),
    projectId: String(r.project_id),
    name: r.name,
    sampleCount: r.sample_count,
    featureCount: r.feature_count,
    sizeInBytes: Number(r.size_in_bytes),
  };
  if (r.description !== null) v.description = r.description;
  return v;
}

/**
 * Tabular datasets as the API shows them: creation from an uploaded file (queues the createDataset job),
 * task status, reads, feature types, deletes.
 */
@Injectable()
export class DatasetsService {
  constructor(
    private readonly db: DataSource,
    private readonly files: FilesService,
    private readonly jobs: JobsService,
    private readonly columns: ColumnStore,
  ) {}

  async nameTaken(projectId: string, name: string, manager: EntityManager = this.db.manager): Promise<boolean> {
    return queries.datasetNamed(manager, projectId, name);
  }

  async create(userId: string, fileId: string, projectId: string, dto: CreateDatasetDto): Promise<{ taskId: string }> {
    return this.jobs.enqueueTurn(userId, () => this.queueBuild(userId, fileId, projectId, dto));
  }

  private async queueBuild(userId: string, fileId: string, projectId: string, dto: CreateDatasetDto): Promise<{ taskId: string }> {
    const file = await this.files.find(userId, fileId);
    if (file.sizeInBytes !== dto.fileSizeInBytes) {
      throw new ApiError(
        Codes.FileSizeMismatch,
        `fileSizeInBytes is ${dto.fileSizeInBytes} but the uploaded file has ${file.sizeInBytes} bytes`,
      );
    }
    if (await this.nameTaken(projectId, dto.name)) {
      throw new ApiError(Codes.DatasetNameTaken, `the project already has a dataset named "${dto.name}"`);
    }
    return this.db.transaction(async (tx) => {
      await keepRow(tx, 'projects', projectId, new ApiError(Codes.ProjectNotFound));
      // under the user's files lock, as a delete or replacement of the file: either it sees this task (and
      // refuses, conflict-115-5-1), or this sees the file gone
      await queries.lockUserFiles(tx, userId);
      if (!(await queries.fileStillStored(tx, file.id))) throw new ApiError(Codes.FileOrTaskNotFound, `no uploaded file "${fileId}"`);
      // the dataset is a copy of the file: it counts against the quota as the file does
      await this.files.assertRoom(tx, userId, file.sizeInBytes, 'a dataset of this file');
      const taskId = await queries.insertTask(tx, FILE_TASK_KIND, userId, projectId);
      const job: CreateDatasetPayload = {
        taskId,
        filePk: file.id,
        projectId,
        name: dto.name,
        description: dto.description ?? null,
        separator: dto.separator ?? ',',
        hasFeatureHeaders: dto.hasFeatureHeaders ?? true,
        hasSampleHeaders: dto.hasSampleHeaders ?? false,
        hasSamplesInRows: dto.hasSamplesInRows ?? true,
        featureTypes: dto.featureTypes ?? {},
      };
      await queries.setTaskPayload(tx, taskId, job);
      await this.jobs.enqueue(CREATE_DATASET_JOB, job, { projectId, manager: tx });
      return { taskId };
    });
  }

  /** A task's status (dataset creation or image upload; `kind` narrows it to one). */
  async taskStatus(taskId: string, kind?: string, notFound: ErrorCode = Codes.FileOrTaskNotFound): Promise<TaskStatus> {
    const row = await queries.taskStatusRow(this.db, this.jobs.states.statusColumns(TASK_SUBJECT), taskId);
    if (!row || (kind !== undefined && row.kind !== kind)) throw new ApiError(notFound);
    return { taskId: String(row.id), ...renderStatus(TASK_SUBJECT, row) };
  }

  async get(datasetId: string): Promise<Dataset> {
    const row = await queries.datasetById(this.db, datasetId);
    if (!row) throw new ApiError(Codes.DatasetNotFound);
    return toDatasetView(row);
  }

  async list(projectId: string, offset: number, count: number): Promise<Page<Dataset> & { projectId: string }> {
    return { projectId, ...(await paginateSql(this.db, queries.datasetsOfProject(projectId), offset, count, toDatasetView)) };
  }

  /** Deletes the dataset; its columns, analyses and predictions (with their jobs) go with it (cascade, one statement). */
  async delete(datasetId: string): Promise<Dataset> {
    const row = await queries.deleteDataset(this.db, datasetId);
    if (!row) throw new ApiError(Codes.DatasetNotFound);
    return toDatasetView(row);
  }

  /** The samples of the dataset (0 when it is gone). */
  async sampleCountOf(datasetId: string, manager: EntityManager = this.db.manager): Promise<number> {
    return (await queries.sampleCountOf(manager, datasetId)) ?? 0;
  }

  async featuresOf(datasetId: string, manager: EntityManager = this.db.manager): Promise<Feature[]> {
    const rows = await queries.featuresOf(manager, datasetId);
    return rows.map((r) => ({
      name: r.name,
      type: r.type,
      missingCount: r.missing_count,
      distinctCount: r.distinct_count,
    }));
  }

  async features(datasetId: string): Promise<{ datasetId: string; features: Feature[] }> {
    await this.get(datasetId);
    return { datasetId, features: await this.featuresOf(datasetId) };
  }

  async changeFeatureTypes(
    datasetId: string,
    featureTypes: Record<string, FeatureType>,
  ): Promise<{ datasetId: string; features: Feature[] }> {
    if ((await queries.sampleCountOf(this.db, datasetId)) === undefined) throw new ApiError(Codes.DatasetNotFound);
    // only the named columns, and never their levels or values here: a dataset with a categorical column of
    // millions of labels stalled this event loop on every change, whichever column it named
    const cols = await queries.columnShapes(this.db, datasetId, Object.keys(featureTypes));
    const byName = new Map<string, ColumnShape>(cols.map((c) => [c.name, c]));
    const unknown = Object.keys(featureTypes).filter((n) => !byName.has(n));
    if (unknown.length) throw new ApiError(Codes.UnknownFeature, `unknown features: ${unknown.slice(0, 10).join(', ')}`);
    const changes = Object.entries(featureTypes).map(([name, type]) => ({ c: byName.get(name)!, type }));
    // text becoming numbers, and any column becoming a time to event, need the labels or the values: checked on an
    // engine process they are streamed to (type-check.ts); the columns never change, so before the transaction
    const needData = ({ c, type }: { c: ColumnShape; type: FeatureType }) =>
      type === 'timeToEvent' || (type === 'numerical' && c.encoding === 'dict');
    for (const change of changes) {
      if (needData(change)) continue;
      const why = impossibleType({ name: change.c.name, encoding: change.c.encoding, distinctCount: change.c.distinct_count }, change.type);
      if (why) throw new ApiError(Codes.ImpossibleFeatureType, why);
    }
    const checked = changes.filter(needData);
    if (checked.length) {
      const types = Object.fromEntries(checked.map(({ c, type }) => [c.name, type]));
      const why = await typeChecks.run(() =>
        this.columns.readPacked(datasetId, new Set(Object.keys(types)), (sampleCount, columns, pieces) =>
          checkTypesInWorker(sampleCount, types, columns, pieces),
        ),
      );
      if (why) throw new ApiError(Codes.ImpossibleFeatureType, why);
    }
    await this.db.transaction(async (tx) => {
      // changes of one dataset take turns on its row: each locked the column rows in its own order, and two
      // changes of thousands of columns at once deadlocked (HTTP 500)
      if (!(await queries.lockDataset(tx, datasetId))) throw new ApiError(Codes.DatasetNotFound);
      // one statement for every change: a body of 40,000 names held a pooled connection for 21 s, one UPDATE each
      await queries.setColumnTypes(
        tx,
        datasetId,
        changes.map(({ c }) => c.idx),
        changes.map(({ type }) => type),
      );
    });
    return { datasetId, features: await this.featuresOf(datasetId) };
  }
}
