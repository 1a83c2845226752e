import { DETECT_LIMITS, type DetectQuery, type DetectResult } from '../../schemas/vision.ts';
import { loadVersion } from '../apps/index.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { tenantOf } from '../rate-limit/index.ts';
import { SPARE_CORES, WorkerPool, WorkerTimeoutError } from '../threads/index.ts';
import { assertModelCallAllowed, assertTicketsAllowed, recordUsage } from '../usage/index.ts';
import type { CameraDeps } from './camera-access.ts';
import type { DetectAnswer, DetectJob } from './detector-thread.ts';
import { VISION_MODEL } from './model-catalog.ts';
import { readKeyframe } from './read-keyframe.ts';

// Detection runs on worker threads (domain/threads): the WASM detector takes a core for up to a
// few hundred milliseconds per image, which must never hold the event loop. At most two threads
// (each holds the model, about 60 MB); images wait in order for a free one.
const threads = new WorkerPool<DetectJob, DetectAnswer>({
  script: new URL('./detector-thread.ts', import.meta.url),
  size: Math.min(2, SPARE_CORES),
  // CPU time of one detection, the thread's first model load included: far above a 640-pixel image's.
  timeLimitMs: 30_000,
});

/** The models an app ticket's manifest lists (spec Authentication 8); null for keys and sessions. */
async function appModelsOf(deps: CameraDeps, principal: Principal): Promise<readonly string[] | null> {
  return principal.kind === 'ticket' ? (await loadVersion(deps.db, principal.ticket.versionId)).manifest.models : null;
}

/** The image as RGB bytes no larger than the detector's square, and the factor back to its own pixels. */
async function decode(image: Buffer) {
  // Loaded on first use, as in probe: libvips only in a process that decodes images.
  const { default: sharp } = await import('sharp');
  try {
    const source = sharp(image, { limitInputPixels: DETECT_LIMITS.inputPixels, failOn: 'error' });
    const { width = 0, height = 0 } = await source.metadata();
    const { data, info } = await source
      .rotate()
      .removeAlpha()
      .resize({ width: DETECT_LIMITS.detectSide, height: DETECT_LIMITS.detectSide, fit: 'inside', withoutEnlargement: true })
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { rgb: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), info, width, height };
  } catch {
    throw new DomainError('image_undecodable', 'The image could not be decoded (JPEG, PNG, WebP, GIF, AVIF or TIFF).');
  }
}

/**
 * Faces in an image (the body) or in a camera's current keyframe, with boxes in the image's own
 * pixels. On an app page (an app ticket) the app's manifest must list `vision`, the call is
 * refused with 429 quota_exhausted when the app's compute minutes of the month or its model
 * budget are used up, and the server time it took is metered as compute minutes (`compute.model`).
 */
export async function detectObjects(deps: CameraDeps, principal: Principal, query: DetectQuery, body: Buffer): Promise<DetectResult> {
  authorize(principal, 'model.call', { model: VISION_MODEL, appModels: await appModelsOf(deps, principal) });
  const appId = principal.kind === 'ticket' ? principal.ticket.appId : null;
  if (appId) {
    await assertTicketsAllowed(deps.db, deps.clock, appId);
    await assertModelCallAllowed(deps.db, deps.clock, appId);
  }
  if ((query.camera === undefined) !== (query.namespace === undefined)) {
    throw new DomainError('invalid_payload', 'Name a camera by both `namespace` and `camera`, or send the image as the body.');
  }
  if (query.camera === undefined && body.length === 0)
    throw new DomainError('invalid_payload', 'Send an image as the body, or name a camera.');
  const image = query.camera === undefined ? body : await readKeyframe(deps, principal, query.namespace!, query.camera);
  const started = performance.now();
  const { rgb, info, width, height } = await decode(image);
  let answer: DetectAnswer;
  try {
    answer = await threads.run(
      {
        rgb,
        width: info.width,
        height: info.height,
        minConfidence: query.minConfidence,
        maxResults: query.maxResults,
      },
      tenantOf(principal),
    );
  } catch (err) {
    if (err instanceof WorkerTimeoutError) throw new DomainError('timeout', 'Detection took too long; retry.');
    throw err;
  }
  if (!answer.ok) throw new Error(`detection failed: ${answer.message}`);
  const computeMs = Math.ceil(performance.now() - started);
  if (appId) await recordUsage(deps.db, [{ appId, meter: 'compute.model', amount: computeMs, at: deps.clock.now() }]);
  // Rotated images swap their sides: the scale is taken from the decoded (upright) image.
  const scale = Math.max(width, height) / Math.max(info.width, info.height);
  const upright = info.width >= info.height === width >= height ? { width, height } : { width: height, height: width };
  const round = (n: number) => Math.round(n * scale * 10) / 10;
  return {
    model: VISION_MODEL,
    ...upright,
    detections: answer.faces.map((f) => ({
      label: 'face',
      score: Math.round(f.score * 1000) / 1000,
      box: { x: round(f.x), y: round(f.y), width: round(f.width), height: round(f.height) },
    })),
    computeMs,
  };
}
