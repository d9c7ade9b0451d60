import { Injectable, PipeTransform } from '@nestjs/common';
import { ApiError } from './api-error';
import { Codes } from './error-codes';

const MAX_BIGINT = 9223372036854775807n;

/** True when `value` is a positive decimal integer that fits a PostgreSQL bigint. */
export function isPositiveId(value: unknown): value is string {
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,18}$/.test(value)) return false;
  return BigInt(value) <= MAX_BIGINT;
}

/** Accepts a positive integer as a JSON number or a decimal string; returns it as a string, or undefined. */
export function toId(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return String(value);
  return isPositiveId(value) ? value : undefined;
}

/** A path id: a positive decimal integer, kept as a string (bigint in the database). */
@Injectable()
export class ParseIdPipe implements PipeTransform<unknown, string> {
  transform(value: unknown): string {
    if (!isPositiveId(value)) throw new ApiError(Codes.MalformedId, `malformed id "${String(value).slice(0, 40)}"`);
    return value;
  }
}

/** `:offset` / `:count` path segments: non-negative integers, count at most 100. */
@Injectable()
export class ParseOffsetPipe implements PipeTransform<unknown, number> {
  transform(value: unknown): number {
    if (typeof value !== 'string' || !/^[0-9]{1,15}$/.test(value)) {
      throw new ApiError(Codes.BadPagination, 'offset must be a non-negative integer');
    }
    return Number(value);
  }
}

@Injectable()
export class ParseCountPipe implements PipeTransform<unknown, number> {
  transform(value: unknown): number {
    if (typeof value !== 'string' || !/^[0-9]{1,3}$/.test(value) || Number(value) > 100) {
      throw new ApiError(Codes.BadPagination, 'count must be an integer from 0 to 100');
    }
    return Number(value);
  }
}

/** A page of a list, as every list endpoint returns it. */
export interface Page<T> {
  offset: number;
  totalCount: number;
  data: T[];
}
