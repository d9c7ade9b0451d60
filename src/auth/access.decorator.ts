import { ErrorCode } from '../common/error-codes';
import { Permission } from './permission';

/** Kinds of resource an id in a request can name; each resolves to the project that holds it. */
export type ResourceKind = 'project' | 'dataset' | 'analysis' | 'task' | 'prediction' | 'predictionDataset';

export interface AccessRequirement {
  permission: Permission;
  /** Where the id is: a path parameter name, or `body.<field>` for a JSON body field. */
  target?: string;
  kind?: ResourceKind;
  /** Code when the id does not exist (default: the resource's notFound code). */
  notFound?: ErrorCode;
}

export const ACCESS_METADATA = 'signet:access';

const KIND_BY_FIELD: Record<string, ResourceKind> = {
  projectId: 'project',
  datasetId: 'dataset',
  analysisId: 'analysis',
  taskId: 'task',
  predictionId: 'prediction',
};

export function kindOf(target: string): ResourceKind {
  const field = target.startsWith('body.') ? target.slice(5) : target;
  const kind = KIND_BY_FIELD[field];
  if (!kind) throw new Error(`@Access: cannot tell the resource kind of "${target}"; pass { kind }`);
  return kind;
}

/**
 * Declares what a route needs. The global AccessGuard enforces it; stack several for routes that touch
 * two resources. `@Access(Permission.Public)` opens a route to callers without a token.
 *   @Access(Permission.ProjectRead, 'datasetId')
 *   @Access(Permission.ProjectWrite, 'body.projectId')
 *   @Access(Permission.ProjectRead, 'analysisId', { notFound: Codes.AnalysisResultUnknown })
 * A prediction belongs to two projects (its model's and its dataset's): `kind: 'predictionDataset'`
 * resolves a prediction id to the project of its dataset.
 */
export function Access(
  permission: Permission,
  target?: string,
  options: { kind?: ResourceKind; notFound?: ErrorCode } = {},
): MethodDecorator {
  const requirement: AccessRequirement = {
    permission,
    target,
    kind: target ? (options.kind ?? kindOf(target)) : undefined,
    notFound: options.notFound,
  };
  return (_target, _key, descriptor: PropertyDescriptor) => {
    const handler = descriptor.value as object;
    const existing = (Reflect.getMetadata(ACCESS_METADATA, handler) as AccessRequirement[] | undefined) ?? [];
    // Decorators apply bottom-up: prepend so the list reads in source order.
    Reflect.defineMetadata(ACCESS_METADATA, [requirement, ...existing], handler);
    return descriptor;
  };
}

export function accessOf(handler: object): AccessRequirement[] | undefined {
  return Reflect.getMetadata(ACCESS_METADATA, handler) as AccessRequirement[] | undefined;
}
