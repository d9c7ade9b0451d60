import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import * as os from 'node:os';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/config';
import { ApiError } from '../common/api-error';
import { Codes, ErrorCode } from '../common/error-codes';
import { Page } from '../common/pipes';
import { paginateSql } from '../common/paginate';
import { returning } from '../database/sql';
import { JobsService } from '../jobs/jobs.service';
import { FinalJobError, JobContext } from '../jobs/jobs.types';
import type { EngineDataset, FeatureType } from '../engine/types';
import { impossibleType, packColumn, toEngineColumn, unpackColumn } from './column-codec';
import { CreateDatasetDto, DatasetView, FeatureView, TaskView } from './dto/dataset.dto';
import { FilesService } from './files.service';
import { parseTableInWorker } from './parse-in-worker';
import { batchesOf, inLanes } from './write-batches';
import { ParsedTable, TableError } from './table-parser';

interface DatasetRow {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  sample_count: number;
  feature_count: number;
  size_in_bytes: string;
}

interface CreateJob {
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

/** A task failure the client sees: a code and a message saying what and where. */
export class TaskFailure extends FinalJobError {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
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

/** Tabular datasets: creation from an uploaded file (a job), typed columnar storage, reads, deletes. */
@Injectable()
export class DatasetsService implements OnModuleInit {
  private readonly logger = new Logger('Datasets');

  constructor(
    private readonly db: DataSource,
    private readonly files: FilesService,
    private readonly jobs: JobsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.register<CreateJob>('createDataset', {
      run: (ctx) => this.runCreate(ctx),
      // a TaskFailure already recorded its own code; otherwise say the task failed on the server
      onGiveUp: (job, reason) => this.failTask(job.taskId, Codes.UnreadableTable, reason, true),
    });
  }

  async nameTaken(projectId: string, name: string, manager: EntityManager = this.db.manager): Promise<boolean> {
    const rows = await manager.query('SELECT 1 FROM datasets WHERE project_id = $1 AND name = $2', [projectId, name]);
    return rows.length > 0;
  }

  async create(userId: string, fileId: string, projectId: string, dto: CreateDatasetDto): Promise<{ taskId: string }> {
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
      const [task] = await tx.query(
        `INSERT INTO tasks (kind, user_id, project_id) VALUES ('createDataset', $1, $2) RETURNING id`,
        [userId, projectId],
      );
      const job: CreateJob = {
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
      await this.jobs.enqueue('createDataset', job as unknown as Record<string, unknown>, { projectId, manager: tx });
      return { taskId: String(task.id) };
    });
  }

  async taskStatus(taskId: string): Promise<TaskView> {
    const rows = await this.db.query('SELECT id, state, dataset_id, error FROM tasks WHERE id = $1', [taskId]);
    if (!rows.length) throw new ApiError(Codes.FileOrTaskNotFound);
    const r = rows[0];
    const view: TaskView = { taskId: String(r.id), state: r.state };
    if (r.state === 'finished' && r.dataset_id !== null) view.datasetId = String(r.dataset_id);
    if (r.state === 'failed' && r.error) view.error = r.error;
    return view;
  }

  async failTask(taskId: string, code: ErrorCode, message: string, unlessFailed = false): Promise<void> {
    const guard = unlessFailed ? ` AND state <> 'failed'` : '';
    await this.db.query(`UPDATE tasks SET state = 'failed', error = $2, updated_at = now() WHERE id = $1${guard}`, [
      taskId,
      JSON.stringify({ code, message }),
    ]);
  }

  /** The createDataset job: parse the stored file, then write the dataset and its columns in one transaction. */
  private async runCreate(ctx: JobContext<CreateJob>): Promise<void> {
    const job = ctx.payload;
    const started = await returning(
      this.db,
      `UPDATE tasks SET state = 'running', updated_at = now() WHERE id = $1 AND state IN ('pending','running') RETURNING id`,
      [job.taskId],
    );
    if (!started.length) return; // task gone (project deleted) or already settled
    try {
      await this.createFromFile(job, ctx.signal);
    } catch (e) {
      if (e instanceof TaskFailure) {
        await this.failTask(job.taskId, e.code, e.message);
        throw e;
      }
      throw e;
    }
  }

