import { Injectable, Logger } from '@nestjs/common';
import * as os from 'node:os';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { copyBytes } from '../database/copy-bytes';
import { poolOf } from '../database/sql';
import { JobFailure } from '../jobs/jobs.types';
import type { EngineDataset, FeatureType } from '../engine/types';
import { ParsedColumn } from './column-builder';
import { columnType, impossibleType, packColumn, toEngineColumn, unpackColumn } from './column-codec';
import { ColumnRow, columnRows } from './column-copy';
import * as queries from './datasets.queries';
import { ParsedTable } from './table-parser';
import { batchesOf } from './write-batches';

/** A parsed table whose columns have their feature types: ready to be written. */
export interface TypedTable {
  sampleCount: number;
  columns: (ParsedColumn & { type: FeatureType })[];
}

/** A stored column's description, without its values or levels. */
export interface PackedColumn {
  name: string;
  type: FeatureType;
  encoding: 'f64' | 'dict';
  /** size of its deflated data */
  bytes: number;
}

/**
 * A piece of column `column` (an index into readPacked's columns), in order: of its levels (a 'dict' column's
 * level labels as UTF-8 JSON text, all of them before its data), or of its deflated data.
 */
export interface PackedPiece {
  column: number;
  part: 'levels' | 'data';
  piece: Buffer;
}

/** readPacked reads the stored data in pieces of this size. */
const PACKED_PIECE = 1048576;

/** Where a new dataset goes. */
export interface DatasetTarget {
  projectId: string;
  name: string;
  description: string | null;
}

/**
 * The typed, compressed column storage of datasets: typing parsed columns, writing a dataset with its
 * columns, and reading them back as the engine wants them. Tabular and image builds both write here.
 */
@Injectable()
export class ColumnStore {
  private readonly logger = new Logger('Datasets');

  constructor(private readonly db: DataSource) {}

  /**
   * Types the parsed columns: inferred (numbers are numerical, text categorical, the sample column an
   * identifier), then `overrides`. Throws a JobFailure for an unknown name or a type a column cannot have.
   * Takes the columns out of `table`.
   */
  typeColumns(table: ParsedTable, overrides: Record<string, FeatureType>): TypedTable {
    const names = new Set(table.columns.map((c) => c.name));
    const unknown = Object.keys(overrides).filter((n) => !names.has(n));
    if (unknown.length) {
      throw new JobFailure(Codes.UnknownFeature, `featureTypes names unknown features: ${unknown.slice(0, 10).join(', ')}`);
    }
    const columns = table.columns.map((c, i) => {
      const type = columnType(table, i, overrides);
      const why = impossibleType(c, type);
      if (why) throw new JobFailure(Codes.ImpossibleFeatureType, why);
      return { ...c, type };
    });
    table.columns.length = 0; // the typed copies hold the arrays now: each is let go when written
    return { sampleCount: table.sampleCount, columns };
  }

  /**
   * Writes the dataset and its columns inside `tx` and returns its id. Throws a JobFailure when the name
   * was taken meanwhile. The columns go in one binary COPY: those packed where they were parsed (a tabular
   * build) straight from the engine process's pipe, the others (an image build) packed here, each on libuv's
   * pool while the ones before are written, their typed arrays let go as they are packed.
   */
  async write(tx: EntityManager, target: DatasetTarget, table: TypedTable): Promise<string> {
    const stored = table.columns;
    let datasetId: string;
    try {
      datasetId = await queries.insertDataset(tx, { ...target, sampleCount: table.sampleCount, featureCount: stored.length });
    } catch (e) {
      if ((e as { code?: string }).code === '23505') {
        throw new JobFailure(Codes.DatasetNameTaken, `the project already has a dataset named "${target.name}"`);
      }
      throw e;
    }
    let size = 0;
    const lanes = Math.max(1, Math.min(4, os.availableParallelism()));
    await queries.copyColumns(
      tx,
      columnRows(datasetId, packedAhead(stored, lanes), (bytes) => (size += bytes)),
    );
    await queries.setDatasetSize(tx, datasetId, size);
    this.logger.log(`dataset ${datasetId} "${target.name}" written: ${table.sampleCount} samples x ${stored.length} features`);
    return datasetId;
  }

