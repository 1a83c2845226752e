import type { CameraProbe } from '../../schemas/vision.ts';
import type { Principal } from '../principal.ts';
import { type CameraDeps, credentialRejected, noteFailure, readableCamera, targetOf } from './camera-access.ts';
import { openCamera } from './camera-client.ts';
import { formatOf, grabFrames } from './grab-frame.ts';
import { pausedUntil } from './repository.ts';

/** Frames and time a probe samples an MJPEG stream for its frame rate. */
const PROBE_SAMPLE = { frames: 10, windowMs: 2_000 };

/**
 * Connects to the camera and reports what it answers: format, resolution, frame rate, whether the
 * credential was accepted. A rejected credential is an answer here (with the pause it starts);
 * while attempts are paused the camera is not contacted and the probe says until when.
 * Unreachable and silent cameras fail with camera_unreachable / camera_timeout and their cause.
 */
export async function probeCamera(deps: CameraDeps, principal: Principal, namespace: string, name: string): Promise<CameraProbe> {
  const row = await readableCamera(deps.db, principal, namespace, name);
  const answer = (fields: Partial<CameraProbe>): CameraProbe => ({
    name,
    contacted: true,
    credential: row.credential_sealed ? 'accepted' : 'none',
    attemptsPausedUntil: null,
    format: null,
    contentType: null,
    width: null,
    height: null,
    frameRate: null,
    latencyMs: null,
    ...fields,
  });
  const paused = pausedUntil(row, deps.clock.now());
  if (paused) return answer({ contacted: false, credential: 'rejected', attemptsPausedUntil: paused.toISOString() });
  const started = performance.now();
  try {
    const res = await openCamera(targetOf(deps.cameras, row), deps.cameras.settings);
    const format = formatOf(res);
    const { first, times } = await grabFrames(res, deps.cameras.settings, PROBE_SAMPLE);
    // Loaded on first use: a process that never looks at an image does not carry libvips.
    const { default: sharp } = await import('sharp');
    const { width, height } = await sharp(first).metadata();
    const span = times.length > 1 ? times.at(-1)! - times[0]! : 0;
    return answer({
      format,
      contentType: res.contentType,
      width: width ?? null,
      height: height ?? null,
      frameRate: format === 'mjpeg' && span > 0 ? Math.round(((times.length - 1) * 1000 * 10) / span) / 10 : null,
      latencyMs: Math.round(times[0]! - started),
    });
  } catch (err) {
    const until = await noteFailure(deps, row, err);
    if (until && credentialRejected(err)) return answer({ credential: 'rejected', attemptsPausedUntil: until.toISOString() });
    throw err;
  }
}
