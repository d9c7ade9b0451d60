import { applyDecorators, Injectable, PipeTransform, ArgumentMetadata, ValidationError } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Min,
  ValidateBy,
  ValidateIf,
  getMetadataStorage,
  validateSync,
  ValidationOptions,
} from 'class-validator';
import { ApiError } from './api-error';
import { Codes, ErrorCode } from './error-codes';
import { assertSafeJson } from './text';

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
export function validateBody<T extends object>(cls: new () => T, plain: unknown): { value: T; violations: Violation[] } {
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) {
    return {
      value: new cls(),
      violations: [{ code: Codes.MalformedBody, message: 'the body must be a JSON object', property: '' }],
    };
  }
  // Bodies that did not come through the JSON parser (multipart fields) meet the text rule here.
  assertSafeJson(plain);
  // keys that name the prototype are never fields: refuse them before they reach the instance
  const prototypeKey = Object.keys(plain).find((k) => k === '__proto__' || k === 'constructor' || k === 'prototype');
  if (prototypeKey) {
    return {
      value: new cls(),
      violations: [{ code: Codes.UnknownField, message: `property ${prototypeKey} should not exist`, property: prototypeKey }],
    };
  }
  // A shallow copy of the body's own keys onto the DTO: nested values stay plain data as parsed (maps keyed by
  // user names, such as featureTypes, may hold any key, "constructor" and "toString" included). No DTO has
  // nested classes, so class-transformer's plainToInstance has nothing to add, and it fails on such keys.
  const value = Object.assign(new cls(), plain);
  const errors = validateSync(value, { whitelist: true, forbidNonWhitelisted: true });
  return { value, violations: toViolations(errors) };
}

/** The fields of a body DTO in the order the class declares them (the order its violations are reported in). */
export function declaredFields(cls: new () => object): string[] {
  return [
    ...new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(cls, '', true, false)
        .map((m) => m.propertyName),
    ),
  ];
}

/** The typed body, or the first violation thrown as an ApiError with its code (`what` prefixes the message). */
export function parseBody<T extends object>(cls: new () => T, plain: unknown, what = ''): T {
  const { value, violations } = validateBody(cls, plain);
  if (violations.length) throw new ApiError(violations[0].code, what + violations[0].message);
  return value;
}

/** Global pipe for `@Body()` DTOs: the first violation becomes an ApiError with its code. */
@Injectable()
export class ApiValidationPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const cls = metadata.metatype;
    if (metadata.type !== 'body' || !cls || [Object, String, Number, Boolean, Array].includes(cls as never)) {
      return value;
    }
    return parseBody(cls as new () => object, value ?? {});
  }
}

/*
 * The composed decorators every body DTO uses (as immich's server/src/validation.ts): one decorator a
 * field states its OpenAPI shape, whether it is required, its type and limits, and the API code of each
 * failure. The text rule (no NUL, valid Unicode, a length cap) is checked for every body before any DTO
 * sees it (common/text.ts).
 */

export interface FieldOptions {
  /** The field may be absent. */
  optional?: boolean;
  /**
   * How a `null` reads: 'absent' (the default: a required field is missing, badRequest-1-0-5, an
   * optional one is skipped) or 'value' (a value of the wrong type, with the field's code: the analyze
   * rules have always read it so).
   */
  nullIs?: 'absent' | 'value';
  /** Code of a value of the wrong type (default badRequest-1-0-6). */
  typeCode?: ErrorCode;
  description?: string;
  example?: unknown;
}

/** Missing (undefined, or null when null reads as absent): badRequest-1-0-5, reported alone. */
function Required(name: string, nullIs: FieldOptions['nullIs']): PropertyDecorator {
  const missing = code(Codes.MissingField, `${name} is required`);
  if (nullIs !== 'value') return IsDefined(missing);
  return ValidateBy({ name: 'isDefined', validator: { validate: (v) => v !== undefined } }, missing);
}

/** Skips the field's other checks when it is absent. */
function Optional(nullIs: FieldOptions['nullIs']): PropertyDecorator {
  return nullIs === 'value' ? ValidateIf((_o, v) => v !== undefined) : IsOptional();
}

function field(name: string, o: FieldOptions, doc: ApiPropertyOptions, ...checks: PropertyDecorator[]): PropertyDecorator {
  const api = { description: o.description, example: o.example, ...doc } as ApiPropertyOptions;
  return applyDecorators(
    o.optional ? ApiPropertyOptional(api) : ApiProperty(api),
    o.optional ? Optional(o.nullIs) : Required(name, o.nullIs),
    ...checks,
  );
}

/**
 * A name shown in lists: something besides spaces, and no control characters (a terminal escape, a bell). The
 * empty string is left to the length check, so that it gets one violation.
 */
