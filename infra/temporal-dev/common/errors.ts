// gRPC-status errors the handlers throw; grpc-server.ts turns them into call statuses.
import { status } from '@grpc/grpc-js';
import { encodeMessage, lookupType, type Msg } from './proto.ts';

export class ServiceError extends Error {
  readonly code: status;
  /** Optional google.rpc.Status detail, as Temporal attaches (e.g. NamespaceNotFoundFailure). */
  readonly detail: { typeName: string; value: Msg } | undefined;
  constructor(code: status, message: string, detail?: { typeName: string; value: Msg }) {
    super(message);
    this.code = code;
    this.detail = detail;
  }

  /** Serialized google.rpc.Status for the `grpc-status-details-bin` trailer, if any detail is attached. */
  statusDetailsBin(): Buffer | undefined {
    if (!this.detail) return undefined;
    const detailType = lookupType(this.detail.typeName);
    return encodeMessage(lookupType('google.rpc.Status'), {
      code: this.code,
      message: this.message,
      details: [{ type_url: `type.googleapis.com/${this.detail.typeName}`, value: encodeMessage(detailType, this.detail.value) }],
    });
  }
}

/** A state file (--db-filename) that cannot be used: not ours, another schema version, in use. The message says why. */
export class StateFileError extends Error {
  override name = 'StateFileError';
}

export const invalidArgument = (message: string) => new ServiceError(status.INVALID_ARGUMENT, message);
export const notFound = (message: string) => new ServiceError(status.NOT_FOUND, message);
export const alreadyExists = (message: string) => new ServiceError(status.ALREADY_EXISTS, message);
export const unimplemented = (message: string) => new ServiceError(status.UNIMPLEMENTED, message);
export const failedPrecondition = (message: string) => new ServiceError(status.FAILED_PRECONDITION, message);
export const permissionDenied = (message: string) => new ServiceError(status.PERMISSION_DENIED, message);

export function namespaceNotFound(namespace: string): ServiceError {
  return new ServiceError(status.NOT_FOUND, `Namespace ${namespace} is not found.`, {
    typeName: 'temporal.api.errordetails.v1.NamespaceNotFoundFailure',
    value: { namespace },
  });
}

export function workflowNotFound(workflowId: string, runId?: string): ServiceError {
  return notFound(`workflow execution not found for workflow ID "${workflowId}" and run ID "${runId ?? ''}"`);
}

export function requireField<T>(value: T | null | undefined, name: string): T {
  if (value === undefined || value === null || value === '') throw invalidArgument(`${name} is not set on request.`);
  return value;
}
