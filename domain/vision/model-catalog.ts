import { createRequire } from 'node:module';
import type { ModelCatalog } from '../../schemas/vision.ts';

const facePackage = createRequire(import.meta.url)('@vladmandic/face-api/package.json') as { version: string; license: string };

/** The detector's id in the catalog, in manifests' `models` and in the price list. */
export const VISION_MODEL = 'vision';

/** What is installed on this service (public: spec Authentication 3). Read from the package that ships the weights. */
export function listModels(): ModelCatalog {
  return {
    models: [
      {
        id: VISION_MODEL,
        tasks: ['detect'],
        labels: ['face'],
        route: 'POST /api/v1/models/vision/detect',
        engine: 'SSD MobileNet v1 face detector on TensorFlow.js (WASM backend), in worker threads',
        weights: { package: '@vladmandic/face-api', version: facePackage.version, license: facePackage.license },
        offline: true,
        metering: 'compute minutes (compute.model) of the calling app; refused with 429 quota_exhausted past its limits',
      },
    ],
  };
}
