import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import { appOfCaller, lastRunEventSeq, listRunEvents } from '../../domain/app-workflows/index.ts';
import { DomainError } from '../../domain/errors.ts';
import type { RouteAccess } from '../../domain/policy/index.ts';
import { assertTicketsAllowed } from '../../domain/usage/index.ts';
import { ERRORS } from '../../schemas/errors.ts';
import { authenticate } from '../auth/authenticate.ts';
import type { ApiDeps } from '../deps.ts';

// The watch stream of an app's run progress (server-sent events). Each event carries its
// sequence number as `id`, so a client resumes with `Last-Event-ID` (or `?after=`). Every few
// seconds the caller's credential, the app and its compute minutes are checked again: a 401,
// 403, 404 or quota_exhausted ends the stream with an `end` event, which clients must not
// reconnect after. `reset` says the sequence asked for is ahead of the server's (start over).

const POLL_MS = 500;
const RECHECK_MS = 5_000;
const HEARTBEAT_MS = 15_000;
/** A server-side bound; the client reconnects with its last id. */
const MAX_STREAM_MS = 280_000;

const frame = (event: string, data: unknown, id?: number) =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

export function watchRuns(ctx: Context, deps: ApiDeps, access: RouteAccess, appId: string, after: number): PassThrough {
  const stream = new PassThrough();
  let open = true;
  const close = () => {
    open = false;
    stream.end();
  };
  ctx.req.on('close', () => {
    open = false;
  });
  const { namespace, slug } = ctx.params as { namespace: string; slug: string };

  const recheck = async (): Promise<DomainError | undefined> => {
    try {
      const principal = await authenticate(ctx, deps, access, { renewal: false, write: false });
      const { app } = await appOfCaller(deps, principal, { namespace, slug }, 'app.workflow.read-runs');
      if (app.id !== appId) throw new DomainError('app_not_found');
      await assertTicketsAllowed(deps.db, deps.clock, appId);
      return undefined;
    } catch (err) {
      if (err instanceof DomainError && [401, 403, 404, 429].includes(ERRORS[err.code].status)) return err;
      throw err;
    }
  };

  void (async () => {
    let seq = after;
    stream.write('retry: 2000\n\n');
    if (after > (await lastRunEventSeq(deps.db, appId))) {
      stream.write(frame('reset', { after, reason: 'the sequence is ahead of this server; start from 0' }));
      seq = 0;
    }
    const started = Date.now();
    let checked = Date.now();
    let beat = Date.now();
    while (open) {
      for (const { seq: at, event } of await listRunEvents(deps.db, appId, seq)) {
        stream.write(frame(event.type, event, at));
        seq = at;
      }
      const now = Date.now();
      if (now - checked >= RECHECK_MS) {
        checked = now;
        const ended = await recheck();
        if (ended) {
          stream.write(frame('end', { code: ended.code, status: ERRORS[ended.code].status, message: ended.message }));
          return close();
        }
      }
      if (now - started >= MAX_STREAM_MS) {
        stream.write(frame('reconnect', { after: seq }));
        return close();
      }
      if (now - beat >= HEARTBEAT_MS) {
        beat = now;
        stream.write(': keep-alive\n\n');
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    close();
  })().catch((err: unknown) => {
    deps.logger.warn({ err, appId }, 'workflow watch stream failed');
    close();
  });
  return stream;
}
