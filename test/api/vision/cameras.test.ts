import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CAMERA_FRAME, startTestCamera, type TestCamera } from '../../support/camera.ts';
import { TestClock } from '../../support/clock.ts';
import { injected, rawGet, release } from '../../support/hosting.ts';
import { bearer, createUser, passwordKey, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Cameras (issue 34) against a real camera on 127.0.0.1 (test/support/camera.ts): registration
// with sealed credentials, probe, keyframe, live views shared through one upstream connection up
// to maxViewers, the 10-minute pause after a rejected credential (on the service's test clock),
// timeouts and drops, and who may see a company's cameras.

const A = 'cell-acme';
const BASE = `/api/v1/developer/vision/${A}/cameras`;
const PASSWORD = 'camera-secret-9f3k';
const clock = new TestClock('2026-11-28T10:00:00Z');
let svc: TestService;
let camera: TestCamera;
let dana: string;
let mo: string;
let bea: string;
let gus: string;

beforeAll(async () => {
  camera = await startTestCamera();
  svc = await startTestService({
    clock,
    env: {
      SVC_CAMERA_LOOPBACK: 'allow',
      SVC_CAMERA_TIMEOUT_MS: '400',
      SVC_SECRET_KEYS: `test-1:${randomBytes(32).toString('base64')}`,
    },
  });
  const { op } = await seedCompanies(svc);
  await createUser(svc, op, 'bea', [{ cellId: 'cell-globex', role: 'member' }]);
  [dana, mo, bea, gus] = (await Promise.all(['dana', 'mo', 'bea', 'gus'].map((login) => passwordKey(svc, login)))) as [
    string,
    string,
    string,
    string,
  ];
});
afterAll(async () => {
  await svc?.close();
  await camera?.close();
});
beforeEach(() => {
  camera.mode = 'ok';
  camera.credentials = null;
});

const as = (key: string) => ({ headers: bearer(key) });
async function register(name: string, body: Record<string, unknown>) {
  const res = await svc.call('POST', BASE, { body: { name, ...body }, ...as(dana) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** Reads a live answer until one whole JPEG part arrived; returns it. */
async function firstPart(res: Response): Promise<Buffer> {
  const reader = res.body!.getReader();
  let buffer = Buffer.alloc(0);
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error('the live stream ended before a whole frame');
    buffer = Buffer.concat([buffer, value]);
    const head = /--svcframe\r\nContent-Type: image\/jpeg\r\nContent-Length: (\d+)\r\n\r\n/.exec(buffer.toString('latin1'));
    if (head) {
      const start = head.index + head[0].length;
      const length = Number(head[1]);
      if (buffer.length >= start + length) {
        reader.releaseLock();
        return buffer.subarray(start, start + length);
      }
    }
  }
}

function watch(key: string, name: string) {
  const abort = new AbortController();
  const res = fetch(`${svc.url}${BASE}/${name}/live`, { headers: bearer(key), signal: abort.signal });
  return { res, abort };
}

describe('registering cameras', () => {
  it('keeps credentials sealed: never answered, logged or stored in clear; dry runs change nothing', async () => {
    const dry = await svc.call('POST', BASE, {
      body: { name: 'dry', kind: 'mjpeg', url: camera.url('/stream.mjpg') },
      headers: { ...bearer(dana), 'x-svc-dry-run': 'true' },
    });
    expect(dry.status).toBe(202);
    expect((await svc.call('GET', `${BASE}/dry`, as(dana))).status).toBe(404);

    const made = await register('front-door', {
      kind: 'mjpeg',
      url: camera.url('/stream.mjpg'),
      credentials: { username: 'viewer', password: PASSWORD },
    });
    expect(made).toMatchObject({ name: 'front-door', kind: 'mjpeg', maxViewers: 4, credentials: 'set', attemptsPausedUntil: null });
    const row = await svc.database.db.selectFrom('cameras').selectAll().where('name', '=', 'front-door').executeTakeFirstOrThrow();
    expect(row.credential_sealed!.includes(Buffer.from(PASSWORD))).toBe(false);
    expect(row.credential_key_id).toBe('test-1');
    const listed = await svc.call('GET', BASE, as(mo));
    expect(listed.status).toBe(200);
    expect(listed.body.data.cameras.map((c: { name: string }) => c.name)).toContain('front-door');
    expect(JSON.stringify(listed.body)).not.toContain(PASSWORD);
    expect(JSON.stringify(svc.logs)).not.toContain(PASSWORD);

    const twice = await svc.call('POST', BASE, {
      body: { name: 'front-door', kind: 'snapshot', url: camera.url('/snapshot.jpg') },
      ...as(dana),
    });
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('camera_name_exists');
  });

  it('refuses addresses with credentials in them, other schemes and unknown fields, with their paths', async () => {
    const bad = await svc.call('POST', BASE, {
      body: { name: 'bad', kind: 'mjpeg', url: 'http://u:p@127.0.0.1/x', extra: 1 },
      ...as(dana),
    });
    expect(bad.status).toBe(400);
    const paths = bad.body.error.details.problems.map((p: { path: string }) => p.path);
    expect(paths).toEqual(expect.arrayContaining(['url', 'extra']));
    const ftp = await svc.call('POST', BASE, { body: { name: 'bad', kind: 'mjpeg', url: 'ftp://127.0.0.1/x' }, ...as(dana) });
    expect(ftp.status).toBe(400);
  });

  it('refuses link-local addresses (cloud metadata) when connecting, whatever the camera says', async () => {
    await register('metadata', { kind: 'snapshot', url: 'http://169.254.169.254/latest/meta-data' });
    const probe = await svc.call('GET', `${BASE}/metadata/probe`, as(dana));
    expect(probe.status).toBe(502);
    expect(probe.body.error).toMatchObject({ code: 'camera_unreachable', details: { cause: 'address_refused' } });
  });

  it('is for the company’s developers to change; members read; other companies see nothing', async () => {
    const byMember = await svc.call('POST', BASE, { body: { name: 'mine', kind: 'mjpeg', url: camera.url('/stream.mjpg') }, ...as(mo) });
    expect(byMember.status).toBe(403);
    await register('lobby', { kind: 'snapshot', url: camera.url('/snapshot.jpg') });
    expect((await svc.call('GET', `${BASE}/lobby`, as(mo))).status).toBe(200);
    for (const key of [bea, gus]) {
      for (const path of [BASE, `${BASE}/lobby`, `${BASE}/lobby/keyframe`, `${BASE}/lobby/live`, `${BASE}/lobby/probe`]) {
        const res = await svc.call('GET', path, as(key));
        expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(403);
      }
    }
  });
});

describe('probe and keyframe', () => {
  it('probes an MJPEG camera: format, resolution, a frame rate, the credential accepted', async () => {
    camera.credentials = { username: 'viewer', password: PASSWORD };
    const res = await svc.call('GET', `${BASE}/front-door/probe`, as(mo));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ contacted: true, credential: 'accepted', format: 'mjpeg', ...CAMERA_FRAME });
    expect(res.body.data.frameRate).toBeGreaterThan(0);
    expect(camera.authorizations).toContain(`Basic ${Buffer.from(`viewer:${PASSWORD}`).toString('base64')}`);
  });

  it('probes a snapshot camera and answers one keyframe as image/jpeg', async () => {
    const probe = await svc.call('GET', `${BASE}/lobby/probe`, as(dana));
    expect(probe.body.data).toMatchObject({ format: 'jpeg', frameRate: null, credential: 'none', ...CAMERA_FRAME });
    const frame = await fetch(`${svc.url}${BASE}/lobby/keyframe`, { headers: bearer(mo) });
    expect(frame.status).toBe(200);
    expect(frame.headers.get('content-type')).toBe('image/jpeg');
    const meta = await sharp(Buffer.from(await frame.arrayBuffer())).metadata();
    expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({ format: 'jpeg', ...CAMERA_FRAME });
  });

  it('answers camera_timeout for a stalled camera and camera_unreachable for a dropped or closed one, with the cause', async () => {
    camera.credentials = { username: 'viewer', password: PASSWORD };
    camera.mode = 'stall';
    const stalled = await svc.call('GET', `${BASE}/front-door/keyframe`, as(dana));
    expect(stalled.status).toBe(504);
    expect(stalled.body.error).toMatchObject({ code: 'camera_timeout', details: { cause: 'stalled' } });
    camera.mode = 'drop';
    const dropped = await svc.call('GET', `${BASE}/front-door/probe`, as(dana));
    expect(dropped.status).toBe(502);
    expect(dropped.body.error).toMatchObject({ code: 'camera_unreachable', details: { cause: 'dropped' } });
    await register('gone', { kind: 'snapshot', url: 'http://127.0.0.1:9/none.jpg' });
    const refused = await svc.call('GET', `${BASE}/gone/keyframe`, as(dana));
    expect(refused.status).toBe(502);
    expect(refused.body.error.details.cause).toBe('refused');
  });
});

describe('live views', () => {
  it('serves four viewers from one upstream connection and refuses the fifth with 429 camera_busy', async () => {
    camera.credentials = { username: 'viewer', password: PASSWORD };
    const before = camera.requests['/stream.mjpg'] ?? 0;
    const viewers = [watch(dana, 'front-door'), watch(mo, 'front-door'), watch(dana, 'front-door'), watch(mo, 'front-door')];
    const answers = await Promise.all(viewers.map((v) => v.res));
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('multipart/x-mixed-replace; boundary=svcframe');
    }
    const frames = await Promise.all(answers.map(firstPart));
    for (const jpeg of frames) expect((await sharp(jpeg).metadata()).width).toBe(CAMERA_FRAME.width);
    const fifth = await svc.call('GET', `${BASE}/front-door/live`, as(mo));
    expect(fifth.status).toBe(429);
    expect(fifth.body.error).toMatchObject({ code: 'camera_busy', details: { maxViewers: 4 } });
    expect(fifth.headers.get('retry-after')).toBeTruthy();
    expect(camera.requests['/stream.mjpg']! - before).toBe(1);
    expect(camera.openStreams()).toBe(1);
    for (const v of viewers) v.abort.abort();
    // The upstream closes with its last viewer.
    await expect.poll(() => camera.openStreams()).toBe(0);
  });

  it('meters an app page’s viewing as the app’s realtime compute minutes; a ticket sees only the cameras its manifest lists', async () => {
    await release(svc, dana, { namespace: A, slug: 'watcher', version: '1.0.0', manifest: { cameras: ['lobby'] } });
    const page = await rawGet(`${svc.addresses.productionBase}/${A}/apps/watcher`, { cookie: await signIn(svc, 'mo') });
    const { ticket } = injected(page.text);
    const listed = await svc.call('GET', BASE, as(ticket));
    expect(listed.body.data.cameras.map((c: { name: string }) => c.name)).toEqual(['lobby']);
    const unlisted = await svc.call('GET', `${BASE}/front-door/keyframe`, as(ticket));
    expect(unlisted.status).toBe(404);
    expect(unlisted.body.error.code).toBe('camera_not_found');

    const view = watch(ticket, 'lobby');
    const res = await view.res;
    expect(res.status).toBe(200);
    await firstPart(res);
    view.abort.abort();
    const app = await svc.database.db.selectFrom('apps').select('id').where('slug', '=', 'watcher').executeTakeFirstOrThrow();
    const metered = () =>
      svc.database.db
        .selectFrom('usage_counters')
        .select('amount')
        .where('app_id', '=', app.id)
        .where('meter', '=', 'compute.live')
        .executeTakeFirst()
        .then((r) => Number(r?.amount ?? 0));
    await expect.poll(metered).toBeGreaterThan(0);
  });
});

