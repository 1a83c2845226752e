import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { setHeader } from './headers.ts';

const REQUEST_ID_HEADER = 'x-request-id';
// A caller's own id is kept for correlation only when it is short and plain.
const ACCEPTED = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * What every request gets, in one middleware (each layer costs a dispatch on the hot path):
 * - a request id, the caller's when plain, echoed in `x-request-id` and in every envelope;
 * - the headers every answer carries. API answers are not cached by default: several carry keys
 *   (RFC 6749 5.1, RFC 8628) or personal data. A route or page may set its own Cache-Control;
 * - one log line when it ends, with only these fields: never headers, query strings or bodies,
 *   which may carry keys, tokens and passwords.
 */
export function requestFrame(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    const incoming = ctx.get(REQUEST_ID_HEADER);
    const requestId = ACCEPTED.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    setHeader(ctx, REQUEST_ID_HEADER, requestId);
    setHeader(ctx, 'X-Content-Type-Options', 'nosniff');
    setHeader(ctx, 'Cache-Control', 'no-store');
    try {
      await next();
    } finally {
      logger.info(
        {
          requestId,
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
