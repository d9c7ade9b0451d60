import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../common/api-error';
import { Codes, ErrorCode } from '../common/error-codes';
import { Page } from '../common/pipes';
import { paginateSql } from '../common/paginate';
import { keepRow, prepared, returning } from '../database/sql';
import { CreateDatasetPayload } from '../jobs/job-kinds';
import { renderStatus, statusColumns, StatusRow } from '../jobs/job-state';
import { JobsService } from '../jobs/jobs.service';
import type { FeatureType } from '../engine/types';
import { impossibleType, unpackColumn } from './column-codec';
import { CreateDatasetDto, DatasetView, FeatureView, TaskView } from './dto/dataset.dto';
import { FilesService } from './files.service';

interface DatasetRow {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  sample_count: number;
  feature_count: number;
  size_in_bytes: string;
}

const DATASET_COLUMNS = 'id, project_id, name, description, sample_count, feature_count, size_in_bytes';

export function toDatasetView(r: DatasetRow): DatasetView {
  const v: DatasetView = {
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

/** Columns whose values changeFeatureTypes reads at once (to check a time to event): bounds its memory. */
const VALUE_BATCH = 64;

/** Refuses a type the column cannot have (badRequest-110-3-2); `values` only for a numbers column becoming a time to event. */
function assertPossible(
  c: { name: string; encoding: 'f64' | 'dict'; levels: string[] | null; distinct_count: number },
  type: FeatureType,
  values: Float64Array | undefined,
): void {
  const why = impossibleType(
    { name: c.name, encoding: c.encoding, values, levels: c.levels ?? undefined, distinctCount: c.distinct_count },
    type,
  );
  if (why) throw new ApiError(Codes.ImpossibleFeatureType, why);
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
  ) {}

  async nameTaken(projectId: string, name: string, manager: EntityManager = this.db.manager): Promise<boolean> {
    const rows = await manager.query('SELECT 1 FROM datasets WHERE project_id = $1 AND name = $2', [projectId, name]);
    return rows.length > 0;
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
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`files:${userId}`]);
      const still = await tx.query(`SELECT 1 FROM files WHERE id = $1 AND state = 'stored'`, [file.id]);
      if (!still.length) throw new ApiError(Codes.FileOrTaskNotFound, `no uploaded file "${fileId}"`);
      // the dataset is a copy of the file: it counts against the quota as the file does
      await this.files.assertRoom(tx, userId, file.sizeInBytes, 'a dataset of this file');
      const [task] = await tx.query(`INSERT INTO tasks (kind, user_id, project_id) VALUES ('createDataset', $1, $2) RETURNING id`, [
        userId,
        projectId,
      ]);
      const job: CreateDatasetPayload = {
        taskId: String(task.id),
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
      await tx.query('UPDATE tasks SET payload = $2 WHERE id = $1', [task.id, JSON.stringify(job)]);
      await this.jobs.enqueue('createDataset', job, { projectId, manager: tx });
      return { taskId: String(task.id) };
    });
  }

  /** A task's status (dataset creation or image upload; `kind` narrows it to one). */
  async taskStatus(taskId: string, kind?: string, notFound: ErrorCode = Codes.FileOrTaskNotFound): Promise<TaskView> {
    const rows = await prepared<StatusRow & { id: string; kind: string }>(
      this.db,
      `SELECT id, kind, ${statusColumns('task')} FROM tasks WHERE id = $1`,
      [taskId],
    );
    if (!rows.length || (kind !== undefined && rows[0].kind !== kind)) throw new ApiError(notFound);
    return { taskId: String(rows[0].id), ...renderStatus('task', rows[0]) };
  }

  async get(datasetId: string): Promise<DatasetView> {
    const rows: DatasetRow[] = await this.db.query(`SELECT ${DATASET_COLUMNS} FROM datasets WHERE id = $1`, [datasetId]);
    if (!rows.length) throw new ApiError(Codes.DatasetNotFound);
    return toDatasetView(rows[0]);
  }

  async list(projectId: string, offset: number, count: number): Promise<Page<DatasetView> & { projectId: string }> {
    const sql = { table: 'datasets', columns: DATASET_COLUMNS, where: 'project_id = $1', params: [projectId] };
    return { projectId, ...(await paginateSql(this.db, sql, offset, count, toDatasetView)) };
  }

  /** Deletes the dataset; its columns, analyses and predictions (with their jobs) go with it (cascade, one statement). */
  async delete(datasetId: string): Promise<DatasetView> {
    const rows = await returning<DatasetRow>(this.db, `DELETE FROM datasets WHERE id = $1 RETURNING ${DATASET_COLUMNS}`, [datasetId]);
    if (!rows.length) throw new ApiError(Codes.DatasetNotFound);
    return toDatasetView(rows[0]);
  }

  async featuresOf(datasetId: string, manager: EntityManager = this.db.manager): Promise<FeatureView[]> {
    const rows = await manager.query(
      `SELECT name, type, missing_count, distinct_count FROM dataset_columns WHERE dataset_id = $1 ORDER BY idx`,
      [datasetId],
    );
    return rows.map((r: { name: string; type: FeatureType; missing_count: number; distinct_count: number }) => ({
      name: r.name,
      type: r.type,
      missingCount: r.missing_count,
      distinctCount: r.distinct_count,
    }));
  }

  async features(datasetId: string): Promise<{ datasetId: string; features: FeatureView[] }> {
    await this.get(datasetId);
    return { datasetId, features: await this.featuresOf(datasetId) };
  }

  async changeFeatureTypes(
    datasetId: string,
    featureTypes: Record<string, FeatureType>,
  ): Promise<{ datasetId: string; features: FeatureView[] }> {
    await this.db.transaction(async (tx) => {
      // changes of one dataset take turns on its row: each locked the column rows in its own order, and two
      // changes of thousands of columns at once deadlocked (HTTP 500)
      const [ds] = await tx.query('SELECT 1 FROM datasets WHERE id = $1 FOR NO KEY UPDATE', [datasetId]);
      if (!ds) throw new ApiError(Codes.DatasetNotFound);
      const cols = await tx.query(
        `SELECT c.idx, c.name, c.encoding, c.levels, c.distinct_count, d.sample_count
           FROM dataset_columns c JOIN datasets d ON d.id = c.dataset_id WHERE c.dataset_id = $1 ORDER BY c.idx`,
        [datasetId],
      );
      if (!cols.length) throw new ApiError(Codes.DatasetNotFound);
      type Column = {
        idx: number;
        name: string;
        encoding: 'f64' | 'dict';
        levels: string[] | null;
        distinct_count: number;
        sample_count: number;
      };
      const byName = new Map<string, Column>(cols.map((c: Column) => [c.name, c]));
      const unknown = Object.keys(featureTypes).filter((n) => !byName.has(n));
      if (unknown.length) throw new ApiError(Codes.UnknownFeature, `unknown features: ${unknown.slice(0, 10).join(', ')}`);
      const changes = Object.entries(featureTypes).map(([name, type]) => ({ c: byName.get(name)!, type }));
      // only a numbers column becoming a time to event needs its values (none negative): VALUE_BATCH at a time
      const needValues = changes.filter(({ c, type }) => c.encoding === 'f64' && type === 'timeToEvent');
      for (const { c, type } of changes) if (!(c.encoding === 'f64' && type === 'timeToEvent')) assertPossible(c, type, undefined);
      for (let i = 0; i < needValues.length; i += VALUE_BATCH) {
        const batch = needValues.slice(i, i + VALUE_BATCH);
        const rows: { idx: number; data: Buffer }[] = await tx.query(
          'SELECT idx, data FROM dataset_columns WHERE dataset_id = $1 AND idx = ANY($2::int[])',
          [datasetId, batch.map(({ c }) => c.idx)],
        );
        const values = new Map<number, Buffer>(rows.map((r) => [r.idx, r.data]));
        for (const { c, type } of batch) {
          assertPossible(c, type, (await unpackColumn('f64', values.get(c.idx)!, c.sample_count)) as Float64Array);
        }
      }
      // one statement for every change: a body of 40,000 names held a pooled connection for 21 s, one UPDATE each
      await tx.query(
        `UPDATE dataset_columns c SET type = u.type FROM unnest($2::int[], $3::text[]) AS u(idx, type)
          WHERE c.dataset_id = $1 AND c.idx = u.idx`,
        [datasetId, changes.map(({ c }) => c.idx), changes.map(({ type }) => type)],
      );
    });
    return { datasetId, features: await this.featuresOf(datasetId) };
  }
}
