import { ERRORS, type ErrorCode } from '../schemas/errors.ts';

export interface DomainErrorOptions {
  /** Data that helps the caller act (e.g. `companies` to choose from, `problems` with paths). */
  details?: Record<string, unknown> | undefined;
  /** When a retry may succeed (rate limits, outages); adapters translate it (HTTP: Retry-After). */
  retryAfterSeconds?: number | undefined;
}

/**
 * A failure by code. It knows nothing of transports: each adapter maps the
 * code (HTTP through the status in the error table, the CLI to exit codes).
 */
export class DomainError extends Error {
  override name = 'DomainError';
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string = ERRORS[code].meaning, opts: DomainErrorOptions = {}) {
    super(message);
    this.code = code;
    this.details = opts.details;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}
