import type { StreamableFile } from '@nestjs/common';
import { Type } from '@sinclair/typebox';
import type { Static, TIntersect, TObject, TProperties, TSchema, TUnion } from '@sinclair/typebox';

/*
 * How a payload of the API is declared: once, beside its module, as a TypeBox schema (JSON Schema that carries its
 * TypeScript type). `export const Project = Type.Object({...}, { $id: 'Project' })` and
 * `export type Project = Static<typeof Project>`: the service returns that type, the route names the schema
 * (`@ApiEnvelope(summary, Project)`, which the compiler holds the handler's answer to), and src/openapi/ makes of it
 * the document's component `Project` (a schema with an `$id` is a named component wherever it is used), from which
 * the tests' answer checks, the TypeScript client's types and the Python client's TypedDicts are generated.
 *
 * The helpers below write what OpenAPI 3.0 says otherwise than TypeBox would: an enum as `enum` (not a union of
 * constants), a map as `additionalProperties`, a choice as `oneOf`, null as `nullable`.
 */
export { Type };
export type { Static, TSchema };

/** An id as the API writes it: a positive decimal integer in a string. */
export const ID_PATTERN = '^[1-9][0-9]{0,18}$';

/** An id of the API, with what it identifies. */
export const Id = (description: string) => Type.String({ pattern: ID_PATTERN, example: '1', description });

/** One of `values` (an enumeration of the engine's types or a module's, never retyped). */
export const StringEnum = <const V extends readonly string[]>(values: V, options: { description?: string } = {}) =>
  Type.Unsafe<V[number]>({ type: 'string', enum: [...values], ...options });

/** An object of any keys (names the user chose, metric names) whose values are all `value`. */
export const MapOf = <T extends TSchema>(value: T, options: { description?: string } = {}) =>
  Type.Unsafe<Record<string, Static<T>>>({ type: 'object', additionalProperties: value, ...options });

/** Exactly one of `members` (named object schemas, so that generators name each form). */
export const OneOf = <T extends TSchema[]>(members: [...T], options: { description?: string } = {}) =>
  Type.Unsafe<Static<TUnion<T>>>({ oneOf: members, ...options });

/** All of `members`: a named schema and what it adds. */
export const AllOf = <T extends TObject[]>(members: [...T], options: { $id?: string } = {}) =>
  Type.Unsafe<Static<TIntersect<T>>>({ allOf: members, ...options });

/** A number, or null where it could not be computed. */
export const NullableNumber = (description: string) => Type.Unsafe<number | null>({ type: 'number', nullable: true, description });

/** A page of a list, the component `name`: `extra` (echoed ids), then offset, totalCount and the items. */
export const PageOf = <T extends TSchema, E extends TProperties = Record<never, never>>(name: string, item: T, extra?: E) =>
  Type.Object(
    {
      ...(extra as E),
      offset: Type.Integer({ description: 'echoed from the request' }),
      totalCount: Type.Integer({ description: 'items in the whole list' }),
      data: Type.Array(item),
    },
    { $id: name },
  );

/** A reference to the document's component `name` (a schema with that `$id`): what a Nest DTO's @ApiProperty can name. */
export const refTo = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });

/** A payload schema: named with `$id`, so that the document has it as a component the envelope refers to (src/openapi checks). */
export type PayloadSchema = TSchema;

/** What a handler documented with `schema` may return: its payload (or a file the route writes itself). */
export type Answer<S extends TSchema> = Static<S> | StreamableFile;

/** The payload of a route that answers nothing more than success. */
export const Empty = Type.Object({}, { $id: 'Empty', description: 'an empty object' });
export type Empty = Static<typeof Empty>;

/**
 * True when the values of type `A` (a type the engine declares) are answers `B` (a payload schema's type) describes,
 * and both name the same fields: `const fits: Fits<ModelReport, Model> = true` fails to compile when either gains or
 * loses a field the other lacks, or when a field's type in `A` is not one the schema allows.
 */
export type Fits<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? ([A] extends [B] ? true : false) : false) : false;
