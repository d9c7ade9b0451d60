import { applyDecorators, Injectable, PipeTransform, ArgumentMetadata, ValidationError } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { plainToInstance } from 'class-transformer';
import { IsIn, IsString, Length, ValidateBy, ValidateIf, validateSync, ValidationOptions } from 'class-validator';
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

/*
 * The composed decorators every DTO uses: one decorator per field states its OpenAPI shape, whether it
 * is required, its type and limits, and the API code of each failure. "Missing" means undefined: a
 * `null` is a value of the wrong type (it gets the field's code), as the analyze rules have always said.
 */

interface FieldOptions {
  /** The field may be absent (undefined). */
  optional?: boolean;
  /** Code of a value of the wrong type or out of range (default badRequest-1-0-6). */
  code?: ErrorCode;
  description?: string;
}

/** Fails only for undefined, with badRequest-1-0-5 (reported alone, like class-validator's isDefined). */
function Present(name: string): PropertyDecorator {
  return ValidateBy({ name: 'isDefined', validator: { validate: (v) => v !== undefined } }, code(Codes.MissingField, `${name} is required`));
}

/** Skips the field's other checks when it is undefined (not when it is null, unlike @IsOptional). */
function AbsentOk(): PropertyDecorator {
  return ValidateIf((_o, v) => v !== undefined);
}

function presence(name: string, optional: boolean | undefined): PropertyDecorator {
  return optional ? AbsentOk() : Present(name);
}

/** A string of `min` to `max` characters (the text rule itself is checked for every body, see text.ts). */
export function ValidateText(name: string, o: FieldOptions & { min?: number; max: number }): PropertyDecorator {
  const c = o.code ?? Codes.WrongType;
  const doc = { minLength: o.min, maxLength: o.max, description: o.description };
  return applyDecorators(
    o.optional ? ApiPropertyOptional(doc) : ApiProperty(doc),
    presence(name, o.optional),
    IsString(code(c, `${name} must be a string of ${o.min ?? 0} to ${o.max} characters`)),
    Length(o.min ?? 0, o.max, code(c, `${name} must be a string of ${o.min ?? 0} to ${o.max} characters`)),
  );
}

/** One of `values` (a value of any other type or spelling gets `code`). */
export function ValidateEnum(name: string, values: readonly string[], o: FieldOptions & { default?: string } = {}): PropertyDecorator {
  const doc = { enum: values as string[], default: o.default, description: o.description };
  return applyDecorators(
    o.optional ? ApiPropertyOptional(doc) : ApiProperty(doc),
    presence(name, o.optional),
    IsIn(values as string[], code(o.code ?? Codes.WrongType, `${name} must be one of ${values.join(', ')}`)),
  );
}

/** A JSON number that is a positive safe integer (a numeric string is not). */
export function ValidatePositiveInt(name: string, o: FieldOptions & { default?: number } = {}): PropertyDecorator {
  const doc = { type: 'integer' as const, minimum: 1, default: o.default, description: o.description };
  return applyDecorators(
    o.optional ? ApiPropertyOptional(doc) : ApiProperty(doc),
    presence(name, o.optional),
    ValidateBy(
      { name: 'isPositiveInt', validator: { validate: (v) => typeof v === 'number' && Number.isSafeInteger(v) && v > 0 } },
      code(o.code ?? Codes.WrongType, `${name} must be a positive integer`),
    ),
  );
}
