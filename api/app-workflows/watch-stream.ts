import type { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import { appOfCaller, lastRunEventSeq, listRunEvents } from '../../domain/app-workflows/index.ts';
import { DomainError } from '../../domain/errors.ts';
import type { RouteAccess } from '../../domain/policy/index.ts';
import { assertTicketsAllowed } from '../../domain/usage/index.ts';
import { authenticate } from '../auth/authenticate.ts';
import type { ApiDeps } from '../deps.ts';
import { polledEventStream } from '../http/event-stream.ts';

// The watch stream of an app's run progress (server-sent events). Each event carries its
// sequence number as `id`, so a client resumes with `Last-Event-ID` (or `?after=`). The caller's
// credential, the app and its compute minutes are checked again while it runs (api/http/event-stream.ts).
// `reset` says the sequence asked for is ahead of the server's (start over).

export function watchRuns(ctx: Context, deps: ApiDeps, access: RouteAccess, appId: string, after: number): PassThrough {
  const { namespace, slug } = ctx.params as { namespace: string; slug: string };
  let seq = after;
  return polledEventStream(
    ctx,
    deps,
    {
      async begin() {
        if (after <= (await lastRunEventSeq(deps.db, appId))) return [];
        seq = 0;
        return [{ event: 'reset', data: { after, reason: 'the sequence is ahead of this server; start from 0' } }];
      },
      async poll() {
        const events = await listRunEvents(deps.db, appId, seq);
        if (events.length) seq = events.at(-1)!.seq;
        return events.map(({ seq: at, event }) => ({ event: event.type, data: event, id: at }));
      },
      async recheck() {
        const principal = await authenticate(ctx, deps, access, { renewal: false, write: false });
        const { app } = await appOfCaller(deps, principal, { namespace, slug }, 'app.workflow.read-runs');
        if (app.id !== appId) throw new DomainError('app_not_found');
        await assertTicketsAllowed(deps.db, deps.clock, appId);
      },
      resumeAt: () => ({ after: seq }),
    },
    'workflow watch',
  );
}
