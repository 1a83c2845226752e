import type { CameraView } from '../../schemas/vision.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { appCamerasOf } from './camera-access.ts';
import { cameraRows, cameraView, findCompanyByCell } from './repository.ts';

/** The company's cameras by name; for an app ticket only those its manifest lists. */
export async function listCameras(db: DbOrTrx, clock: Clock, principal: Principal, namespace: string): Promise<CameraView[]> {
  const listed = await appCamerasOf(db, principal);
  authorize(principal, 'camera.read', { namespace, camera: null, appCameras: listed });
  const company = await findCompanyByCell(db, namespace);
  if (!company) return [];
  let rows = cameraRows(db, company.id).orderBy('name');
  if (listed !== null) rows = listed.length === 0 ? rows.where('name', 'is', null) : rows.where('name', 'in', listed);
  const now = clock.now();
  return (await rows.execute()).map((row) => cameraView(row, now));
}
