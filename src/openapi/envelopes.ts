import type { SchemaObject } from '@nestjs/swagger';
import { refTo } from '../common/api-schema';

/*
 * The envelopes every answer comes in (docs/api-reference.md, "Responses"), as the document's schemas: the error envelope and the
 * body of the generic HTTP errors once each, and per payload its success envelope and the operation's answer.
 */
const text = (description: string): SchemaObject => ({ type: 'string', description });

/**
 * The error envelope, one named schema for every operation. `code` is a plain string rather than an enum:
 * each operation lists the codes it can answer in `x-error-codes` and its response description, and a code
 * the catalogue adds later must not make a generated client fail to read the answer.
 */
export const ERROR_ENVELOPE: SchemaObject = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['error'] },
    code: text('an error code of the catalogue (docs/api-guide.md, Errors); the operation lists those it can answer'),
    message: text('for humans; its wording is not part of the API'),
  },
  required: ['status', 'code', 'message'],
  description: 'the answer to a request the service refused or could not carry out (HTTP 200)',
};

/** The body of the generic HTTP 403, 404 and 500 answers (not part of the API, docs/api-reference.md: Errors). */
export const HTTP_ERROR: SchemaObject = {
  type: 'object',
  properties: {
    statusCode: { type: 'integer', description: 'the HTTP status again' },
    message: text('Forbidden, Not Found or Internal Server Error'),
    correlationId: text('HTTP 500 only: names the fault in the service log'),
  },
  required: ['statusCode', 'message'],
  description: 'the body of HTTP 403, 404 and 500 (not part of the API: programs should read the HTTP status)',
};

/** The success envelope around a payload: `{ "status": "success", "payload": <payload> }`. */
export function successEnvelope(payload: string): SchemaObject {
  return {
    type: 'object',
    properties: { status: { type: 'string', enum: ['success'] }, payload: refTo(payload) },
    required: ['status', 'payload'],
    description: `success, with a ${payload}`,
  };
}

/**
 * An operation's JSON answer: its success envelope or the error envelope. Two named schemas in a `oneOf`
 * (never inline objects) give generators a class per envelope; `status` tells them apart ('success' or 'error').
 */
export function answerSchema(payload: string): SchemaObject {
  return {
    description: `the success envelope with a ${payload}, or the error envelope (status tells which)`,
    oneOf: [refTo(`${payload}Success`), refTo('ErrorEnvelope')],
  };
}
