import type { Middleware } from 'koa';
import type { Logger } from 'pino';

/**
 * One line per request. Only these fields are logged: never headers, query
 * strings or bodies, which may carry keys, tokens and passwords.
 */
export function requestLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      logger.info(
        {
          requestId: ctx.state.requestId,
          method: ctx.method,
          route: ctx.state.route ?? null,
          status: ctx.status,
          durationMs: Math.round((performance.now() - started) * 10) / 10,
        },
        'request',
      );
    }
  };
}
