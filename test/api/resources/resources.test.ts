import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RESOURCE_KINDS } from '../../../domain/resources/registry.ts';
import { injected, rawGet, release } from '../../support/hosting.ts';
import { bearer, operatorKey, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { SALES } from '../../support/ontology.ts';
import { initializeBody } from '../../support/provisioning.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Generic resource access over HTTP (spec D, rules 1-7, the resource tier table), for every
// registered resource kind.

let svc: TestService;
let dev: string;
let mo: string;
let gus: string;
let accounts: Record<'dana' | 'mo' | 'multi' | 'gus', string>;

/**
 * One resource of each registered kind, owned by cell-acme and at the private floor. A kind
 * registered without a sample here fails the first test: add one with the kind.
 */
const SAMPLES: Record<string, () => Promise<string>> = {
  applications: async () => 'ri.workshop.svc.applications.cell-acme',
  app: async () => {
    await release(svc, dev, { namespace: 'cell-acme', slug: 'vault', version: '1.0.0', manifest: { auth: { access: 'restricted' } } });
    return 'ri.workshop.svc.app.cell-acme.vault';
  },
  // An agent profile as company initialization writes it (the local cloud provider, a real run).
  agent: async () => {
    const res = await svc.call('POST', '/api/v1/control-plane/companies/initialize', {
      body: initializeBody('cell-acme', path.join(svc.companyRoot, 'acme')),
      headers: bearer(await operatorKey(svc)),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await svc.temporal!.client.workflow.getHandle(res.body.data.workflowId, res.body.data.runId).result();
    const profile = await svc.database.db.selectFrom('agent_profiles').select('rid').orderBy('name').executeTakeFirstOrThrow();
    return profile.rid;
  },
  // The company's ontology and one of its object types, as a developer defines them.
  ontology: async () => {
    const res = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(dev) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return 'ri.ontology.svc.ontology.cell-acme';
  },
  'object-type': async () => {
    const res = await svc.call('GET', '/api/v1/ontologies/cell-acme/objectTypes/sales.Order', { headers: bearer(dev) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.rid;
  },
  // A media set, as a developer creates it.
  'media-set': async () => {
    const res = await svc.call('POST', '/api/v1/mediasets', { body: { name: 'Shelf photos', schema: 'image' }, headers: bearer(dev) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data.rid;
  },
  // An application module open to no one but its Owners (access restricted).
  'workshop-module': async () => {
    const definition = { title: 'Shelf', pages: [{ id: 'main', title: 'Main', widgets: [] }] };
    const res = await svc.call('POST', '/api/v1/workshop/modules', {
      body: { name: 'Shelf module', access: 'restricted', definition },
      headers: bearer(dev),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data.rid;
  },
};
const rids: Record<string, string> = {};

beforeAll(async () => {
  svc = await startTestService({ role: 'all' });
  ({ accounts } = await seedCompanies(svc));
  dev = await passwordKey(svc, 'dana');
  mo = await passwordKey(svc, 'mo');
  gus = await passwordKey(svc, 'gus');
  for (const kind of RESOURCE_KINDS) if (SAMPLES[kind.name]) rids[kind.name] = await SAMPLES[kind.name]!();
  await release(svc, dev, { namespace: 'cell-acme', slug: 'open-app', version: '1.0.0' });
}, 60_000);
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

const enc = encodeURIComponent;
const get = (rid: string, key: string, tail = '') =>
  svc.call('GET', `/api/v1/filesystem/resources/${enc(rid)}${tail}`, { headers: bearer(key) });
const post = (rid: string, tail: string, body: unknown, key = dev) =>
  svc.call('POST', `/api/v1/filesystem/resources/${enc(rid)}${tail}`, { body, headers: bearer(key) });
const tier = (rid: string, to: string, key = dev) => post(rid, '/access', { tier: to }, key);
const grants = async (rid: string) =>
  (await get(rid, dev, '/roles')).body.data.grants
    .filter((g: { inheritedFrom: string | null }) => g.inheritedFrom === null)
    .map((g: { principal: string; role: string }) => `${g.principal}=${g.role}`)
    .sort();

it('every registered kind has a sample resource in this test', () => {
  expect(Object.keys(rids).sort()).toEqual(RESOURCE_KINDS.map((k) => k.name).sort());
});

describe.each(RESOURCE_KINDS.map((k) => [k.name, k] as const))('the tier table for a %s', (name, kind) => {
  it('holds transition by transition', async () => {
    const rid = rids[name]!;
    const start = await get(rid, dev);
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    expect(start.body.data).toMatchObject({ rid, kind: name, role: 'owner', generalAccess: 'private', floor: 'private' });
    expect((await get(rid, mo)).status).toBe(404);

    // A named grant: the resource is shared within the group tier.
    expect((await post(rid, '/roles/add', { principal: accounts.mo, role: 'editor' })).body.data.generalAccess).toBe('group');
    expect((await get(rid, mo)).body.data.role).toBe('editor');

    // public: everyone gets Viewer.
    expect((await tier(rid, 'public')).body.data.generalAccess).toBe('public');
    expect(await grants(rid)).toEqual([`${accounts.mo}=editor`, 'everyone=viewer'].sort());
    expect((await get(rid, gus)).body.data.role).toBe('viewer');

    // internet: internet gets Viewer, only on kinds with an anonymous read entry.
    const internet = await tier(rid, 'internet');
    if (kind.anonymousRead) {
      expect(internet.body.data.generalAccess).toBe('internet');
      expect(await grants(rid)).toContain('internet=viewer');
    } else {
      expect([internet.status, internet.body.error.code]).toEqual([422, 'tier_unsupported']);
    }

    // group: Public and Internet grants go; someone else has a share, so no organization grant.
    expect((await tier(rid, 'group')).body.data.generalAccess).toBe('group');
    expect(await grants(rid)).toEqual([`${accounts.mo}=editor`]);
    expect((await get(rid, gus)).status).toBe(404);

    // private: every share goes; only Owners remain.
    expect((await tier(rid, 'private')).body.data.generalAccess).toBe('private');
    expect(await grants(rid)).toEqual([]);
    expect((await get(rid, mo)).status).toBe(404);
    expect((await get(rid, dev)).body.data.role).toBe('owner');

    // group with nobody else sharing: the whole organization gets Viewer.
    expect((await tier(rid, 'group')).body.data.generalAccess).toBe('group');
    expect(await grants(rid)).toEqual(['cell-acme=viewer']);
    expect((await get(rid, mo)).body.data.role).toBe('viewer');
    await tier(rid, 'private');
  });

  it('only an Owner changes sharing; Public and Internet grants are Viewer only', async () => {
    const rid = rids[name]!;
    await post(rid, '/roles/add', { principal: accounts.mo, role: 'editor' });
    expect((await tier(rid, 'public', mo)).status).toBe(403);
    expect((await post(rid, '/roles/add', { principal: accounts.gus, role: 'viewer' }, mo)).status).toBe(403);
    const editorEveryone = await post(rid, '/roles/add', { principal: 'everyone', role: 'editor' });
    expect([editorEveryone.status, editorEveryone.body.error.code]).toEqual([400, 'invalid_payload']);
    expect((await post(rid, '/roles/add', { principal: 'internet', role: 'owner' })).status).toBe(400);
    const unknown = await post(rid, '/roles/add', { principal: 'acc_0000000000000000', role: 'viewer' });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'principal_not_found']);
    expect((await post(rid, '/roles/remove', { principal: accounts.mo })).body.data.removed).toBe(true);
    expect((await post(rid, '/roles/remove', { principal: accounts.mo })).body.data.removed).toBe(false);
  });
});

describe('inheritance, floors and links', () => {
  it('apps inherit from the organization’s applications resource; their own grants only add', async () => {
    const apps = 'ri.workshop.svc.applications.cell-acme';
    const app = 'ri.workshop.svc.app.cell-acme.vault';
    await post(apps, '/roles/add', { principal: accounts.gus, role: 'viewer' });
    expect((await get(app, gus)).body.data.role).toBe('viewer');
    await post(app, '/roles/add', { principal: accounts.gus, role: 'editor' });
    expect((await get(app, gus)).body.data.role).toBe('editor');
    const roles = (await get(app, dev, '/roles')).body.data;
    expect(roles.grants).toContainEqual({ principal: accounts.gus, role: 'viewer', inheritedFrom: apps });
    expect(roles.implicit).toContainEqual(expect.objectContaining({ principal: 'cell-acme:developers', role: 'owner' }));
    await post(apps, '/roles/remove', { principal: accounts.gus });
    await post(app, '/roles/remove', { principal: accounts.gus });
    expect((await get(app, gus)).status).toBe(404);
  });

  it('a tier narrower than the resource’s own setting is refused with 409', async () => {
    const rid = 'ri.workshop.svc.app.cell-acme.open-app';
    expect((await get(rid, dev)).body.data).toMatchObject({ floor: 'group', generalAccess: 'group' });
    const res = await tier(rid, 'private');
    expect([res.status, res.body.error.code]).toEqual([409, 'conflict']);
    expect(res.body.error.details).toEqual({ floor: 'group', tier: 'private' });
    expect((await tier(rid, 'group')).status).toBe(200);
  });

  it('invitation links need login, give Viewer, last 30 days by default and stop when revoked', async () => {
    const rid = 'ri.workshop.svc.app.cell-acme.vault';
    const link = await post(rid, '/links', {});
    expect(link.status, JSON.stringify(link.body)).toBe(201);
    expect(new Date(link.body.data.expiresAt).getTime() - Date.now()).toBeGreaterThan(29.9 * 24 * 3600 * 1000);
    const redeem = (key?: string) =>
      svc.call('POST', '/api/v1/filesystem/links/redeem', { body: { token: link.body.data.token }, headers: key ? bearer(key) : {} });
    expect((await redeem()).status).toBe(401);
    expect((await redeem(gus)).body.data).toEqual({ rid, role: 'viewer', granted: true });
    expect((await get(rid, gus)).body.data.role).toBe('viewer');
    expect((await post(rid, '/links', {}, gus)).status).toBe(403);
    const revoked = await svc.call('DELETE', `/api/v1/filesystem/resources/${enc(rid)}/links/${link.body.data.id}`, {
      headers: bearer(dev),
    });
    expect(revoked.body.data).toMatchObject({ revoked: true, alreadyRevoked: false });
    expect((await redeem(mo)).status).toBe(404);
    await post(rid, '/roles/remove', { principal: accounts.gus });
  });
});

describe('app pages follow resource grants', () => {
  const page = async (login: string, slug: string, base = svc.addresses.productionBase) =>
    rawGet(`${base}/cell-acme/apps/${slug}`, { cookie: await signIn(svc, login) });
  const roleOn = async (login: string, slug: string) => {
    const res = await page(login, slug);
    if (res.status !== 200) return res.status;
    const me = await svc.call('GET', '/api/v1/developer/auth/me', { headers: bearer(injected(res.text).ticket) });
    return me.body.data.role;
  };

  it('a grant on the applications resource or the app opens production with the matching role; removing it closes it', async () => {
    const apps = 'ri.workshop.svc.applications.cell-acme';
    const app = 'ri.workshop.svc.app.cell-acme.vault';
    expect(await roleOn('gus', 'vault')).toBe(403);
    await post(apps, '/roles/add', { principal: accounts.gus, role: 'viewer' });
    expect(await roleOn('gus', 'vault')).toBe('viewer');
    await post(app, '/roles/add', { principal: accounts.gus, role: 'editor' });
    expect(await roleOn('gus', 'vault')).toBe('editor');
    expect((await page('gus', 'vault', svc.addresses.developerBase)).status).toBe(403);
    // A member of the company opens the restricted app with the member role.
    expect(await roleOn('mo', 'vault')).toBe(403);
    await post(app, '/roles/add', { principal: 'cell-acme', role: 'viewer' });
    expect(await roleOn('mo', 'vault')).toBe('member');
    await post(apps, '/roles/remove', { principal: accounts.gus });
    await post(app, '/roles/remove', { principal: accounts.gus });
    await post(app, '/roles/remove', { principal: 'cell-acme' });
    expect(await roleOn('gus', 'vault')).toBe(403);
    expect(await roleOn('mo', 'vault')).toBe(403);
  });
});

describe('listings and principals', () => {
  it('lists by scope and type', async () => {
    const list = async (key: string, query: string) =>
      (await svc.call('GET', `/api/v1/filesystem/resources?${query}`, { headers: bearer(key) })).body.data.resources.map(
        (r: { rid: string }) => r.rid,
      );
    expect(await list(dev, 'scope=organization')).toEqual(
      expect.arrayContaining(['ri.workshop.svc.applications.cell-acme', 'ri.workshop.svc.app.cell-acme.vault']),
    );
    expect(await list(dev, 'scope=organization&type=applications')).toEqual(['ri.workshop.svc.applications.cell-acme']);
    expect(await list(gus, 'scope=shared')).toEqual([]);
    await post('ri.workshop.svc.app.cell-acme.vault', '/roles/add', { principal: accounts.gus, role: 'viewer' });
    expect(await list(gus, 'scope=shared')).toEqual(['ri.workshop.svc.app.cell-acme.vault']);
    await tier('ri.workshop.svc.app.cell-acme.open-app', 'public');
    expect(await list(mo, 'scope=public')).toContain('ri.workshop.svc.app.cell-acme.open-app');
    expect(await list(dev, 'scope=mine')).toContain('ri.workshop.svc.app.cell-acme.vault');
  });

  it('finds accounts only by exact username or email, other organizations only by exact cellId', async () => {
    const search = async (q: string, key = dev) =>
      (await svc.call('GET', `/api/v1/filesystem/principals?q=${enc(q)}`, { headers: bearer(key) })).body.data.principals.map(
        (p: { principal: string }) => p.principal,
      );
    expect(await search('')).toEqual(['cell-acme', 'cell-acme:developers']);
    expect(await search('gus')).toEqual([accounts.gus]);
    expect(await search('GUS@example.com')).toEqual([accounts.gus]);
    expect(await search('gu')).toEqual([]);
    expect(await search('cell-globex')).toEqual(['cell-globex']);
    expect(await search('cell-glob')).toEqual([]);
  });
});
