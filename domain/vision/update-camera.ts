import type { CameraView, UpdateCameraInput } from '../../schemas/vision.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { noCamera } from './camera-access.ts';
import type { CameraService } from './cameras.ts';
import { sealCredential } from './register-camera.ts';
import { cameraView, findCamera, findCompanyByCell } from './repository.ts';

/**
 * Changes a camera. A new address or credential lifts a pause after a rejected credential (the
 * developer fixed what was wrong); `credentials: null` removes them. Live feeds already running
 * keep their connection until their viewers leave.
 */
export async function updateCamera(
  db: DbOrTrx,
  clock: Clock,
  cameras: CameraService,
  principal: Principal,
  namespace: string,
  name: string,
  input: UpdateCameraInput,
): Promise<CameraView> {
  authorize(principal, 'camera.manage', { namespace });
  const company = await findCompanyByCell(db, namespace);
  const row = company && (await findCamera(db, company.id, name));
  if (!row) throw noCamera(namespace, name);
  const credential =
    input.credentials === undefined
      ? {}
      : input.credentials === null
        ? { credential_sealed: null, credential_key_id: null }
        : sealCredential(cameras, row.id, input.credentials);
  const retry = input.url !== undefined || input.credentials !== undefined;
  const updated = await db
    .updateTable('cameras')
    .set({
      ...(input.kind ? { kind: input.kind } : {}),
      ...(input.url ? { url: input.url } : {}),
      ...(input.maxViewers ? { max_viewers: input.maxViewers } : {}),
      ...credential,
      ...(retry ? { credential_rejected_at: null } : {}),
      updated_at: clock.now(),
    })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return cameraView(updated, clock.now());
}
