import type { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import { type LogFollow, logScope } from '../../domain/app-log/index.ts';
import type { RouteAccess } from '../../domain/policy/index.ts';
import { authenticate } from '../auth/authenticate.ts';
import type { ApiDeps } from '../deps.ts';
import { polledEventStream } from '../http/event-stream.ts';

// The app log as server-sent events: each record is a `log` event whose id is its resume point
// (`Last-Event-ID` or `?after=`); the caller's credential and right to read the log are checked
// again while it runs, as on every polled stream (api/http/event-stream.ts).

export function followLog(
  ctx: Context,
  deps: ApiDeps,
  access: RouteAccess,
  scope: { namespace: string; slug: string | undefined },
  follow: LogFollow,
): PassThrough {
  return polledEventStream(
    ctx,
    deps,
    {
      poll: async () => (await follow.read()).map(({ event, cursor }) => ({ event: 'log', data: event, id: cursor })),
      async recheck() {
        const principal = await authenticate(ctx, deps, access, { renewal: false, write: false });
        await logScope(deps.db, principal, scope.namespace, scope.slug);
      },
      resumeAt: () => ({ after: follow.resumeAt() }),
    },
    'app log',
  );
}
