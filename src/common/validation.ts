import { Injectable, PipeTransform, ArgumentMetadata, ValidationError } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationOptions } from 'class-validator';
import { ApiError } from './api-error';
import { Codes, ErrorCode } from './error-codes';

/**
 * Validation options that carry the API error code of a constraint. Compose them into DTO decorators:
 * `@Length(3, 60, code(Codes.DatasetNameLength, 'name must be 3 to 60 characters'))`.
 */
export function code(errorCode: ErrorCode, message?: string, extra: ValidationOptions = {}): ValidationOptions {
  return { ...extra, message, context: { code: errorCode } };
}

const TYPE_CONSTRAINTS = new Set(['isString', 'isArray', 'isInt', 'isNumber', 'isBoolean', 'isObject', 'nestedValidation']);

export interface Violation {
  code: ErrorCode;
  message: string;
  property: string;
}

/** Flattens class-validator errors into violations, each with its own code (default: wrong type). */
export function toViolations(errors: ValidationError[], prefix = ''): Violation[] {
  const out: Violation[] = [];
  for (const e of errors) {
    const property = prefix ? `${prefix}.${e.property}` : e.property;
    let constraints = e.constraints ?? {};
    // A missing value fails every constraint of its property: report only that it is missing.
    if (constraints.isDefined) constraints = { isDefined: constraints.isDefined };
    // A value of the wrong type fails its other constraints too: report the type first.
    const typeFailure = Object.keys(constraints).find((n) => TYPE_CONSTRAINTS.has(n));
    if (typeFailure) constraints = { [typeFailure]: constraints[typeFailure] };
    for (const [name, message] of Object.entries(constraints)) {
      const ctx = e.contexts?.[name] as { code?: ErrorCode } | undefined;
      let c: ErrorCode = ctx?.code ?? Codes.WrongType;
      if (!ctx?.code && name === 'whitelistValidation') c = Codes.UnknownField;
      if (!ctx?.code && name === 'isDefined') c = Codes.MissingField;
      out.push({ code: c, message, property });
    }
    if (e.children?.length) out.push(...toViolations(e.children, property));
  }
  return out;
}

/** Validates `plain` against `cls`; returns the typed instance and every violation. */
export function validateBody<T extends object>(
  cls: new () => T,
  plain: unknown,
): { value: T; violations: Violation[] } {
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) {
    return {
      value: new cls(),
      violations: [{ code: Codes.MalformedBody, message: 'the body must be a JSON object', property: '' }],
    };
  }
  // class-transformer never copies these keys, so the whitelist below would not see them: refuse them here
  const prototypeKey = Object.keys(plain).find((k) => k === '__proto__' || k === 'constructor' || k === 'prototype');
  if (prototypeKey) {
    return { value: new cls(), violations: [{ code: Codes.UnknownField, message: `property ${prototypeKey} should not exist`, property: prototypeKey }] };
  }
  const value = plainToInstance(cls, plain, { enableImplicitConversion: false });
  const errors = validateSync(value, { whitelist: true, forbidNonWhitelisted: true });
  return { value, violations: toViolations(errors) };
}

/** Global pipe for `@Body()` DTOs: the first violation becomes an ApiError with its code. */
@Injectable()
export class ApiValidationPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const cls = metadata.metatype;
    if (metadata.type !== 'body' || !cls || [Object, String, Number, Boolean, Array].includes(cls as never)) {
      return value;
    }
    const { value: instance, violations } = validateBody(cls as new () => object, value ?? {});
    if (violations.length) throw new ApiError(violations[0].code, violations[0].message);
    return instance;
  }
}
