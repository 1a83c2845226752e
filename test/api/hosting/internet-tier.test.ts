import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { injected, type RawResponse, rawGet, release } from '../../support/hosting.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { SALES } from '../../support/ontology.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// The internet tier (issue 27 finding 10; spec D rules 3 and 7): an app at the internet tier, by
// its own grant or its company's applications resource, opens without any credential (its entry
// page without a ticket, its version files) and answers its public app link
// `/semantic/<company>/applications/<app>` with the types its manifest reads, read only. Anything
// else stays as it was: sign-in first, and the link does not exist (404).

let svc: TestService;
let dev: string;
let P: string;
let D: string;

const enc = encodeURIComponent;
const appRid = (slug: string) => `ri.workshop.svc.app.cell-acme.${slug}`;
const APPLICATIONS_RID = 'ri.workshop.svc.applications.cell-acme';
const link = (slug: string, tail = '') => `/semantic/cell-acme/applications/${slug}${tail}`;

async function setTier(rid: string, tier: 'group' | 'public' | 'internet') {
  const res = await svc.call('POST', `/api/v1/filesystem/resources/${enc(rid)}/access`, { body: { tier }, headers: bearer(dev) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data.generalAccess).toBe(tier);
}

/** The version base an entry page carries (an anonymous page has no ticket to show). */
const baseOf = (page: RawResponse) => /<base href="([^"]+)">/.exec(page.text)?.[1];

/** The answer asks the browser to sign in first (the trees' answer to a request without credential). */
function expectSignIn(res: RawResponse) {
  expect(res.status, res.text).toBe(302);
  expect(res.headers.location).toContain('/signin?next=');
}

