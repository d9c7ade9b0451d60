import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { getMetadataStorage } from 'class-validator';
import { Codes, ErrorCode } from '../common/error-codes';
import type { Answer, PayloadSchema } from './api-schema';

export const API_PAYLOAD = 'signet:api-payload';
export const API_ERRORS = 'signet:api-errors';

export interface PayloadDeclaration {
  /** The payload's schema (a named TypeBox schema, src/common/api-schema.ts); none for an HTML document. */
  schema?: PayloadSchema;
  /** The result is sent as-is, not in the envelope (health). */
  raw?: boolean;
  /** The route can also answer a CSV file (prediction result with ?format=csv). */
  csv?: boolean;
  /** The success answer is an HTML document (`schema` unused); errors still come as the error envelope. */
  html?: boolean;
  /** The success answer is a file of this media type (`schema` unused: the ONNX model); errors come as the error envelope. */
  file?: string;
}

/** A method decorator that holds the handler's answer to the payload's type: the compiler fails on any other. */
type AnswerDecorator<S extends PayloadSchema> = <H extends (...args: never[]) => Answer<S> | Promise<Answer<S>>>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<H>,
) => void;

/**
 * Documents an operation: its summary and its success payload, which the document shows inside the
 * envelope `{ status: "success", payload }` (with the route's error envelope beside it, see src/openapi/document.ts).
 */
export function ApiEnvelope<S extends PayloadSchema>(
  summary: string,
  schema: S,
  options: Omit<PayloadDeclaration, 'schema' | 'html'> = {},
): AnswerDecorator<S> {
  return applyDecorators(ApiOperation({ summary }), SetMetadata(API_PAYLOAD, { schema, ...options } satisfies PayloadDeclaration));
}

/** Documents an operation whose success answer is an HTML document (the analysis report); its errors are envelopes. */
export function ApiHtml(summary: string): MethodDecorator {
  return applyDecorators(ApiOperation({ summary }), SetMetadata(API_PAYLOAD, { html: true } satisfies PayloadDeclaration));
}

/** Documents an operation whose success answer is a file of `mediaType` (a model's ONNX file); its errors are envelopes. */
export function ApiFile(summary: string, mediaType: string): MethodDecorator {
  return applyDecorators(ApiOperation({ summary }), SetMetadata(API_PAYLOAD, { file: mediaType } satisfies PayloadDeclaration));
}

/**
 * The error codes a route can answer besides those every route of its kind gets (see src/openapi/routes.ts: the
 * general body codes, the access guard's codes, pagination). The document lists them and, in tests, a
 * response with a code not declared for its route fails (src/openapi/check-codes.ts).
 */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator {
  return SetMetadata(API_ERRORS, codes);
}

/** The codes validating a JSON body against `dto` can give: those its constraints carry, and the generic ones. */
export function bodyErrors(dto: new () => object): ErrorCode[] {
  const constraints = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
  const own = constraints.map((c) => (c.context as { code?: ErrorCode } | undefined)?.code).filter((c): c is ErrorCode => !!c);
  return [Codes.MissingField, Codes.WrongType, Codes.UnknownField, Codes.MalformedBody, ...own];
}