function visible(value: unknown): boolean {
  if (typeof value !== 'string' || value === '') return true;
  if (!/\S/.test(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return false;
  }
  return true;
}

/**
 * A string of `min` to `max` characters; out of range gets `code` (default: the type code) and `message`. With
 * `visible` (names), also not only spaces and without control characters, under the same code.
 */
export function ValidateText(
  name: string,
  o: FieldOptions & { min?: number; max: number; code?: ErrorCode; message?: string; visible?: boolean },
): PropertyDecorator {
  const typeCode = o.typeCode ?? Codes.WrongType;
  const range = o.message ?? `${name} must be a string of ${o.min ?? 0} to ${o.max} characters`;
  const names = o.visible
    ? [
        ValidateBy(
          { name: 'visibleText', validator: { validate: visible } },
          code(o.code ?? typeCode, `${name} must not be blank nor hold control characters`),
        ),
      ]
    : [];
  return field(
    name,
    o,
    { type: String, minLength: o.min, maxLength: o.max },
    IsString(code(typeCode, typeCode === (o.code ?? typeCode) ? range : `${name} must be a string`)),
    Length(o.min ?? 0, o.max, code(o.code ?? typeCode, range)),
    ...names,
  );
}

/** One of `values`: a value of any other type or spelling gets `code`. */
export function ValidateEnum(
  name: string,
  values: readonly string[],
  o: FieldOptions & { code?: ErrorCode; default?: string; each?: boolean; message?: string } = {},
): PropertyDecorator {
  const message = o.message ?? `${name} must be one of ${values.join(', ')}`;
  const c = o.code ?? Codes.WrongType;
  if (!o.each) return field(name, o, { enum: values as string[], default: o.default }, IsIn(values as string[], code(c, message)));
  // an array of distinct-purpose values: never longer than the list of values
  return field(
    name,
    o,
    { enum: values as string[], isArray: true },
    IsArray(code(Codes.WrongType, `${name} must be an array`)),
    ArrayMaxSize(values.length, code(c, `at most ${values.length} ${name}`)),
    IsIn(values as string[], code(c, message, { each: true })),
  );
}

/**
 * A JSON number that is a positive safe integer (a numeric string is not), at least `min` (default 1) and at most `max`
 * when given; otherwise `code`.
 */
export function ValidatePositiveInt(
  name: string,
  o: FieldOptions & { code?: ErrorCode; default?: number; min?: number; max?: number } = {},
): PropertyDecorator {
  const min = o.min ?? 1;
  const max = o.max ?? Number.MAX_SAFE_INTEGER;
  return field(
    name,
    o,
    { type: 'integer', minimum: min, maximum: o.max, default: o.default },
    ValidateBy(
      {
        name: 'isPositiveInt',
        validator: { validate: (v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max },
      },
      code(
        o.code ?? Codes.WrongType,
        o.max
          ? `${name} must be an integer from ${min} to ${o.max}`
          : min > 1
            ? `${name} must be an integer of at least ${min}`
            : `${name} must be a positive integer`,
      ),
    ),
  );
}

/** An integer of at least `min` (badRequest-1-0-6 otherwise). */
export function ValidateInt(name: string, o: FieldOptions & { min: number; default?: number }): PropertyDecorator {
  return field(
    name,
    o,
    { type: 'integer', minimum: o.min, default: o.default },
    IsInt(code(Codes.WrongType, `${name} must be an integer`)),
    Min(o.min, code(Codes.WrongType, o.min === 0 ? `${name} must not be negative` : `${name} must be at least ${o.min}`)),
  );
}

/** The largest time accepted: beyond it PostgreSQL's JSON writes a number digit by digit (1e308 as 309 digits). */
export const MAX_TIME = 1e15;

/**
 * An array of 1 to `max` (100) numbers from 0 to MAX_TIME in increasing order, each once, such as times
 * (badRequest-1-0-6 otherwise: a time given twice made two columns of one name in a CSV).
 */
export function ValidateTimes(name: string, o: FieldOptions & { max?: number } = {}): PropertyDecorator {
  const max = o.max ?? 100;
  return field(
    name,
    o,
    { type: 'number', isArray: true, minItems: 1, maxItems: max, minimum: 0, maximum: MAX_TIME, uniqueItems: true },
    ValidateBy(
      {
        name: 'isTimes',
        validator: {
          validate: (v) =>
            Array.isArray(v) &&
            v.length >= 1 &&
            v.length <= max &&
            v.every(
              (x, i) => typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= MAX_TIME && (i === 0 || x > (v[i - 1] as number)),
            ),
        },
      },
      code(Codes.WrongType, `${name} must be an array of 1 to ${max} numbers from 0 to ${MAX_TIME}, increasing, each given once`),
    ),
  );
}

/** true or false (badRequest-1-0-6 otherwise). */
export function ValidateBoolean(name: string, o: FieldOptions & { default?: boolean; message?: string } = {}): PropertyDecorator {
  return field(name, o, { type: Boolean, default: o.default }, IsBoolean(code(Codes.WrongType, o.message ?? `${name} must be a boolean`)));
}

/**
 * The id of a resource, as a JSON number or a decimal string: required here; its form and the caller's
 * permission on it are checked by the access guard (or the service, for multipart bodies).
 */
export function ValidateId(name: string, o: Pick<FieldOptions, 'description'> = {}): PropertyDecorator {
  // Documented as the API writes ids (a string of digits); a JSON number is accepted too, but a oneOf here
  // would be shown as `object` (the reflected type) and lead client generators astray.
  const description = [o.description, 'a string of digits (a JSON number is accepted too)'].filter(Boolean).join('; ');
  return field(name, { description }, { type: 'string', pattern: '^[1-9][0-9]{0,18}$', example: '1' });
}

/**
 * An array of 1 to `max` JSON objects (rows of feature name -> value; badRequest-1-0-6 otherwise): what each holds is
 * for the caller to check, off the event loop.
 */
export function ValidateRows(name: string, o: FieldOptions & { max: number }): PropertyDecorator {
  return field(
    name,
    o,
    {
      type: 'array',
      items: { type: 'object', additionalProperties: { description: 'a number, a text, or null where missing' } },
      minItems: 1,
      maxItems: o.max,
    },
    ValidateBy(
      {
        name: 'isRows',
        validator: {
          validate: (v) =>
            Array.isArray(v) &&
            v.length >= 1 &&
            v.length <= o.max &&
            v.every((r) => typeof r === 'object' && r !== null && !Array.isArray(r)),
        },
      },
      code(Codes.WrongType, `${name} must be an array of 1 to ${o.max} objects (feature name -> value)`),
    ),
  );
}
