import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import type { ChangeHub } from '../../domain/ontology/index.ts';
import type { RouteAccess } from '../../domain/policy/index.ts';
import { type AutoRefreshSink, startAutoRefresh, type WatchedPage, watchModulePage } from '../../domain/workshop/index.ts';
import { authenticate } from '../auth/authenticate.ts';
import type { ApiDeps } from '../deps.ts';
import { sseFrame } from '../http/event-stream.ts';

// The HTTP side of a module page's auto-refresh (domain/workshop/auto-refresh.ts): frames on a
// text/event-stream, and the credential checked again as the session asks.

export interface AutoRefreshStreamInput {
  ctx: Context;
  deps: ApiDeps;
  hub: ChangeHub;
  access: RouteAccess;
  rid: string;
  /** The page and the version opened (kept for the connection's life, even when another is published meanwhile). */
  query: { page: string; version: number };
  watched: WatchedPage;
  after: number | undefined;
}

export function autoRefreshStream(input: AutoRefreshStreamInput): PassThrough {
  const { ctx, deps } = input;
  const stream = new PassThrough();
  const sink: AutoRefreshSink = {
    send: (event, data, id) => void stream.write(sseFrame({ event, data, ...(id === undefined ? {} : { id }) })),
    heartbeat: (id) => void stream.write(`: keep-alive\nid: ${id}\n\n`),
    close: () => void stream.end(),
  };
  stream.write('retry: 2000\n\n');
  const session = startAutoRefresh({
    hub: input.hub,
    watched: input.watched,
    page: input.query.page,
    after: input.after,
    sink,
    logger: deps.logger,
    async recheck() {
      const principal = await authenticate(ctx, deps, input.access, { renewal: false, write: false });
      return watchModulePage(deps, principal, input.rid, input.query);
    },
  });
  ctx.req.on('close', () => session.stop());
  return stream;
}
