import type { SecretBox } from '../security/index.ts';
import type { CameraSettings } from './camera-client.ts';
import { LiveHub } from './live-hub.ts';

/** How this process reaches cameras: settings, its live feeds, and the sealer of their credentials (bound to the camera's id). */
export interface CameraService {
  settings: CameraSettings;
  live: LiveHub;
  secrets: SecretBox;
}

export function createCameraService(settings: CameraSettings, secrets: SecretBox): CameraService {
  return { settings, live: new LiveHub(settings), secrets };
}