  /**
   * The named columns as stored (deflated), for a reader that inflates them elsewhere (an engine process):
   * calls `consume` with their descriptions and an iterator over their bytes, column after column, in
   * pieces of at most PACKED_PIECE bytes read one at a time (substrings of the out-of-line value), all from
   * one snapshot. This process holds one piece at a time whatever the dataset's size.
   */
  async readPacked<T>(
    datasetId: string,
    only: ReadonlySet<string>,
    consume: (sampleCount: number, columns: PackedColumn[], pieces: AsyncIterable<PackedPiece>) => Promise<T>,
  ): Promise<T> {
    if (!/^\d+$/.test(datasetId)) throw new ApiError(Codes.DatasetNotFound);
    const pool = poolOf(this.db);
    return this.db.transaction('REPEATABLE READ', async (tx) => {
      const sampleCount = await queries.sampleCountOf(tx, datasetId);
      if (sampleCount === undefined) throw new ApiError(Codes.DatasetNotFound);
      // the levels stay in the database here: a categorical column of millions of distinct labels parsed on
      // this event loop stalled the API; they are streamed as raw bytes to the consumer, as the data is
      const stored = await queries.storedColumnsNamed(tx, datasetId, [...only]);
      const columns = stored.map(({ name, type, encoding, bytes }): PackedColumn => ({ name, type, encoding, bytes }));
      async function* pieces(): AsyncGenerator<PackedPiece> {
        for (let k = 0; k < stored.length; k++) {
          if (stored[k].encoding === 'dict') {
            // a binary COPY on a connection of its own (raw bytes, never a string here); levels never change
            const levels = queries.levelsCopy(datasetId, stored[k].idx);
            for await (const piece of copyBytes(pool, levels, PACKED_PIECE)) yield { column: k, part: 'levels', piece };
          }
          for (let p = 0; p < stored[k].pieces; p++) {
            yield { column: k, part: 'data', piece: await queries.columnPiece(tx, datasetId, stored[k].idx, p) };
          }
          for (let from = 0; from < stored[k].dataBytes; from += PACKED_PIECE) {
            const piece = await queries.dataPiece(tx, datasetId, stored[k].idx, from, PACKED_PIECE);
            yield { column: k, part: 'data', piece };
          }
        }
      }
      return consume(sampleCount, columns, pieces());
    });
  }

  /**
   * The dataset as the engine reads it: typed columns in file order, converted to their types. Columns are
   * read in batches of about 16 MiB, each inflated while the next is fetched, from one snapshot (a delete
   * meanwhile cannot leave it half read), so the text form of the whole table is never held at once.
   * With `only`, just those columns (by name).
   */
  async loadForEngine(datasetId: string, only?: ReadonlySet<string>): Promise<EngineDataset> {
    return this.db.transaction('REPEATABLE READ', async (tx) => {
      const sampleCount = await queries.sampleCountOf(tx, datasetId);
      if (sampleCount === undefined) throw new ApiError(Codes.DatasetNotFound);
      const metas = (await queries.storedColumnsWithLevels(tx, datasetId)).filter((m) => !only || only.has(m.name));
      const batches = batchesOf(metas.map((m) => m.bytes));
      const fetch = (batch: number[]) =>
        queries.columnsData(
          tx,
          datasetId,
          batch.map((i) => metas[i].idx),
        );
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

/**
 * The columns as COPY rows, in order: a column packed already as it is, another packed here (packColumn, on
 * libuv's pool) up to `lanes` columns ahead of the one taken; each typed array is let go once packed.
 */
async function* packedAhead(columns: TypedTable['columns'], lanes: number): AsyncGenerator<ColumnRow> {
  const pack = async (c: TypedTable['columns'][number]): Promise<ColumnRow> => {
    try {
      const { data, raw } = c.packed ? { data: c.packed, raw: c.raw } : await packColumn(c);
      const { name, type, encoding, levels, missingCount, distinctCount, pieces } = c;
      return { name, type, encoding, data, raw, levels, missingCount, distinctCount, pieces };
    } finally {
      c.values = undefined;
      c.codes = undefined;
      c.packed = undefined;
    }
  };
  const ahead: Promise<ColumnRow>[] = [];
  let next = 0;
  while (next < columns.length || ahead.length) {
    while (ahead.length < lanes && next < columns.length) {
      const packing = pack(columns[next++]);
      packing.catch(() => undefined); // raised where it is awaited
      ahead.push(packing);
    }
    yield await (ahead.shift() as Promise<ColumnRow>);
  }
}
