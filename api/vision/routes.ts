import { z } from 'zod';
import { DomainError } from '../../domain/errors.ts';
import {
  type CameraService,
  deleteCamera,
  detectObjects,
  getCamera,
  LIVE_CONTENT_TYPE,
  listCameras,
  listModels,
  probeCamera,
  readKeyframe,
  registerCamera,
  updateCamera,
  watchLive,
} from '../../domain/vision/index.ts';
import {
  CameraList,
  CameraParams,
  CameraProbe,
  CamerasParams,
  CameraView,
  CreateCameraInput,
  DETECT_LIMITS,
  DetectQuery,
  DetectResult,
  ModelCatalog,
  UpdateCameraInput,
} from '../../schemas/vision.ts';
import type { ApiDeps } from '../deps.ts';
import { readBodyBytes } from '../http/read-json-body.ts';
import { defineRoute } from '../http/route.ts';

// Vision cameras (spec G; issue 34): a company's HTTP snapshot and MJPEG cameras, read by its
// developers and members (and their app tickets, for the cameras the manifest lists), changed by
// its developers. docs/api/vision.md describes the whole interface.

const BASE = '/api/v1/developer/vision/{namespace}/cameras';
const READ_ERRORS = ['unauthorized', 'invalid_session', 'forbidden', 'invalid_path', 'camera_not_found', 'rate_limited'] as const;
const CONNECT_ERRORS = ['camera_unreachable', 'camera_timeout'] as const;

/** The process's camera service (set wherever HTTP is served). */
function camerasOf(deps: ApiDeps): CameraService {
  if (!deps.cameras) throw new DomainError('service_unavailable', 'Cameras are not served by this process.');
  return deps.cameras;
}
const cameraDeps = (deps: ApiDeps) => ({ db: deps.db, clock: deps.clock, cameras: camerasOf(deps) });

export const listCamerasRoute = defineRoute({
  method: 'get',
  path: BASE,
  operationId: 'listCameras',
  summary: 'The company’s cameras by name (an app ticket: those its manifest lists); credentials are never shown',
  tags: ['vision'],
  auth: 'credential',
  params: CamerasParams,
  response: { status: 200, description: 'The cameras.', schema: CameraList },
  errors: [...READ_ERRORS],
  handler: async ({ deps, principal, params }) => ({
    data: { cameras: await listCameras(deps.db, deps.clock, principal, params.namespace) },
  }),
});

export const createCameraRoute = defineRoute({
  method: 'post',
  path: BASE,
  operationId: 'createCamera',
  summary: 'Register a camera: an HTTP snapshot or MJPEG address, optional write-only Basic credentials',
  description:
    'The company’s developers. The address must be http(s) without user:password@; the credentials are sealed at once ' +
    '(AES-256-GCM, SVC_SECRET_KEYS) and never returned or logged. Nothing is contacted here: `probe` checks the camera.',
  tags: ['vision'],
  auth: 'credential',
  write: true,
  params: CamerasParams,
  body: CreateCameraInput,
  response: { status: 201, description: 'The camera.', schema: CameraView },
  errors: ['unauthorized', 'invalid_session', 'forbidden', 'invalid_path', 'organization_not_found', 'camera_name_exists', 'conflict'],
  handler: async ({ db, deps, principal, params, body }) => ({
    status: 201,
    data: await registerCamera(db, deps.clock, camerasOf(deps), principal, params.namespace, body),
  }),
});

export const getCameraRoute = defineRoute({
  method: 'get',
  path: `${BASE}/{name}`,
  operationId: 'getCamera',
  summary: 'One camera (never its credentials; `attemptsPausedUntil` while a rejected credential pauses attempts)',
  tags: ['vision'],
  auth: 'credential',
  params: CameraParams,
  response: { status: 200, description: 'The camera.', schema: CameraView },
  errors: [...READ_ERRORS],
  handler: async ({ deps, principal, params }) => ({
    data: await getCamera(deps.db, deps.clock, principal, params.namespace, params.name),
  }),
});

export const updateCameraRoute = defineRoute({
  method: 'patch',
  path: `${BASE}/{name}`,
  operationId: 'updateCamera',
  summary: 'Change a camera’s kind, address, maxViewers or credentials (null removes them); a new address or credential lifts a pause',
  tags: ['vision'],
  auth: 'credential',
  write: true,
  params: CameraParams,
  body: UpdateCameraInput,
  response: { status: 200, description: 'The camera.', schema: CameraView },
  errors: [...READ_ERRORS],
  handler: async ({ db, deps, principal, params, body }) => ({
    data: await updateCamera(db, deps.clock, camerasOf(deps), principal, params.namespace, params.name, body),
  }),
});

export const deleteCameraRoute = defineRoute({
  method: 'delete',
  path: `${BASE}/{name}`,
  operationId: 'deleteCamera',
  summary: 'Remove a camera and its sealed credentials; its live views end',
  tags: ['vision'],
  auth: 'credential',
  write: true,
  params: CameraParams,
  response: { status: 200, description: 'Removed.', schema: z.object({ name: z.string(), deleted: z.literal(true) }) },
  errors: [...READ_ERRORS],
  async handler({ db, deps, principal, params, afterCommit }) {
    const id = await deleteCamera(db, principal, params.namespace, params.name);
    afterCommit(async () => camerasOf(deps).live.close(id));
    return { data: { name: params.name, deleted: true as const } };
  },
});

