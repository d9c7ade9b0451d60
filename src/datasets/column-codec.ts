import { promisify } from 'node:util';
import { deflateRaw, inflateRaw, constants } from 'node:zlib';
import type { EngineColumn, FeatureType } from '../engine/types';
import { parseNumber } from './column-builder';

const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw);

/** A column as stored: its type (what it means) and its encoding (how its values are kept). */
export interface StoredColumn {
  name: string;
  type: FeatureType;
  encoding: 'f64' | 'dict';
  values?: Float64Array;
  codes?: Int32Array;
  levels?: string[];
}

/** Deflates the column's typed array (zlib's fastest level: the data is written once, read often). */
export async function packColumn(c: { encoding: 'f64' | 'dict'; values?: Float64Array; codes?: Int32Array }): Promise<Buffer> {
  const array = c.encoding === 'f64' ? (c.values as Float64Array) : (c.codes as Int32Array);
  return deflate(Buffer.from(array.buffer, array.byteOffset, array.byteLength), { level: constants.Z_BEST_SPEED });
}

/** Inflates a stored column into a fresh, aligned typed array. */
export async function unpackColumn(encoding: 'f64' | 'dict', data: Buffer): Promise<Float64Array | Int32Array> {
  const raw = await inflate(data);
  const copy = new ArrayBuffer(raw.length);
  new Uint8Array(copy).set(raw);
  return encoding === 'f64' ? new Float64Array(copy) : new Int32Array(copy);
}

/** Levels of a numbers column, for using it as categories: its distinct values, ascending. */
function numbersAsCodes(values: Float64Array): { codes: Int32Array; levels: string[] } {
  const distinct = [...new Set(Array.from(values).filter((v) => !Number.isNaN(v)))].sort((a, b) => a - b);
  const index = new Map(distinct.map((v, i) => [v, i]));
  const codes = Int32Array.from(values, (v) => (Number.isNaN(v) ? -1 : (index.get(v) as number)));
  return { codes, levels: distinct.map(String) };
}

/** Values of a text column whose levels are all numbers (checked when its type was set). */
function codesAsNumbers(codes: Int32Array, levels: string[]): Float64Array {
  const numbers = levels.map(parseNumber);
  return Float64Array.from(codes, (c) => (c < 0 ? NaN : numbers[c]));
}

/** The engine's view of a stored column, converted to what its type needs. */
export function toEngineColumn(c: StoredColumn): EngineColumn {
  const numeric = c.type === 'numerical' || c.type === 'timeToEvent';
  if (numeric) {
    const values = c.encoding === 'f64' ? (c.values as Float64Array) : codesAsNumbers(c.codes as Int32Array, c.levels ?? []);
    return { name: c.name, type: c.type as 'numerical' | 'timeToEvent', values };
  }
  if (c.type === 'event' && c.encoding === 'f64') return { name: c.name, type: 'event', values: c.values as Float64Array };
  const { codes, levels } =
    c.encoding === 'dict' ? { codes: c.codes as Int32Array, levels: c.levels ?? [] } : numbersAsCodes(c.values as Float64Array);
  return { name: c.name, type: c.type as 'categorical' | 'identifier' | 'event', codes, levels };
}

export const FEATURE_TYPES: readonly FeatureType[] = ['numerical', 'categorical', 'identifier', 'event', 'timeToEvent'];

/** Why `type` is not possible for the column, or undefined when it is. */
export function impossibleType(
  c: { name: string; encoding: 'f64' | 'dict'; values?: Float64Array; levels?: string[]; distinctCount: number },
  type: FeatureType,
): string | undefined {
  const numeric = c.encoding === 'f64' || (c.levels ?? []).every((l) => !Number.isNaN(parseNumber(l)));
  if ((type === 'numerical' || type === 'timeToEvent') && !numeric) {
    const bad = (c.levels ?? []).find((l) => Number.isNaN(parseNumber(l)));
    return `"${c.name}" holds text ("${String(bad).slice(0, 40)}"), so it cannot be ${type}`;
  }
  if (type === 'timeToEvent') {
    const values = c.encoding === 'f64' ? Array.from(c.values ?? []) : (c.levels ?? []).map(parseNumber);
    if (values.some((v) => v < 0)) return `"${c.name}" has negative values, so it cannot be a time to event`;
  }
  if (type === 'event' && c.distinctCount !== 2) {
    return `"${c.name}" has ${c.distinctCount} distinct values; an event column needs exactly two (event / censored)`;
  }
  return undefined;
}
