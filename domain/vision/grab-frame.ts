import type { DomainError } from '../errors.ts';
import { type CameraResponse, type CameraSettings, readMjpeg, readSnapshot } from './camera-client.ts';

/** What a camera answered with, judged by its content type rather than the configured kind (probe reports it). */
export const formatOf = (res: CameraResponse): 'jpeg' | 'mjpeg' => (/^multipart\//i.test(res.contentType) ? 'mjpeg' : 'jpeg');

/**
 * The first frame of an answer (a snapshot's body, or an MJPEG stream's first part) and, for a
 * stream, the arrival times of up to `frames` frames within `windowMs`, for a frame rate.
 */
export async function grabFrames(
  res: CameraResponse,
  settings: CameraSettings,
  sample: { frames: number; windowMs: number } = { frames: 1, windowMs: 0 },
): Promise<{ first: Buffer; times: number[] }> {
  if (formatOf(res) === 'jpeg') return { first: await readSnapshot(res, settings.timeoutMs), times: [performance.now()] };
  let first: Buffer | undefined;
  const times: number[] = [];
  try {
    await readMjpeg(res, settings.timeoutMs, (jpeg) => {
      first ??= jpeg;
      times.push(performance.now());
      return times.length >= sample.frames || times.at(-1)! - times[0]! >= sample.windowMs;
    });
  } catch (err) {
    // A stream that stalls or drops after its first frame still answered: what arrived counts.
    if (!first) throw err as DomainError;
  }
  return { first: first!, times };
}
