import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import { DomainError } from '../../domain/errors.ts';
import { ERRORS } from '../../schemas/errors.ts';
import type { ApiDeps } from '../deps.ts';

// The machinery of a polled server-sent events stream (workflow run progress, the app log): new
// events every POLL_MS, the credential and access re-checked every RECHECK_MS (a 401, 403, 404 or
// 429 ends the stream with an `end` event that clients must not reconnect after), a keep-alive
// comment, and after MAX_STREAM_MS a `reconnect` event carrying the resume point.

const POLL_MS = 500;
const RECHECK_MS = 5_000;
const HEARTBEAT_MS = 15_000;
/** A server-side bound (spec Events: about 280 seconds per connection); the client reconnects with its last id. */
const MAX_STREAM_MS = 280_000;

/** One server-sent event: its id is the resume point it brings the client to. */
export interface StreamFrame {
  event: string;
  data: unknown;
  id?: string | number;
}

export const sseFrame = ({ event, data, id }: StreamFrame) =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** The headers of an event stream answer. */
export const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' };

export interface PolledSource {
  /** Frames to send first (e.g. `reset` when the resume point is unknown). */
  begin?: () => Promise<StreamFrame[]>;
  /** The events after the source's own resume point, which it moves on. */
  poll: () => Promise<StreamFrame[]>;
  /** Throws the DomainError that ends the stream when the caller may no longer read it. */
  recheck: () => Promise<void>;
  /** The data of the `reconnect` event: where the client resumes. */
  resumeAt: () => unknown;
}

export function polledEventStream(ctx: Context, deps: ApiDeps, source: PolledSource, label: string): PassThrough {
  const stream = new PassThrough();
  let open = true;
  const close = () => {
    open = false;
    stream.end();
  };
  ctx.req.on('close', () => {
    open = false;
  });
  const ended = async (): Promise<DomainError | undefined> => {
    try {
      await source.recheck();
      return undefined;
    } catch (err) {
      if (err instanceof DomainError && [401, 403, 404, 429].includes(ERRORS[err.code].status)) return err;
      throw err;
    }
  };

  void (async () => {
    stream.write('retry: 2000\n\n');
    for (const frame of (await source.begin?.()) ?? []) stream.write(sseFrame(frame));
    const started = Date.now();
    let checked = Date.now();
    let beat = Date.now();
    while (open) {
      for (const frame of await source.poll()) stream.write(sseFrame(frame));
      const now = Date.now();
      if (now - checked >= RECHECK_MS) {
        checked = now;
        const end = await ended();
        if (end) {
          stream.write(sseFrame({ event: 'end', data: { code: end.code, status: ERRORS[end.code].status, message: end.message } }));
          return close();
        }
      }
      if (now - started >= MAX_STREAM_MS) {
        stream.write(sseFrame({ event: 'reconnect', data: source.resumeAt() }));
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
    deps.logger.warn({ err }, `${label} stream failed`);
    close();
  });
  return stream;
}
