import type { Context } from 'koa';

/**
 * `ctx.set` for the headers every answer carries, without Koa's per-call arrays (its `set` builds
 * an entries array, maps it and walks it again for one header: about 300 bytes each, several
 * headers a request). Only before the answer's headers are sent, with a string value, as every
 * caller here is: Node still checks the name and value.
 */
export function setHeader(ctx: Context, name: string, value: string): void {
  ctx.res.setHeader(name, value);
}
