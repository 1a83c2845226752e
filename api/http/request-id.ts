import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';

export const REQUEST_ID_HEADER = 'x-request-id';
// A caller's own id is kept for correlation only when it is short and plain.
const ACCEPTED = /^[A-Za-z0-9._:-]{8,128}$/;

export const requestId: Middleware = async (ctx, next) => {
  const incoming = ctx.get(REQUEST_ID_HEADER);
  ctx.state.requestId = ACCEPTED.test(incoming) ? incoming : randomUUID();
  ctx.set(REQUEST_ID_HEADER, ctx.state.requestId);
  await next();
};
