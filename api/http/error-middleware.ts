import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { ApiError } from './api-error.ts';
import { apiErrorFromDb } from './db-errors.ts';
import type { ApiFailureBody } from './envelope.ts';

function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  return apiErrorFromDb(err);
}

/**
 * The only place failures become responses: a client gets the failure
 * envelope and never a stack trace or an HTML page. Also turns the router's
 * bare 404/405/501 into envelopes.
 */
export function errorMiddleware(logger: Logger): Middleware {
  return async (ctx, next) => {
    let apiError: ApiError | undefined;
    try {
      await next();
      if (ctx.body === undefined || ctx.body === null) {
        if (ctx.status === 404) apiError = new ApiError('not_found', 404, { path: ctx.path });
        else if (ctx.status === 405) apiError = new ApiError('method_not_allowed', 405, { allow: ctx.response.get('Allow') });
        else if (ctx.status === 501) apiError = new ApiError('method_not_allowed', 405, { method: ctx.method });
      }
    } catch (err) {
      apiError = toApiError(err);
      if (!apiError) {
        logger.error({ err, requestId: ctx.state.requestId }, 'unhandled error');
        apiError = new ApiError('internal_error', 500);
      } else if (apiError.status >= 500) {
        logger.warn({ err, requestId: ctx.state.requestId, code: apiError.code }, 'infrastructure error');
      }
    }
    if (!apiError) return;
    const body: ApiFailureBody = {
      ok: false,
      error: {
        code: apiError.code,
        message: apiError.message,
        ...(apiError.details ? { details: apiError.details } : {}),
      },
      requestId: ctx.state.requestId,
    };
    ctx.status = apiError.status;
    for (const [name, value] of Object.entries(apiError.headers)) ctx.set(name, value);
    ctx.body = body;
  };
}
