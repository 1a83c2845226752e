// Vision: face detection (POST /api/v1/models/vision/detect) on a 640×480 photo through the
// service, its latency one at a time and its throughput with the worker pool busy, counted in
// images per second per core (the process's CPU time: main thread and detector threads); and the
// live proxy's CPU per viewer of one MJPEG camera (test camera on loopback, 320×240 at 25 frames/s).
// Baselines of the same run: decoding and scaling the same photo with sharp (what every detection
// does before the model), and the process's CPU with the camera registered and nobody watching.
// Usage: npx node bench/vision.ts [images=40] [seconds per live phase=4]
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import { startTestCamera } from '../test/support/camera.ts';
import { report } from './support/report.ts';
import { startBenchService } from './support/service.ts';
import { median, time } from './support/timing.ts';

const images = Number(process.argv[2] ?? 40);
const liveSeconds = Number(process.argv[3] ?? 4);
const CONCURRENCY = 4;
const VIEWERS = 4;

// demo/sample1.jpg of @vladmandic/face-api (MIT; the author's own photo), as the detect tests use it.
const facePackage = path.dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json'));
const photo = await sharp(await readFile(path.join(facePackage, 'demo', 'sample1.jpg')))
  .resize({ width: 640, height: 480, fit: 'cover' })
  .jpeg({ quality: 90 })
  .toBuffer();

const camera = await startTestCamera();
const bench = await startBenchService({ env: { SVC_CAMERA_LOOPBACK: 'allow' } });
const auth = { authorization: `Bearer ${bench.developerKey}` };

/** CPU milliseconds (user + system, every thread of this process) that `fn` took. */
async function cpuOf(fn: () => Promise<unknown>): Promise<{ cpuMs: number; wallMs: number }> {
  const before = process.cpuUsage();
  const wallMs = await time(fn);
  const used = process.cpuUsage(before);
  return { cpuMs: (used.user + used.system) / 1000, wallMs };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

try {
  const detect = async () => {
    const res = await fetch(`${bench.svc.url}/api/v1/models/vision/detect`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'image/jpeg' },
      body: photo,
    });
    const body = (await res.json()) as { data?: { detections: unknown[] } };
    if (res.status !== 200 || !body.data?.detections.length) throw new Error(`detect: ${res.status} ${JSON.stringify(body)}`);
  };
  // The first call of each detector thread loads the model: warmed up on all of them first.
  await Promise.all(Array.from({ length: CONCURRENCY }, detect));

  const decode = () => sharp(photo).rotate().removeAlpha().resize({ width: 640, height: 640, fit: 'inside' }).raw().toBuffer();
  const decodeTimes: number[] = [];
  const detectTimes: number[] = [];
  for (let i = 0; i < Math.max(5, Math.floor(images / 4)); i++) {
    decodeTimes.push(await time(decode));
    detectTimes.push(await time(detect));
  }
  const decodeMs = median(decodeTimes);
  report({ name: 'detect a 640×480 photo, one at a time (median)', value: median(detectTimes), unit: 'ms', baseline: decodeMs });

  let next = 0;
  const worker = async () => {
    while (next++ < images) await detect();
  };
  const burst = await cpuOf(() => Promise.all(Array.from({ length: CONCURRENCY }, worker)));
  const perSecond = images / (burst.wallMs / 1000);
  report({ name: `detect throughput, ${CONCURRENCY} requests at a time`, value: perSecond, unit: 'images/s' });
  report({ name: 'detect images per second per core (process CPU time)', value: images / (burst.cpuMs / 1000), unit: 'images/s/core' });

  // Live: one camera, viewers reading the multipart stream and dropping it.
  await bench.call(
    'POST',
    '/api/v1/developer/vision/cell-bench/cameras',
    { name: 'bench', kind: 'mjpeg', url: camera.url('/stream.mjpg'), maxViewers: VIEWERS },
    bench.developerKey,
  );
  const watch = async (viewers: number) => {
    const controllers = Array.from({ length: viewers }, () => new AbortController());
    let bytes = 0;
    const readers = controllers.map(async (c) => {
      const res = await fetch(`${bench.svc.url}/api/v1/developer/vision/cell-bench/cameras/bench/live`, {
        headers: auth,
        signal: c.signal,
      });
      if (res.status !== 200) throw new Error(`live: ${res.status} ${await res.text()}`);
      try {
        for await (const chunk of res.body!) bytes += (chunk as Uint8Array).length;
      } catch (err) {
        if (!c.signal.aborted) throw err;
      }
    });
    await pause(500); // every viewer connected and the upstream flowing before the window opens
    const { cpuMs } = await cpuOf(() => pause(liveSeconds * 1000));
    for (const c of controllers) c.abort();
    await Promise.all(readers);
    if (viewers > 0 && bytes === 0) throw new Error('live: no bytes');
    return (cpuMs / (liveSeconds * 1000)) * 100; // percent of one core
  };
  const idle = await watch(0);
  const one = await watch(1);
  const all = await watch(VIEWERS);
  report({ name: 'live proxy CPU, 1 viewer (baseline: nobody watching)', value: one, unit: '% core', baseline: idle });
  report({ name: `live proxy CPU per viewer, ${VIEWERS} viewers sharing one upstream`, value: (all - idle) / VIEWERS, unit: '% core' });
  report({
    name: `live proxy CPU of each viewer beyond the first`,
    value: (all - one) / (VIEWERS - 1),
    unit: '% core',
    baseline: one - idle,
  });
} finally {
  await bench.stop();
  await camera.close();
}
