import type { CameraView } from '../../schemas/vision.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import type { Principal } from '../principal.ts';
import { readableCamera } from './camera-access.ts';
import { cameraView } from './repository.ts';

/** One camera as the caller may read it (never its credential). */
export async function getCamera(db: DbOrTrx, clock: Clock, principal: Principal, namespace: string, name: string): Promise<CameraView> {
  return cameraView(await readableCamera(db, principal, namespace, name), clock.now());
}
