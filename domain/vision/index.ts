// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { addressAllowed, type CameraSettings } from './camera-client.ts';
export { type CameraService, createCameraService } from './cameras.ts';
export { deleteCamera } from './delete-camera.ts';
export { detectObjects } from './detect-objects.ts';
export { getCamera } from './get-camera.ts';
export { listCameras } from './list-cameras.ts';
export { LIVE_CONTENT_TYPE } from './live-hub.ts';
export { listModels } from './model-catalog.ts';
export { probeCamera } from './probe-camera.ts';
export { readKeyframe } from './read-keyframe.ts';
export { registerCamera } from './register-camera.ts';
export { updateCamera } from './update-camera.ts';
export { watchLive } from './watch-live.ts';
