import type { Principal } from '../principal.ts';
import { assertNotPaused, type CameraDeps, noteFailure, readableCamera, targetOf } from './camera-access.ts';
import { openCamera } from './camera-client.ts';
import { grabFrames } from './grab-frame.ts';

/** One current JPEG of the camera: the running live feed's last frame, else a new connection's first. */
export async function readKeyframe(deps: CameraDeps, principal: Principal, namespace: string, name: string): Promise<Buffer> {
  const row = await readableCamera(deps.db, principal, namespace, name);
  const live = deps.cameras.live.latest(row.id);
  if (live) return live;
  assertNotPaused(deps.clock, row);
  try {
    const res = await openCamera(targetOf(deps.cameras, row), deps.cameras.settings);
    return (await grabFrames(res, deps.cameras.settings)).first;
  } catch (err) {
    await noteFailure(deps, row, err);
    throw err;
  }
}
