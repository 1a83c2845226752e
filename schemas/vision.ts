import { z } from 'zod';
import { CellId } from './identity.ts';
import { SLUG_PATTERN } from './manifest/index.ts';

// Camera contracts (spec G "Vision cameras", Limits "camera"): a company's HTTP snapshot or MJPEG
// camera, its write-only credential, and what probe, keyframe and live answer.

export const CAMERA_LIMITS = {
  /** Spec Limits: at most maxViewers (default 4) per camera. */
  defaultMaxViewers: 4,
  maxViewers: 16,
  /** Spec manifest: at most 16 cameras an app lists; a company may register more. */
  camerasPerCompany: 200,
  /** A rejected credential stops attempts for this long (spec Limits: camera). */
  rejectedPauseMs: 10 * 60_000,
  /** Largest JPEG frame or snapshot read from a camera. */
  frameBytes: 8 * 1024 * 1024,
} as const;

export const CameraName = z.string().regex(SLUG_PATTERN, 'must be a lowercase kebab name (the manifest’s `cameras` pattern)');
export const CameraParams = z.object({ namespace: CellId, name: CameraName });
export const CamerasParams = z.object({ namespace: CellId });

export const CAMERA_KINDS = ['snapshot', 'mjpeg'] as const;

const CameraUrl = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.username === '' && u.password === '' && u.hash === '';
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// address without user:password@ or #fragment (credentials go in `credentials`)')
  .meta({ description: 'The camera’s snapshot (one JPEG per GET) or MJPEG (multipart/x-mixed-replace) address.' });

/** No control characters (they would end or split the Authorization header). */
const printable = (v: string) => ![...v].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

const Credentials = z
  .strictObject({
    username: z
      .string()
      .min(1)
      .max(256)
      .refine((v) => printable(v) && !v.includes(':'), 'no colon or control characters'),
    password: z.string().max(256).refine(printable, 'no control characters'),
  })
  .meta({ description: 'HTTP Basic credentials, write-only: stored sealed and never returned or logged.' });

export const CreateCameraInput = z.strictObject({
  name: CameraName,
  kind: z.enum(CAMERA_KINDS),
  url: CameraUrl,
  maxViewers: z.number().int().min(1).max(CAMERA_LIMITS.maxViewers).default(CAMERA_LIMITS.defaultMaxViewers),
  credentials: Credentials.optional(),
});
export type CreateCameraInput = z.output<typeof CreateCameraInput>;

export const UpdateCameraInput = z.strictObject({
  kind: z.enum(CAMERA_KINDS).optional(),
  url: CameraUrl.optional(),
  maxViewers: z.number().int().min(1).max(CAMERA_LIMITS.maxViewers).optional(),
  credentials: Credentials.nullable().optional().meta({ description: 'New credentials; null removes them.' }),
});
export type UpdateCameraInput = z.output<typeof UpdateCameraInput>;

export const CameraView = z.object({
  name: z.string(),
  kind: z.enum(CAMERA_KINDS),
  url: z.string(),
  maxViewers: z.number().int(),
  /** Whether credentials are stored (they are never shown). */
  credentials: z.enum(['set', 'none']),
  /** Set while attempts are paused after the camera refused the credential. */
  attemptsPausedUntil: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type CameraView = z.output<typeof CameraView>;

export const CameraList = z.object({ cameras: z.array(CameraView) });

export const CameraProbe = z.object({
  name: z.string(),
  /** false: attempts are paused after a rejected credential and the camera was not contacted. */
  contacted: z.boolean(),
  credential: z.enum(['none', 'accepted', 'rejected']),
  attemptsPausedUntil: z.string().nullable(),
  /** What the camera answered (null when it was not contacted or refused the credential). */
  format: z.enum(['jpeg', 'mjpeg']).nullable(),
  contentType: z.string().nullable(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  /** Frames per second measured over the first frames of an MJPEG stream; null for snapshots. */
  frameRate: z.number().nullable(),
  /** Time to the first frame, in milliseconds. */
  latencyMs: z.number().int().nullable(),
});
export type CameraProbe = z.output<typeof CameraProbe>;

// Detection (POST /api/v1/models/vision/detect) and the model catalog (GET /api/v1/models).

export const DETECT_LIMITS = {
  /** Largest image body. */
  imageBytes: 8 * 1024 * 1024,
  /** Images are decoded at most this large (pixels), whatever their header claims. */
  inputPixels: 40_000_000,
  /** The detector sees the image scaled to fit this square (boxes are given in the original's pixels). */
  detectSide: 640,
} as const;

export const DetectQuery = z.strictObject({
  namespace: CellId.optional().meta({ description: 'With `camera`: the company of the camera whose keyframe is analysed.' }),
  camera: CameraName.optional().meta({ description: 'Analyse this camera’s current keyframe instead of a body.' }),
  minConfidence: z.coerce.number().min(0.05).max(1).default(0.5),
  maxResults: z.coerce.number().int().min(1).max(100).default(20),
});
export type DetectQuery = z.output<typeof DetectQuery>;

export const Detection = z.object({
  label: z.string(),
  score: z.number(),
  /** In pixels of the analysed image, origin top left. */
  box: z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() }),
});
export type Detection = z.output<typeof Detection>;

export const DetectResult = z.object({
  model: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  detections: z.array(Detection),
  /** Server time spent (decoding and detection), metered as compute minutes on an app page. */
  computeMs: z.number().int(),
});
export type DetectResult = z.output<typeof DetectResult>;

export const ModelEntry = z.object({
  id: z.string(),
  tasks: z.array(z.string()),
  labels: z.array(z.string()),
  route: z.string(),
  engine: z.string(),
  weights: z.object({ package: z.string(), version: z.string(), license: z.string() }),
  /** Runs on the service's machine with no network. */
  offline: z.boolean(),
  metering: z.string(),
});
export const ModelCatalog = z.object({ models: z.array(ModelEntry) });
export type ModelCatalog = z.output<typeof ModelCatalog>;