beforeAll(async () => {
  svc = await startTestService();
  await seedCompanies(svc);
  ({ productionBase: P, developerBase: D } = svc.addresses);
  dev = await passwordKey(svc, 'dana');
  const defined = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(dev) });
  expect(defined.status, JSON.stringify(defined.body)).toBe(200);
  for (const [type, rows] of [
    ['sales.Customer', [{ id: 'c1', name: 'Ada', tier: 1 }]],
    ['sales.Order', [{ number: 1, amount: 2, note: 'private note' }]],
  ] as const) {
    const res = await svc.call('POST', `/api/v1/ontologies/cell-acme/objects/${type}/import`, { body: rows, headers: bearer(dev) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  // Reads customers only; orders exist in the ontology but are not the app's.
  const semantic = { types: ['sales.Customer'] };
  await release(svc, dev, { namespace: 'cell-acme', slug: 'billboard', version: '1.0.0', manifest: { semantic } });
  await release(svc, dev, { namespace: 'cell-acme', slug: 'lobby', version: '1.0.0', manifest: { semantic } });
  await release(svc, dev, {
    namespace: 'cell-acme',
    slug: 'vault',
    version: '1.0.0',
    manifest: { auth: { access: 'restricted' }, semantic },
  });
}, 60_000);
afterAll(() => svc?.close());
beforeEach(() => resetRateLimits(svc));

describe('an app at the internet tier', () => {
  it('an internet-tier app is readable without credentials; lowering the tier to group refuses the same requests at once', async () => {
    const entry = `${P}/cell-acme/apps/billboard`;
    // Company tier (the default): sign-in first, and no public link.
    expectSignIn(await rawGet(entry));
    const before = await svc.call('GET', link('billboard'));
    expect([before.status, before.body.error.code]).toEqual([404, 'app_not_found']);

    await setTier(appRid('billboard'), 'internet');
    const page = await rawGet(entry);
    expect(page.status, page.text).toBe(200);
    // Read only: no ticket in the page and no ticket cookie, so the page's SDK calls nothing.
    expect(page.text).not.toContain('svc-app-ticket');
    expect(page.headers['set-cookie']).toBeUndefined();
    expect(page.headers['cache-control']).toBe('public, no-cache');
    // Still sandboxed; the page may read its public app link (it has no ticket for the API).
    expect(page.headers['content-security-policy']).toContain('sandbox');
    expect(page.headers['content-security-policy']).toMatch(/connect-src [^;]*\/semantic\//);
    const base = baseOf(page)!;
    expect(base).toMatch(new RegExp(`^${entry}/_v/[0-9a-f]{16}/$`));
    const file = await rawGet(`${base}app.js`);
    expect(file.status).toBe(200);
    expect(file.text).toBe('console.log("shared");');
    // Public content, revalidated on each use (its ETag makes that a 304), since the tier may be lowered.
    expect(file.headers['cache-control']).toBe('public, no-cache');
    expect((await rawGet(`${base}app.js`, { 'if-none-match': file.headers.etag! })).status).toBe(304);
    // The open is recorded, without a visitor.
    await svc.deps.opens.flush();
    const opens = await svc.database.db
      .selectFrom('app_log_events as e')
      .innerJoin('apps as a', 'a.id', 'e.app_id')
      .select(['e.account_id', 'e.channel'])
      .where('a.slug', '=', 'billboard')
      .where('e.name', '=', 'open')
      .execute();
    expect(opens).toEqual([{ account_id: null, channel: 'production' }]);

    // The public app link: the app and only the types its manifest reads.
    const app = await svc.call('GET', link('billboard'));
    expect(app.status, JSON.stringify(app.body)).toBe(200);
    // The sandboxed page has an opaque origin: any origin may read the link.
    expect(app.headers.get('access-control-allow-origin')).toBe('*');
    expect(app.body.data).toMatchObject({ namespace: 'cell-acme', slug: 'billboard', version: '1.0.0', address: entry });
    expect(app.body.data.objectTypes.map((t: { apiName: string }) => t.apiName)).toEqual(['sales.Customer']);
    const customers = await svc.call('GET', link('billboard', '/objects/sales.Customer'));
    expect(customers.status, JSON.stringify(customers.body)).toBe(200);
    expect(customers.body.data).toMatchObject({ totalCount: 1, data: [{ id: 'c1', name: 'Ada' }] });
    const ada = await svc.call('GET', link('billboard', '/objects/sales.Customer/c1'));
    expect([ada.status, ada.body.data?.name]).toEqual([200, 'Ada']);
    // A type the app does not read does not exist here.
    const orders = await svc.call('GET', link('billboard', '/objects/sales.Order'));
    expect([orders.status, orders.body.error.code]).toEqual([404, 'object_type_not_found']);
    const order = await svc.call('GET', link('billboard', '/objects/sales.Order/1'));
    expect([order.status, order.body.error.code]).toEqual([404, 'object_type_not_found']);

    // Lowering the tier: the very next requests are refused.
    await setTier(appRid('billboard'), 'group');
    expectSignIn(await rawGet(entry));
    expectSignIn(await rawGet(`${base}app.js`));
    expectSignIn(await rawGet(`${base}app.js`, { 'if-none-match': file.headers.etag! }));
    for (const path of [link('billboard'), link('billboard', '/objects/sales.Customer'), link('billboard', '/objects/sales.Customer/c1')]) {
      const res = await svc.call('GET', path);
      expect([res.status, res.body.error.code], path).toEqual([404, 'app_not_found']);
    }
  });

  it('the internet tier reads only: no writes on the public link, no API call without a credential, no test channel', async () => {
    await setTier(appRid('billboard'), 'internet');
    const edits = () => svc.database.db.selectFrom('ontology_edits').select('seq').execute();
    const editsBefore = await edits();
    const write = await svc.call('POST', link('billboard', '/objects/sales.Customer'), { body: { id: 'c9' } });
    expect([write.status, write.body.error.code]).toEqual([405, 'method_not_allowed']);
    for (const [method, path, body] of [
      ['GET', '/api/v1/ontologies/cell-acme/objects/sales.Customer', undefined],
      ['POST', '/api/v1/ontologies/cell-acme/actions/sales.addCustomer/apply', { parameters: { id: 'c9' } }],
      ['POST', '/api/v1/sqlQueries/executeOntology', { query: 'SELECT 1', ontology: 'cell-acme' }],
    ] as const) {
      const res = await svc.call(method, path, body === undefined ? {} : { body });
      expect(res.status, path).toBe(401);
    }
    expect(await edits()).toEqual(editsBefore);
    // The test channel stays its developers'.
    expectSignIn(await rawGet(`${D}/cell-acme/apps/billboard`));
    // A signed-in member still opens the app as before: a personal ticket, never cached.
    const member = await rawGet(`${P}/cell-acme/apps/billboard`, { cookie: await signIn(svc, 'mo') });
    expect(member.status).toBe(200);
    expect(member.headers['cache-control']).toBe('no-store');
    expect(injected(member.text).ticket).toMatch(/^svc-at-/);
    await setTier(appRid('billboard'), 'group');
  });

  it('an app inherits the internet tier from its company’s applications resource; lowering that resource refuses at once', async () => {
    expectSignIn(await rawGet(`${P}/cell-acme/apps/lobby`));
    await setTier(APPLICATIONS_RID, 'internet');
    expect((await rawGet(`${P}/cell-acme/apps/lobby`)).status).toBe(200);
    const app = await svc.call('GET', link('lobby'));
    expect(app.status, JSON.stringify(app.body)).toBe(200);
    await setTier(APPLICATIONS_RID, 'group');
    expectSignIn(await rawGet(`${P}/cell-acme/apps/lobby`));
    expect((await svc.call('GET', link('lobby'))).status).toBe(404);
  });
});

describe('markings on the public app link', () => {
  it('a marked type the app reads is not on the internet: the anonymous visitor is cleared for no marking', async () => {
    await setTier(appRid('billboard'), 'internet');
    const me = await svc.call('GET', '/api/v1/admin/users/me', { headers: bearer(dev) });
    const category = await svc.call('POST', '/api/v1/admin/markingCategories', {
      body: { name: 'Internet secrecy', categoryType: 'DISJUNCTIVE' },
      headers: bearer(dev),
    });
    const marking = await svc.call('POST', '/api/v1/admin/markings', {
      body: {
        categoryId: category.body.data.id,
        name: 'Staff only',
        initialRoleAssignments: [{ principalType: 'USER', principalId: me.body.data.id, role: 'ADMINISTER' }],
      },
      headers: bearer(dev),
    });
    expect(marking.status, JSON.stringify(marking.body)).toBe(201);
    const type = await svc.call('GET', '/api/v1/ontologies/cell-acme/objectTypes/sales.Customer', { headers: bearer(dev) });
    const mark = (change: string) =>
      svc.call('POST', `/api/v1/filesystem/resources/${enc(type.body.data.rid)}/${change}`, {
        body: { markingIds: [marking.body.data.id] },
        headers: bearer(dev),
      });
    expect((await mark('addMarkings')).status).toBe(200);
    const app = await svc.call('GET', link('billboard'));
    expect([app.status, app.body.data.objectTypes]).toEqual([200, []]);
    const customers = await svc.call('GET', link('billboard', '/objects/sales.Customer'));
    expect([customers.status, customers.body.error.code]).toEqual([404, 'object_type_not_found']);
    expect((await mark('removeMarkings')).status).toBe(200);
    expect((await svc.call('GET', link('billboard', '/objects/sales.Customer'))).status).toBe(200);
    await setTier(appRid('billboard'), 'group');
  });
});

describe('apps below the internet tier stay as they were', () => {
  it('company and restricted apps (even at the public tier) still require sign-in, and have no public app link', async () => {
    await setTier(appRid('lobby'), 'public');
    for (const slug of ['lobby', 'vault']) {
      expectSignIn(await rawGet(`${P}/cell-acme/apps/${slug}`));
      // The version's files, at the address the developer's page names.
      const { base } = injected((await rawGet(`${P}/cell-acme/apps/${slug}`, bearer(dev))).text);
      expectSignIn(await rawGet(`${base}app.js`));
      const res = await svc.call('GET', link(slug));
      expect([res.status, res.body.error.code]).toEqual([404, 'app_not_found']);
      const objects = await svc.call('GET', link(slug, '/objects/sales.Customer'));
      expect([objects.status, objects.body.error.code]).toEqual([404, 'app_not_found']);
    }
    // An app nobody published is not found either.
    expect((await svc.call('GET', link('nothing-here'))).body.error.code).toBe('app_not_found');
  });
});