describe('a rejected credential', () => {
  it('stops every attempt for 10 minutes, says so in probe, and is tried again after', async () => {
    await register('yard', { kind: 'snapshot', url: camera.url('/snapshot.jpg'), credentials: { username: 'viewer', password: 'wrong' } });
    camera.credentials = { username: 'viewer', password: PASSWORD };
    const requests = () => camera.requests['/snapshot.jpg'] ?? 0;
    const first = await svc.call('GET', `${BASE}/yard/probe`, as(dana));
    expect(first.status).toBe(200);
    const pausedUntil = new Date(clock.now().getTime() + 10 * 60_000).toISOString();
    expect(first.body.data).toMatchObject({ contacted: true, credential: 'rejected', attemptsPausedUntil: pausedUntil });
    const tried = requests();

    clock.advance({ minutes: 9, seconds: 59 });
    const again = await svc.call('GET', `${BASE}/yard/probe`, as(dana));
    expect(again.body.data).toMatchObject({ contacted: false, credential: 'rejected', attemptsPausedUntil: pausedUntil });
    const keyframe = await svc.call('GET', `${BASE}/yard/keyframe`, as(mo));
    expect(keyframe.status).toBe(502);
    expect(keyframe.body.error.details).toEqual({ cause: 'credential_rejected', retryAt: pausedUntil });
    expect(keyframe.headers.get('retry-after')).toBe('1');
    expect((await svc.call('GET', `${BASE}/yard/live`, as(mo))).status).toBe(502);
    expect((await svc.call('GET', `${BASE}/yard`, as(mo))).body.data.attemptsPausedUntil).toBe(pausedUntil);
    expect(requests()).toBe(tried);

    clock.advance({ seconds: 1 });
    const after = await svc.call('GET', `${BASE}/yard/probe`, as(dana));
    expect(after.body.data).toMatchObject({ contacted: true, credential: 'rejected' });
    expect(requests()).toBe(tried + 1);

    // The right credential lifts the pause at once.
    const fixed = await svc.call('PATCH', `${BASE}/yard`, {
      body: { credentials: { username: 'viewer', password: PASSWORD } },
      ...as(dana),
    });
    expect(fixed.body.data.attemptsPausedUntil).toBeNull();
    expect((await svc.call('GET', `${BASE}/yard/probe`, as(dana))).body.data).toMatchObject({ credential: 'accepted', format: 'jpeg' });
  });

  it('removes a camera (dry run first), after which it is gone', async () => {
    const dry = await svc.call('DELETE', `${BASE}/yard`, { headers: { ...bearer(dana), 'x-svc-dry-run': 'true' } });
    expect(dry.status).toBe(202);
    expect((await svc.call('GET', `${BASE}/yard`, as(dana))).status).toBe(200);
    expect((await svc.call('DELETE', `${BASE}/yard`, as(mo))).status).toBe(403);
    expect((await svc.call('DELETE', `${BASE}/yard`, as(dana))).status).toBe(200);
    expect((await svc.call('GET', `${BASE}/yard`, as(dana))).status).toBe(404);
  });
});
