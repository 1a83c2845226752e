import { CAMERA_LIMITS } from '../../schemas/vision.ts';
import { loadVersion } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock, DomainDeps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import type { CameraTarget } from './camera-client.ts';
import type { CameraService } from './cameras.ts';
import { type CameraRow, findCamera, findCompanyByCell, pausedUntil } from './repository.ts';

export type CameraDeps = Pick<DomainDeps, 'db' | 'clock'> & { cameras: CameraService };

/** The cameras an app ticket's manifest lists; null for other credentials. */
export async function appCamerasOf(db: DbOrTrx, principal: Principal): Promise<readonly string[] | null> {
  if (principal.kind !== 'ticket') return null;
  return (await loadVersion(db, principal.ticket.versionId)).manifest.cameras;
}

export const noCamera = (namespace: string, name: string) =>
  new DomainError('camera_not_found', `No camera ${name} in ${namespace}.`, { details: { namespace, camera: name } });

/** A camera the caller may read (camera.read), or camera_not_found. */
export async function readableCamera(db: DbOrTrx, principal: Principal, namespace: string, name: string): Promise<CameraRow> {
  authorize(principal, 'camera.read', { namespace, camera: name, appCameras: await appCamerasOf(db, principal) });
  const company = await findCompanyByCell(db, namespace);
  const row = company && (await findCamera(db, company.id, name));
  if (!row) throw noCamera(namespace, name);
  return row;
}

/** The address and opened credential to connect with (the credential exists only in memory, for this connection). */
export function targetOf(cameras: CameraService, row: CameraRow): CameraTarget {
  if (!row.credential_sealed || !row.credential_key_id) return { url: row.url, credential: null };
  const opened = cameras.secrets.open({ keyId: row.credential_key_id, sealed: row.credential_sealed }, row.id);
  return { url: row.url, credential: JSON.parse(opened) as { username: string; password: string } };
}

/** Refuses while attempts are paused after a rejected credential (spec Limits: camera). */
export function assertNotPaused(clock: Clock, row: CameraRow): void {
  const now = clock.now();
  const until = pausedUntil(row, now);
  if (!until) return;
  throw new DomainError(
    'camera_unreachable',
    `The camera rejected its credential; no attempt is made until ${until.toISOString()}. Update the camera's credentials to try again at once.`,
    {
      details: { cause: 'credential_rejected', retryAt: until.toISOString() },
      retryAfterSeconds: Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000)),
    },
  );
}

export const credentialRejected = (err: unknown) => err instanceof DomainError && err.details?.cause === 'credential_rejected';

/**
 * A failure that is a rejected credential pauses attempts for CAMERA_LIMITS.rejectedPauseMs: written
 * on the pool, so it holds whatever the request does next. A camera with no credential asking for
 * one is not paused (there is nothing to reject).
 */
export async function noteFailure(deps: CameraDeps, row: CameraRow, err: unknown): Promise<Date | null> {
  if (!credentialRejected(err) || !row.credential_sealed) return null;
  const at = deps.clock.now();
  await deps.db.updateTable('cameras').set({ credential_rejected_at: at }).where('id', '=', row.id).execute();
  return new Date(at.getTime() + CAMERA_LIMITS.rejectedPauseMs);
}
