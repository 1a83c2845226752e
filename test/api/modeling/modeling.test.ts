import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { worldGenerationWorkflowId } from '../../../schemas/workflow-keys.ts';
import { injected, rawGet, release } from '../../support/hosting.ts';
import { bearer, operatorKey, passwordKey, seedCompanies, signIn } from '../../support/identity.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Modeling (issue 34): a company's world-model assets viewed by its people and its `modeling`
// apps, and generations charged to an app's world credits, run for real by the worker (role all:
// the outbox relay starts the workflow on the embedded Temporal server).

const ACME = '/api/v1/developer/modeling/cell-acme';
const CHAIR = { asset: { version: '2.0' }, meshes: [{ name: 'chair', primitives: [{ attributes: { POSITION: 0 } }] }] };
const TABLE = { format: 'my-scene', boxes: [{ size: [2, 1, 1] }] };

let svc: TestService;
let dana: string;
let gus: string;
const tickets: Record<string, string> = {};

beforeAll(async () => {
  svc = await startTestService({ role: 'all' });
  await seedCompanies(svc);
  dana = await passwordKey(svc, 'dana');
  gus = await passwordKey(svc, 'gus');
  for (const [name, document] of [
    ['chair', CHAIR],
    ['table', TABLE],
  ] as const) {
    const put = await svc.call('PUT', `${ACME}/assets/${name}`, { body: { document }, headers: bearer(dana) });
    expect(put.status, JSON.stringify(put.body)).toBe(201);
  }
  const globex = await svc.call('PUT', '/api/v1/developer/modeling/cell-globex/assets/vault', {
    body: { document: { secret: 1 } },
    headers: bearer(gus),
  });
  expect(globex.status).toBe(201);
  const apps = {
    viewer: { sdk: ['modeling'] },
    builder: { sdk: ['modeling'], limits: { worldCreditsPerDay: 1 } },
    plain: {},
  };
  for (const [slug, manifest] of Object.entries(apps))
    await release(svc, dana, { namespace: 'cell-acme', slug, version: '1.0.0', manifest });
  await release(svc, await operatorKey(svc), {
    namespace: 'public',
    slug: 'official',
    version: '1.0.0',
    manifest: { sdk: ['modeling'], limits: { worldCreditsPerDay: 1 } },
  });
  const cookie = await signIn(svc, 'mo');
  const open = async (path: string) => injected((await rawGet(`${svc.addresses.productionBase}${path}`, { cookie })).text).ticket;
  for (const slug of Object.keys(apps)) tickets[slug] = await open(`/cell-acme/apps/${slug}`);
  tickets.official = await open('/apps/official');
}, 120_000);
afterAll(() => svc?.close());

const generate = (ticket: string, body: object, path = ACME) => svc.call('POST', `${path}/generations`, { body, headers: bearer(ticket) });
const composition = { asset: 'dining', parts: [{ asset: 'chair', translation: [1, 0, 0], rotation: [0, 0, 0, 2] }, { asset: 'table' }] };

describe('world-model assets', () => {
  it('are listed and read by the company’s people and its modeling apps, with the document from the blob store', async () => {
    for (const who of [dana, await passwordKey(svc, 'mo'), tickets.viewer!]) {
      const list = await svc.call('GET', `${ACME}/assets`, { headers: bearer(who) });
      expect(list.status).toBe(200);
      expect(list.body.data.assets.map((a: { name: string }) => a.name)).toEqual(['chair', 'table']);
    }
    const chair = await svc.call('GET', `${ACME}/assets/chair`, { headers: bearer(tickets.viewer!) });
    expect(chair.body.data).toMatchObject({ name: 'chair', document: CHAIR, generationId: null, size: JSON.stringify(CHAIR).length });
    expect((await svc.call('GET', `${ACME}/assets/sofa`, { headers: bearer(dana) })).body.error.code).toBe('world_asset_not_found');
  });

  it('are refused to an app without `modeling`, to another company and to app tickets, which never change them', async () => {
    const plain = await svc.call('GET', `${ACME}/assets`, { headers: bearer(tickets.plain!) });
    expect(plain.status).toBe(403);
    expect(plain.body.error.details).toMatchObject({ sdk: 'modeling' });
    expect((await svc.call('GET', `${ACME}/assets/chair`, { headers: bearer(gus) })).status).toBe(403);
    expect((await svc.call('GET', '/api/v1/developer/modeling/cell-globex/assets/vault', { headers: bearer(dana) })).status).toBe(403);
    expect((await svc.call('GET', '/api/v1/developer/modeling/cell-globex/assets', { headers: bearer(tickets.viewer!) })).status).toBe(403);
    const put = await svc.call('PUT', `${ACME}/assets/chair`, { body: { document: {} }, headers: bearer(tickets.viewer!) });
    expect(put.status).toBe(403);
  });

  it('refuses a document above 1 MiB and unknown fields', async () => {
    const big = await svc.call('PUT', `${ACME}/assets/big`, { body: { document: { s: 'x'.repeat(1024 * 1024) } }, headers: bearer(dana) });
    expect(big.status).toBe(413);
    const odd = await svc.call('PUT', `${ACME}/assets/odd`, { body: { document: {}, extra: 1 }, headers: bearer(dana) });
    expect(odd.status).toBe(400);
  });
});