  private async createFromFile(job: CreateJob, signal: AbortSignal): Promise<void> {
    const overrides = job.featureTypes;
    const textColumns = new Set(
      Object.entries(overrides)
        .filter(([, t]) => t === 'categorical' || t === 'identifier')
        .map(([n]) => n),
    );
    const started = Date.now();
    let table;
    try {
      const file = await this.files.open(job.filePk);
      const options = {
        separator: job.separator,
        hasFeatureHeaders: job.hasFeatureHeaders,
        hasSampleHeaders: job.hasSampleHeaders,
        hasSamplesInRows: job.hasSamplesInRows,
        textColumns,
        sizeInBytes: file.sizeInBytes,
      };
      // parsed on a worker thread while this one reads the file from PostgreSQL
      table = await parseTableInWorker(file.chunks, options, signal);
    } catch (e) {
      if (e instanceof TableError) throw new TaskFailure(Codes.UnreadableTable, e.message);
      throw e;
    }
    const parsed = Date.now();
    await this.storeTable(job, table, overrides);
    this.logger.log(`task ${job.taskId}: parsed in ${(parsed - started) / 1000} s, stored in ${(Date.now() - parsed) / 1000} s`);
  }

  /**
   * Types the parsed columns (inferred, then `overrides`), then writes the dataset, its columns and the
   * task's end in one transaction. Throws TaskFailure for impossible types or a name taken meanwhile.
   * Used by tabular uploads and image uploads alike.
   */
  async storeTable(
    job: { taskId: string; projectId: string; name: string; description: string | null },
    table: ParsedTable,
    overrides: Record<string, FeatureType>,
  ): Promise<void> {
    const names = new Set(table.columns.map((c) => c.name));
    const unknown = Object.keys(overrides).filter((n) => !names.has(n));
    if (unknown.length) {
      throw new TaskFailure(Codes.UnknownFeature, `featureTypes names unknown features: ${unknown.slice(0, 10).join(', ')}`);
    }
    const stored = table.columns.map((c, i) => {
      const inferred: FeatureType = i === table.sampleColumn ? 'identifier' : c.encoding === 'f64' ? 'numerical' : 'categorical';
      const type = overrides[c.name] ?? inferred;
      const why = impossibleType(c, type);
      if (why) throw new TaskFailure(Codes.ImpossibleFeatureType, why);
      return { ...c, type };
    });
    // Columns go in batches of up to 1,000 columns or 16 MiB: few round trips for wide (omics) tables, bounded
    // buffers for long ones. A batch is deflated (large columns on libuv's thread pool, one lane per core;
    // small ones right here) while the transaction writes the one before: at most two batches are held
    // packed. Each typed array is let go once packed.
    const batches = batchesOf(stored.map((c) => (c.values ?? c.codes)?.byteLength ?? 0));
    const lanes = Math.max(1, Math.min(4, os.availableParallelism()));
    const pack = (batch: number[]): Promise<Buffer[]> =>
      inLanes(batch, lanes, async (i) => {
        const c = stored[i];
        try {
          return await packColumn(c);
        } finally {
          c.values = undefined;
          c.codes = undefined;
        }
      });
    table.columns.length = 0;

    try {
      await this.db.transaction(async (tx) => {
        const alive = await tx.query(`SELECT id FROM tasks WHERE id = $1 FOR UPDATE`, [job.taskId]);
        if (!alive.length) return;
        const [ds] = await tx.query(
          `INSERT INTO datasets (project_id, name, description, sample_count, feature_count, size_in_bytes)
           VALUES ($1, $2, $3, $4, $5, 0) RETURNING id`,
          [job.projectId, job.name, job.description, table.sampleCount, stored.length],
        );
        let size = 0;
        let next: Promise<Buffer[]> | undefined = batches.length ? pack(batches[0]) : undefined;
        for (let b = 0; next; b++) {
          const packed: Buffer[] = await next;
          next = b + 1 < batches.length ? pack(batches[b + 1]) : undefined;
          next?.catch(() => undefined); // raised where it is awaited
          const params: unknown[] = [];
          const tuples = batches[b].map((i, k) => {
            const c = stored[i];
            const data = packed[k];
            const levels = c.levels ? JSON.stringify(c.levels) : null;
            size += data.length + (levels ? Buffer.byteLength(levels) : 0);
            const p = params.length;
            params.push(ds.id, i, c.name, c.type, c.encoding, data, levels, c.missingCount, c.distinctCount);
            return `(${Array.from({ length: 9 }, (_, q) => `$${p + q + 1}`).join(', ')})`;
          });
          await tx.query(
            `INSERT INTO dataset_columns (dataset_id, idx, name, type, encoding, data, levels, missing_count, distinct_count)
             VALUES ${tuples.join(', ')}`,
            params,
          );
        }
        await tx.query('UPDATE datasets SET size_in_bytes = $2 WHERE id = $1', [ds.id, size]);
        await tx.query(`UPDATE tasks SET state = 'finished', dataset_id = $2, error = NULL, updated_at = now() WHERE id = $1`, [
          job.taskId,
          ds.id,
        ]);
      });
    } catch (e) {
      if ((e as { code?: string }).code === '23505') {
        throw new TaskFailure(Codes.DatasetNameTaken, `the project already has a dataset named "${job.name}"`);
      }
      throw e;
    }
    this.logger.log(`dataset "${job.name}" created: ${table.sampleCount} samples x ${stored.length} features`);
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

  /** Deletes the dataset; its columns, analyses and predictions go with it (cascade, one statement). */
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
      const cols = await tx.query(
        `SELECT c.idx, c.name, c.encoding, c.levels, c.distinct_count, d.sample_count
           FROM dataset_columns c JOIN datasets d ON d.id = c.dataset_id WHERE c.dataset_id = $1 FOR UPDATE OF c`,
        [datasetId],
      );
      if (!cols.length) throw new ApiError(Codes.DatasetNotFound);
      type Column = { idx: number; name: string; encoding: 'f64' | 'dict'; levels: string[] | null; distinct_count: number; sample_count: number };
      const byName = new Map<string, Column>(cols.map((c: Column) => [c.name, c]));
      // only a numbers column becoming a time to event needs its values (none negative)
      const valuesOf = async (c: Column): Promise<Float64Array> => {
        const [{ data }] = await tx.query('SELECT data FROM dataset_columns WHERE dataset_id = $1 AND idx = $2', [datasetId, c.idx]);
        return (await unpackColumn('f64', data, c.sample_count)) as Float64Array;
      };
      const unknown = Object.keys(featureTypes).filter((n) => !byName.has(n));
      if (unknown.length) throw new ApiError(Codes.UnknownFeature, `unknown features: ${unknown.slice(0, 10).join(', ')}`);
      for (const [name, type] of Object.entries(featureTypes)) {
        const c = byName.get(name)!;
        const values = c.encoding === 'f64' && type === 'timeToEvent' ? await valuesOf(c) : undefined;
        const why = impossibleType(
          { name, encoding: c.encoding, values, levels: c.levels ?? undefined, distinctCount: c.distinct_count },
          type,
        );
        if (why) throw new ApiError(Codes.ImpossibleFeatureType, why);
        await tx.query('UPDATE dataset_columns SET type = $3 WHERE dataset_id = $1 AND idx = $2', [datasetId, c.idx, type]);
      }
    });
    return { datasetId, features: await this.featuresOf(datasetId) };
  }

  /**
   * The dataset as the engine reads it: typed columns in file order, converted to their types. Columns are
   * read in batches of about 16 MiB, each inflated while the next is fetched, from one snapshot (a delete
   * meanwhile cannot leave it half read), so the text form of the whole table is never held at once.
   */
  /** The dataset as the engine reads it; with `only`, just those columns (by name). */
  async loadForEngine(datasetId: string, only?: ReadonlySet<string>): Promise<EngineDataset> {
    return this.db.transaction('REPEATABLE READ', async (tx) => {
      const meta = await tx.query('SELECT sample_count FROM datasets WHERE id = $1', [datasetId]);
      if (!meta.length) throw new ApiError(Codes.DatasetNotFound);
      const sampleCount: number = meta[0].sample_count;
      type Meta = { idx: number; name: string; type: FeatureType; encoding: 'f64' | 'dict'; levels: string[] | null; bytes: number };
      const metas: Meta[] = (
        await tx.query(
          `SELECT idx, name, type, encoding, levels, octet_length(data) AS bytes FROM dataset_columns WHERE dataset_id = $1 ORDER BY idx`,
          [datasetId],
        )
      ).filter((m: Meta) => !only || only.has(m.name));
      const batches = batchesOf(metas.map((m) => m.bytes));
      const fetch = (batch: number[]): Promise<{ data: Buffer }[]> =>
        tx.query('SELECT data FROM dataset_columns WHERE dataset_id = $1 AND idx = ANY($2::int[]) ORDER BY idx', [
          datasetId,
          batch.map((i) => metas[i].idx),
        ]);
      const columns: EngineDataset['columns'] = [];
      let next = batches.length ? fetch(batches[0]) : undefined;
      for (let b = 0; next; b++) {
        const rows = await next;
        next = b + 1 < batches.length ? fetch(batches[b + 1]) : undefined;
        next?.catch(() => undefined); // raised where it is awaited
        const unpacked = await Promise.all(
          batches[b].map(async (i, k) => {
            const m = metas[i];
            const array = await unpackColumn(m.encoding, rows[k].data, sampleCount);
            return toEngineColumn({
              name: m.name,
              type: m.type,
              encoding: m.encoding,
              values: m.encoding === 'f64' ? (array as Float64Array) : undefined,
              codes: m.encoding === 'dict' ? (array as Int32Array) : undefined,
              levels: m.levels ?? undefined,
            });
          }),
        );
        columns.push(...unpacked);
      }
      return { sampleCount, columns };
    });
  }
}
