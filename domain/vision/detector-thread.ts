// Thread entry of the detection pool (detect-objects.ts): face-api's SSD MobileNet v1 face detector
// on TensorFlow.js's WASM backend, loaded once per thread from the weights inside the npm package
// (MIT), so it runs with no network. One decoded RGB image per message; one answer each.
import { createRequire } from 'node:module';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import * as faceapi from '@vladmandic/face-api/dist/face-api.node-wasm.js';

export interface DetectJob {
  rgb: Uint8Array;
  width: number;
  height: number;
  minConfidence: number;
  maxResults: number;
}

export type DetectAnswer =
  | { ok: true; faces: { x: number; y: number; width: number; height: number; score: number }[] }
  | { ok: false; message: string };

// The package's folder, wherever it is installed (never the working directory).
const MODEL_DIR = path.join(path.dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')), 'model');

// The bundled tfjs's declarations omit the backend functions it has.
const tf = faceapi.tf as unknown as { setBackend(name: string): Promise<boolean>; ready(): Promise<void> };

const ready = (async () => {
  await tf.setBackend('wasm');
  await tf.ready();
  await faceapi.nets.ssdMobilenetv1.loadFromDisk(MODEL_DIR);
})();

async function detect(job: DetectJob): Promise<DetectAnswer> {
  await ready;
  const image = faceapi.tf.tensor3d(job.rgb, [job.height, job.width, 3], 'int32');
  try {
    const found = await faceapi.detectAllFaces(
      image as never,
      new faceapi.SsdMobilenetv1Options({ minConfidence: job.minConfidence, maxResults: job.maxResults }),
    );
    return { ok: true, faces: found.map((d) => ({ x: d.box.x, y: d.box.y, width: d.box.width, height: d.box.height, score: d.score })) };
  } finally {
    image.dispose();
  }
}

parentPort?.on('message', (job: DetectJob) => {
  detect(job).then(
    (answer) => parentPort?.postMessage(answer),
    (err: unknown) => parentPort?.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) }),
  );
});