describe('generation', () => {
  it('is refused to a view-only app with 429 quota_exhausted and the credits in details', async () => {
    const res = await generate(tickets.viewer!, composition);
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({
      code: 'quota_exhausted',
      details: { limit: 'worldCreditsPerDay', used: 0, needed: 1, limitCredits: 0, resetsAt: expect.any(String) },
    });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('is refused to an official public app, to developer keys and to another company’s assets', async () => {
    const official = await generate(tickets.official!, composition);
    expect(official.status).toBe(403);
    expect(official.body.error.details).toMatchObject({ reason: 'official_public_app' });
    expect((await generate(dana, composition)).status).toBe(403);
    const foreign = await generate(tickets.builder!, { asset: 'heist', parts: [{ asset: 'vault' }] });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('world_asset_not_found');
    expect((await generate(tickets.builder!, composition, '/api/v1/developer/modeling/cell-globex')).status).toBe(403);
    const zero = await generate(tickets.builder!, { asset: 'x-y', parts: [{ asset: 'chair', rotation: [0, 0, 0, 0] }] });
    expect(zero.status).toBe(400);
  });

  it('composes a scene once as a workflow, counts its credit, and refuses the next one past the cap', async () => {
    const accepted = await generate(tickets.builder!, composition);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    const { id, workflowId } = accepted.body.data;
    expect(accepted.body.data).toMatchObject({ status: 'queued', credits: 1, provider: 'compose', asset: 'dining' });
    expect(workflowId).toBe(worldGenerationWorkflowId(id));

    // The run is a Temporal workflow, labelled as a world generation of the app.
    // The relay starts it once the request has committed: waited for, not timed.
    const handle = svc.temporal!.client.workflow.getHandle(workflowId);
    const described = await vi.waitFor(() => handle.describe(), { timeout: 60_000, interval: 50 });
    expect(await handle.result()).toMatchObject({ status: 'succeeded', asset: 'dining' });
    expect(described.type).toBe('worldGeneration');
    expect(described.memo).toMatchObject({ kind: 'world-generation', app: 'builder', company: 'cell-acme' });

    const done = await svc.call('GET', `${ACME}/generations/${id}`, { headers: bearer(tickets.builder!) });
    expect(done.body.data, JSON.stringify(done.body)).toMatchObject({ status: 'succeeded', finishedAt: expect.any(String), error: null });
    // Another app of the company does not see it; the company's people do.
    expect((await svc.call('GET', `${ACME}/generations/${id}`, { headers: bearer(tickets.viewer!) })).status).toBe(404);
    expect((await svc.call('GET', `${ACME}/generations/${id}`, { headers: bearer(dana) })).status).toBe(200);

    const scene = await svc.call('GET', `${ACME}/assets/dining`, { headers: bearer(tickets.viewer!) });
    expect(scene.body.data.generationId).toBe(id);
    const doc = scene.body.data.document;
    expect(doc).toMatchObject({ format: 'svc.scene/1', generator: { provider: 'compose', generationId: id } });
    expect(doc.nodes).toHaveLength(2);
    const chairSha = (await svc.call('GET', `${ACME}/assets/chair`, { headers: bearer(dana) })).body.data.sha256;
    expect(doc.nodes[0]).toMatchObject({
      asset: 'chair',
      sha256: chairSha,
      translation: [1, 0, 0],
      rotation: [0, 0, 0, 1],
      scale: [1, 1, 1],
      matrix: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1],
      scene: CHAIR,
    });
    expect(doc.nodes[1]).toMatchObject({ asset: 'table', scene: TABLE });

    const app = await svc.database.db.selectFrom('apps').select('id').where('slug', '=', 'builder').executeTakeFirstOrThrow();
    const credits = await svc.database.db
      .selectFrom('usage_counters')
      .select('amount')
      .where('app_id', '=', app.id)
      .where('meter', '=', 'world.credits')
      .executeTakeFirstOrThrow();
    expect(Number(credits.amount)).toBe(1);

    const second = await generate(tickets.builder!, { ...composition, asset: 'dining-two' });
    expect(second.status).toBe(429);
    expect(second.body.error.details).toMatchObject({ limit: 'worldCreditsPerDay', used: 1, needed: 1, limitCredits: 1 });
  });
});