export const probeCameraRoute = defineRoute({
  method: 'get',
  path: `${BASE}/{name}/probe`,
  operationId: 'probeCamera',
  summary: 'Connect to the camera and report format, resolution, frame rate and whether the credential was accepted',
  description:
    'A rejected credential (the camera answers 401 or 403) is reported here, `credential: rejected`, and pauses every attempt ' +
    'for 10 minutes (`attemptsPausedUntil`); while paused the camera is not contacted (`contacted: false`). Cameras that cannot ' +
    'be reached answer 502 camera_unreachable, silent ones 504 camera_timeout, each with `details.cause`.',
  tags: ['vision'],
  auth: 'credential',
  params: CameraParams,
  response: { status: 200, description: 'What the camera answered.', schema: CameraProbe },
  errors: [...READ_ERRORS, ...CONNECT_ERRORS],
  handler: async ({ deps, principal, params }) => ({
    data: await probeCamera(cameraDeps(deps), principal, params.namespace, params.name),
  }),
});

export const cameraKeyframeRoute = defineRoute({
  method: 'get',
  path: `${BASE}/{name}/keyframe`,
  operationId: 'getCameraKeyframe',
  summary: 'One current frame of the camera as image/jpeg',
  description:
    'The running live feed’s last frame when one runs, else a new connection’s first frame. While a rejected credential pauses ' +
    'attempts: 502 camera_unreachable with `details.cause: credential_rejected`, `details.retryAt` and Retry-After.',
  tags: ['vision'],
  auth: 'credential',
  params: CameraParams,
  envelope: false,
  responseType: 'image/jpeg',
  response: { status: 200, description: 'The JPEG.', schema: z.instanceof(Buffer) },
  errors: [...READ_ERRORS, ...CONNECT_ERRORS],
  handler: async ({ deps, principal, params }) => ({
    data: await readKeyframe(cameraDeps(deps), principal, params.namespace, params.name),
    headers: { 'Content-Type': 'image/jpeg', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' },
  }),
});

export const cameraLiveRoute = defineRoute({
  method: 'get',
  path: `${BASE}/{name}/live`,
  operationId: 'watchCameraLive',
  summary: 'The camera live as multipart/x-mixed-replace JPEG frames, shared with at most maxViewers viewers',
  description:
    'All viewers of a camera share one connection to it. Past `maxViewers` (default 4) the next viewer gets 429 camera_busy ' +
    '(Retry-After). On an app’s page (an app ticket) viewing time is metered as the app’s realtime compute minutes, and a new ' +
    'view answers 429 quota_exhausted once the month’s minutes are used up. The stream ends when the camera stops or is removed.',
  tags: ['vision'],
  auth: 'credential',
  params: CameraParams,
  envelope: false,
  responseType: LIVE_CONTENT_TYPE,
  response: { status: 200, description: 'multipart/x-mixed-replace; boundary=svcframe', schema: z.string() },
  errors: [...READ_ERRORS, ...CONNECT_ERRORS, 'camera_busy', 'quota_exhausted'],
  handler: async ({ deps, principal, params }) => ({
    data: (await watchLive(cameraDeps(deps), principal, params.namespace, params.name)) as unknown as string,
    headers: { 'Content-Type': LIVE_CONTENT_TYPE, 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' },
  }),
});

export const listModelsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/models',
  operationId: 'listModels',
  summary: 'The model catalog: the models installed on this service, their tasks, labels, weights and metering',
  description: 'Public (no credential), as the price list.',
  tags: ['models'],
  auth: 'none',
  response: { status: 200, description: 'The catalog.', schema: ModelCatalog },
  errors: ['rate_limited'],
  handler: async () => ({ data: listModels() }),
});

export const detectRoute = defineRoute({
  method: 'post',
  path: '/api/v1/models/vision/detect',
  operationId: 'detectVision',
  summary: 'Find faces in an image (the body) or in a camera’s current keyframe: boxes, labels and scores',
  description:
    'The body is the image (JPEG, PNG, WebP, GIF, AVIF or TIFF, at most 8 MiB); or, with an empty body, `namespace` and `camera` ' +
    'name a camera whose keyframe is analysed (camera access as for the keyframe route). The detector (SSD MobileNet v1 of ' +
    '@vladmandic/face-api, MIT weights shipped in the package) runs offline on worker threads, on the image scaled to fit ' +
    '640×640; boxes are in the original image’s pixels. Company developers by key or web session; an app ticket when its ' +
    'manifest lists `vision` in `models` (else 404 model_not_found). On an app page the time taken is metered as the app’s ' +
    'compute minutes, and calls answer 429 quota_exhausted once its compute minutes of the month, tokens of the day or model ' +
    'budget are used up.',
  tags: ['models'],
  auth: 'credential',
  query: DetectQuery,
  binaryBody: { description: 'The image bytes; empty when a camera is named.' },
  bodyLimit: DETECT_LIMITS.imageBytes,
  response: { status: 200, description: 'What was found.', schema: DetectResult },
  errors: [
    'unauthorized',
    'invalid_session',
    'forbidden',
    'invalid_payload',
    'payload_too_large',
    'rate_limited',
    'image_undecodable',
    'model_not_found',
    'quota_exhausted',
    'timeout',
    ...READ_ERRORS,
    ...CONNECT_ERRORS,
  ],
  // The bytes are read before anything else: the detection itself writes only the app's usage.
  prepare: ({ ctx }) => readBodyBytes(ctx, DETECT_LIMITS.imageBytes),
  handler: async ({ deps, principal, query, prepared }) => ({
    data: await detectObjects(cameraDeps(deps), principal, query, prepared),
  }),
});

export const visionRoutes = [
  listCamerasRoute,
  createCameraRoute,
  getCameraRoute,
  updateCameraRoute,
  deleteCameraRoute,
  probeCameraRoute,
  cameraKeyframeRoute,
  cameraLiveRoute,
  listModelsRoute,
  detectRoute,
];
