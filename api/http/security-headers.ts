import type { Middleware } from 'koa';

/**
 * Headers every answer carries. API answers are not cached by default: several carry keys
 * (RFC 6749 5.1, RFC 8628) or personal data. A route or page may set its own Cache-Control.
 */
export const securityHeaders: Middleware = async (ctx, next) => {
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', 'no-store');
  await next();
};
