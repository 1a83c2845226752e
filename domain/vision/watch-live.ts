import type { PassThrough } from 'node:stream';
import type { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { assertTicketsAllowed, recordUsage } from '../usage/index.ts';
import { assertNotPaused, type CameraDeps, noteFailure, readableCamera, targetOf } from './camera-access.ts';

/** A long view is metered every minute, not only when it ends. */
const METER_EVERY_MS = 60_000;

/**
 * A live view of the camera (multipart MJPEG), shared with its other viewers (LiveHub). On an app's
 * page (its ticket) the viewing time is metered as the app's realtime compute minutes
 * (`compute.live`), and a new view is refused with 429 quota_exhausted once the month's minutes
 * are used up. Keys and web sessions watch outside any app: nothing is metered.
 */
export async function watchLive(deps: CameraDeps, principal: Principal, namespace: string, name: string): Promise<PassThrough> {
  const row = await readableCamera(deps.db, principal, namespace, name);
  assertNotPaused(deps.clock, row);
  const appId = principal.kind === 'ticket' ? principal.ticket.appId : null;
  if (appId) await assertTicketsAllowed(deps.db, deps.clock, appId);
  const target = targetOf(deps.cameras, row);
  const onFailure = (err: DomainError) => void noteFailure(deps, row, err).catch(() => {});
  const stream = await deps.cameras.live.join(
    { id: row.id, name: row.name, kind: row.kind, maxViewers: row.max_viewers },
    target,
    onFailure,
  );
  if (appId) {
    let since = performance.now();
    const meter = () => {
      const now = performance.now();
      // Whole milliseconds, rounded up: a started view never counts as nothing.
      const amount = Math.ceil(now - since);
      since = now;
      return recordUsage(deps.db, [{ appId, meter: 'compute.live', amount, at: deps.clock.now() }]).catch(() => {});
    };
    const timer = setInterval(meter, METER_EVERY_MS);
    stream.once('close', () => {
      clearInterval(timer);
      void meter();
    });
  }
  return stream;
}
