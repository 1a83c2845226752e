import { DomainError } from '../../domain/errors.ts';

// PostgreSQL SQLSTATE codes we turn into envelope errors.
const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';
const SERIALIZATION_FAILURE = '40001';
const DEADLOCK_DETECTED = '40P01';
const QUERY_CANCELED = '57014'; // statement_timeout
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57P01', '57P03', '08006', '08001']);

function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function isRetryableDbError(err: unknown): boolean {
  const code = sqlState(err);
  return code === SERIALIZATION_FAILURE || code === DEADLOCK_DETECTED;
}

/** Infrastructure failures by code; undefined when the error is not one we recognise. */
export function errorFromDb(err: unknown): DomainError | undefined {
  const code = sqlState(err);
  const retryLater = { retryAfterSeconds: 1 };
  if (code === UNIQUE_VIOLATION || code === FOREIGN_KEY_VIOLATION) {
    // Use cases name the clashing field themselves; a constraint name would only leak the schema.
    return new DomainError('conflict', 'The change collides with data written at the same time; check and retry.');
  }
  if (code && isRetryableDbError(err)) {
    return new DomainError('service_unavailable', 'Concurrent changes collided; retry the request.', retryLater);
  }
  if (code === QUERY_CANCELED) return new DomainError('timeout', undefined, retryLater);
  const message = err instanceof Error ? err.message : '';
  if ((code && CONNECTION_CODES.has(code)) || /timeout exceeded when trying to connect|Connection terminated/.test(message)) {
    return new DomainError('service_unavailable', 'The database is unavailable; retry shortly.', retryLater);
  }
  return undefined;
}
