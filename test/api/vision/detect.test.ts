import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCamera, type TestCamera } from '../../support/camera.ts';
import { injected, rawGet, release } from '../../support/hosting.ts';
import { bearer, passwordKey, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// The face detector behind POST /api/v1/models/vision/detect (issue 34), for real: on a photo with
// faces, on pictures without any, on a camera's keyframe, and the ticket rules and metering.
//
// The photo is demo/sample1.jpg of the npm package @vladmandic/face-api (installed as a dependency,
// read from node_modules, not copied here): the package is MIT-licensed (Copyright Vladimir
// Mandic), and its README says the photos shown are the author's own.

const DETECT = '/api/v1/models/vision/detect';
const facePackage = path.dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json'));
let svc: TestService;
let camera: TestCamera;
let dana: string;
let photo: Buffer;

beforeAll(async () => {
  camera = await startTestCamera();
  svc = await startTestService({ env: { SVC_CAMERA_LOOPBACK: 'allow' } });
  await seedCompanies(svc);
  dana = await passwordKey(svc, 'dana');
  photo = await readFile(path.join(facePackage, 'demo', 'sample1.jpg'));
});
afterAll(async () => {
  await svc?.close();
  await camera?.close();
});

const detect = (key: string, body: Buffer, query = '', type = 'image/jpeg') =>
  svc.call('POST', `${DETECT}${query}`, { rawBody: body, headers: { ...bearer(key), 'content-type': type } });

describe('the model catalog', () => {
  it('is public and lists the installed detector with its weights’ package and license', async () => {
    const res = await svc.call('GET', '/api/v1/models');
    expect(res.status).toBe(200);
    expect(res.body.data.models).toEqual([
      expect.objectContaining({
        id: 'vision',
        labels: ['face'],
        offline: true,
        weights: { package: '@vladmandic/face-api', version: expect.any(String), license: 'MIT' },
      }),
    ]);
  });
});

describe('detection', () => {
  // The first detection starts the detector's thread and loads its model (WASM): seconds when
  // quiet, past vitest's 30 s on a loaded machine.
  it('finds the faces of a photo, with boxes in the photo’s own pixels', async () => {
    const { width, height } = await sharp(photo).metadata();
    const res = await detect(dana, photo);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ model: 'vision', width, height });
    const found = res.body.data.detections as {
      label: string;
      score: number;
      box: { x: number; y: number; width: number; height: number };
    }[];
    expect(found.length).toBeGreaterThanOrEqual(1);
    for (const d of found) {
      expect(d.label).toBe('face');
      expect(d.score).toBeGreaterThanOrEqual(0.5);
      expect(d.box.x).toBeGreaterThanOrEqual(-1);
      expect(d.box.x + d.box.width).toBeLessThanOrEqual(width! + 1);
      expect(d.box.y + d.box.height).toBeLessThanOrEqual(height! + 1);
    }
    // The same photo made smaller: the boxes scale with it (the detector sees both at one size).
    const half = await sharp(photo)
      .resize({ width: Math.round(width! / 2) })
      .jpeg()
      .toBuffer();
    const small = await detect(dana, half);
    expect(small.body.data.detections.length).toBe(found.length);
  }, 120_000);

  it('finds nothing in a picture without a face, nor in a camera’s keyframe of plain colours', async () => {
    const plain = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 30, g: 140, b: 90 } } })
      .png()
      .toBuffer();
    const res = await detect(dana, plain, '', 'image/png');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ width: 640, height: 480, detections: [] });

    const made = await svc.call('POST', '/api/v1/developer/vision/cell-acme/cameras', {
      body: { name: 'hall', kind: 'snapshot', url: camera.url('/snapshot.jpg') },
      headers: bearer(dana),
    });
    expect(made.status).toBe(201);
    const fromCamera = await detect(dana, Buffer.alloc(0), '?namespace=cell-acme&camera=hall');
    expect(fromCamera.status, JSON.stringify(fromCamera.body)).toBe(200);
    expect(fromCamera.body.data).toMatchObject({ width: 320, height: 240, detections: [] });
  });

  it('refuses what is not an image, members’ keys, and a body with a camera named by half', async () => {
    const junk = await detect(dana, Buffer.from('not an image at all'));
    expect(junk.status).toBe(400);
    expect(junk.body.error.code).toBe('image_undecodable');
    expect((await detect(await passwordKey(svc, 'mo'), photo)).status).toBe(403);
    expect((await detect(dana, Buffer.alloc(0), '?camera=hall')).status).toBe(400);
    expect((await detect(dana, photo, '?minConfidence=7')).status).toBe(400);
  });

  it('admits an app ticket only for a manifest listing `vision`, meters its time, and refuses it past the compute minutes', async () => {
    await release(svc, dana, { namespace: 'cell-acme', slug: 'faces', version: '1.0.0', manifest: { models: ['vision'] } });
    await release(svc, dana, { namespace: 'cell-acme', slug: 'no-faces', version: '1.0.0' });
    const cookie = await signIn(svc, 'mo');
    const ticketOf = async (slug: string) =>
      injected((await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/${slug}`, { cookie })).text).ticket;

    const unlisted = await detect(await ticketOf('no-faces'), photo);
    expect(unlisted.status).toBe(404);
    expect(unlisted.body.error.code).toBe('model_not_found');

    const ticket = await ticketOf('faces');
    const res = await detect(ticket, photo);
    expect(res.status).toBe(200);
    const app = await svc.database.db.selectFrom('apps').select('id').where('slug', '=', 'faces').executeTakeFirstOrThrow();
    const used = await svc.database.db
      .selectFrom('usage_counters')
      .select(['amount', 'period'])
      .where('app_id', '=', app.id)
      .where('meter', '=', 'compute.model')
      .executeTakeFirstOrThrow();
    expect(Number(used.amount)).toBe(res.body.data.computeMs);

    // The month's 2000 compute minutes used up: the next call is refused before any work.
    await svc.database.db
      .updateTable('usage_counters')
      .set({ amount: 2000 * 60_000 })
      .where('app_id', '=', app.id)
      .execute();
    const refused = await detect(ticket, photo);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'quota_exhausted', details: { limit: 'computeMinutesPerMonth' } });
  });
});
