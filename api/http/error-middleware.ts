import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { DomainError } from '../../domain/errors.ts';
import { ERRORS } from '../../schemas/errors.ts';
import { errorFromDb } from './db-errors.ts';
import type { ApiFailureBody } from './envelope.ts';

/** The router's bare 404/405/501 as errors by code. */
function routerError(ctx: Context): DomainError | undefined {
  if (ctx.body !== undefined && ctx.body !== null) return undefined;
  if (ctx.status === 404) return new DomainError('not_found', undefined, { details: { path: ctx.path } });
  if (ctx.status === 405) return new DomainError('method_not_allowed', undefined, { details: { allow: ctx.response.get('Allow') } });
  if (ctx.status === 501) return new DomainError('method_not_allowed', undefined, { details: { method: ctx.method } });
  return undefined;
}

/**
 * The only place failures become responses: the code's status from the error
 * table, the failure envelope, and never a stack trace or an HTML page.
 */
export function errorMiddleware(logger: Logger): Middleware {
  return async (ctx, next) => {
    let error: DomainError | undefined;
    try {
      await next();
      error = routerError(ctx);
    } catch (err) {
      error = err instanceof DomainError ? err : errorFromDb(err);
      if (!error) {
        logger.error({ err, requestId: ctx.state.requestId }, 'unhandled error');
        error = new DomainError('internal_error');
      } else if (ERRORS[error.code].status >= 500) {
        logger.warn({ err, requestId: ctx.state.requestId, code: error.code }, 'infrastructure error');
      }
    }
    if (!error) return;
    const body: ApiFailureBody = {
      ok: false,
      error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) },
      requestId: ctx.state.requestId,
    };
    ctx.status = ERRORS[error.code].status;
    setRetryAfter(ctx, error);
    if (error.code === 'unauthorized') {
      const challenge = ctx.state.authChallenge ?? 'Bearer';
      // RFC 6750 3.1: a presented app token that is refused says so, so the host refreshes or authorizes again.
      const invalidToken = error.details?.oauthError === 'invalid_token';
      ctx.set('WWW-Authenticate', invalidToken ? `${challenge}${challenge === 'Bearer' ? ' ' : ', '}error="invalid_token"` : challenge);
    }
    ctx.body = ctx.state.errorFormat === 'oauth' ? oauthBody(error) : body;
  };
}

/** RFC 6749 5.2: the OAuth `error` the use case named, else the nearest one for the code. */
function oauthBody(error: DomainError): { error: string; error_description: string } {
  const named = error.details?.oauthError;
  const fallback =
    error.code === 'unauthorized'
      ? 'invalid_client'
      : ERRORS[error.code].status >= 500 || error.code === 'rate_limited'
        ? 'temporarily_unavailable'
        : 'invalid_request';
  return { error: typeof named === 'string' ? named : fallback, error_description: error.message };
}

/** Tells the caller when to try again, for errors that know it (rate limits, quotas); JSON and HTML answers alike. */
export function setRetryAfter(ctx: Context, error: DomainError): void {
  if (error.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(error.retryAfterSeconds));
}
