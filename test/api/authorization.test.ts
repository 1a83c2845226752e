import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findOntology } from '../../domain/ontology/repository.ts';
import { writeEdits } from '../../domain/ontology/write-edits.ts';
import { fixtureRoutes } from '../support/fixture-routes.ts';
import { injected, rawGet, release } from '../support/hosting.ts';
import { bearer, browser, operatorKey, passwordKey, resetRateLimits, seedCompanies, signIn } from '../support/identity.ts';
import { appToken } from '../support/oauth.ts';
import { SALES } from '../support/ontology.ts';
import { ACTIONS } from '../support/ontology-actions.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { openSse } from '../support/sse.ts';

let svc: TestService;
let devKey: string;
let memberKey: string;
let cookie: string;

beforeAll(async () => {
  svc = await startTestService({ extraRoutes: fixtureRoutes([]) });
  await seedCompanies(svc);
  devKey = await passwordKey(svc, 'dana');
  memberKey = await passwordKey(svc, 'mo');
  cookie = await signIn(svc, 'dana');
});
afterAll(() => svc.close());

describe('declared authorization (the route table, domain/policy/route-access.ts)', () => {
  it('lets a developer key through a developer-only interface', async () => {
    const res = await svc.call('GET', '/api/v1/developer/members', { headers: bearer(devKey) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('refuses a member key on a developer-only interface with 403 and an explanation', async () => {
    const res = await svc.call('GET', '/api/v1/developer/members', { headers: bearer(memberKey) });
    expect([res.status, res.body.error.code]).toEqual([403, 'forbidden']);
    expect(res.body.error.details).toEqual({ role: 'member', required: 'developer' });
    expect(res.body.error.message).toMatch(/developer-only interface.*member of cell-acme/);
  });

  it('accepts only the declared credential kinds: a session is no key', async () => {
    const res = await svc.call('GET', '/api/v1/developer/members', { headers: { cookie } });
    expect([res.status, res.body.error.code]).toEqual([401, 'unauthorized']);
    const me = await svc.call('GET', '/api/v1/developer/me', { headers: { cookie } });
    expect(me.status).toBe(401);
  });

  it('checks credentials before validating input, so nothing leaks to anonymous callers', async () => {
    const res = await svc.call('DELETE', '/api/v1/developer/keys/not-a-key');
    expect([res.status, res.body.error.code]).toEqual([401, 'unauthorized']);
  });

  it('member keys may see themselves', async () => {
    expect((await svc.call('GET', '/api/v1/developer/me', { headers: bearer(memberKey) })).status).toBe(200);
    expect((await svc.call('GET', '/api/v1/developer/keys', { headers: bearer(memberKey) })).status).toBe(200);
  });

  it('the stored-files question (CLI upload): developer keys of the namespace only', async () => {
    const path = `/api/v1/developer/apps/cell-acme/any/stored-files?sha256=${'0'.repeat(64)}`;
    expect((await svc.call('GET', path, { headers: bearer(devKey) })).status).toBe(200);
    expect((await svc.call('GET', path, { headers: bearer(memberKey) })).status).toBe(403);
    expect((await svc.call('GET', path, { headers: { cookie } })).status).toBe(401);
    expect((await svc.call('GET', path.replace('cell-acme', 'cell-globex'), { headers: bearer(devKey) })).status).toBe(403);
  });
});

describe('control plane: operators only', () => {
  const CONTROL_PLANE = [
    ['POST', '/api/v1/control-plane/companies/initialize'],
    ['POST', '/api/v1/control-plane/companies/cell-acme/cloud-instance'],
    ['POST', '/api/v1/control-plane/companies/cell-acme/folders'],
    ['POST', '/api/v1/control-plane/companies/cell-acme/agent-profiles'],
    ['GET', '/api/v1/control-plane/companies/cell-acme/provisioning-status'],
  ] as const;

  it('refuses anonymous callers, sessions, member and developer keys', async () => {
    for (const [method, path] of CONTROL_PLANE) {
      const asked = [
        [{}, 401],
        [{ cookie, origin: svc.addresses.baseUrl, 'sec-fetch-site': 'same-origin' }, 401],
        [bearer(memberKey), 403],
        [bearer(devKey), 403],
      ] as const;
      for (const [headers, status] of asked) {
        const res = await svc.call(method, path, { headers: { ...headers }, ...(method === 'POST' ? { body: {} } : {}) });
        expect(res.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(status);
      }
    }
  });
});

describe('usage and billing: developers of the company, the app’s own ticket for its usage', () => {
  let otherKey: string;
  let ticket: string;
  beforeAll(async () => {
    otherKey = await passwordKey(svc, 'gus');
    await release(svc, devKey, { namespace: 'cell-acme', slug: 'metered', version: '1.0.0' });
    ticket = injected((await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/metered`, { cookie })).text).ticket;
  });
  beforeEach(() => resetRateLimits(svc));

  const B = '/api/v1/developer/billing';
  // anonymous, web session, member key, developer key, developer key of another company, the app's ticket
  const MATRIX = [
    ['GET', '/api/v1/developer/apps/cell-acme/metered/usage', undefined, [401, 401, 403, 200, 403, 200]],
    ['GET', `${B}/prices`, undefined, [200, 200, 200, 200, 200, 200]],
    ['POST', `${B}/estimate`, { computeMinutes: 1 }, [401, 401, 200, 200, 200, 403]],
    ['GET', `${B}/cell-acme/summary`, undefined, [401, 401, 403, 200, 403, 403]],
    ['GET', `${B}/cell-acme/records`, undefined, [401, 401, 403, 200, 403, 403]],
    ['GET', `${B}/cell-acme/check?slug=metered&model=vision&inputTokens=1&outputTokens=1`, undefined, [401, 401, 403, 200, 403, 403]],
  ] as const;

  it('answers each credential as the matrix says', async () => {
    const callers = (): Record<string, string>[] => [{}, { cookie }, bearer(memberKey), bearer(devKey), bearer(otherKey), bearer(ticket)];
    for (const [method, path, body, statuses] of MATRIX) {
      const got = [];
      for (const headers of callers()) got.push((await svc.call(method, path, { headers, ...(body ? { body } : {}) })).status);
      expect(got, `${method} ${path}`).toEqual(statuses);
    }
  });
});

describe('app surface and MCP: the company’s keys, the app’s ticket, an app token for that app', () => {
  let otherKey: string;
  let ticket: string;
  let token: string;
  let otherToken: string;
  beforeAll(async () => {
    otherKey = await passwordKey(svc, 'gus');
    await release(svc, devKey, { namespace: 'cell-acme', slug: 'surface', version: '1.0.0' });
    await release(svc, devKey, { namespace: 'cell-acme', slug: 'elsewhere', version: '1.0.0' });
    ticket = injected((await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/surface`, { cookie })).text).ticket;
    token = await appToken(svc, 'mo', { namespace: 'cell-acme', slug: 'surface' });
    otherToken = await appToken(svc, 'mo', { namespace: 'cell-acme', slug: 'elsewhere' });
  });
  beforeEach(() => resetRateLimits(svc));

  const A = '/api/v1/developer/apps/cell-acme/surface';
  const PING = { jsonrpc: '2.0', id: 1, method: 'ping' };
  // anonymous, web session, member key, developer key, developer key of another company, the app's ticket, an app token
  // for the app, an app token for another app. An app token's audience is its app's MCP endpoint: 401 everywhere else.
  const MATRIX = [
    ['GET', `${A}/apis`, undefined, [401, 401, 200, 200, 403, 200, 401, 401]],
    ['GET', `${A}/about`, undefined, [401, 401, 200, 200, 403, 200, 401, 401]],
    ['GET', `${A}/card`, undefined, [401, 401, 200, 200, 403, 200, 401, 401]],
    ['GET', '/api/v1/developer/registry', undefined, [401, 401, 200, 200, 200, 403, 401, 401]],
    ['POST', `${A}/mcp`, PING, [401, 401, 200, 200, 403, 200, 200, 401]],
    ['GET', `/.well-known/oauth-protected-resource${A}/mcp`, undefined, [200, 200, 200, 200, 200, 200, 200, 200]],
    ['GET', '/.well-known/oauth-authorization-server', undefined, [200, 200, 200, 200, 200, 200, 200, 200]],
  ] as const;

  it('answers each credential as the matrix says', async () => {
    const mcp = { accept: 'application/json, text/event-stream' };
    const callers = (): Record<string, string>[] => [
      {},
      { cookie },
      bearer(memberKey),
      bearer(devKey),
      bearer(otherKey),
      bearer(ticket),
      bearer(token),
      bearer(otherToken),
    ];
    for (const [method, path, body, statuses] of MATRIX) {
      const got = [];
      for (const headers of callers()) {
        got.push((await svc.call(method, path, { headers: { ...headers, ...mcp }, ...(body ? { body } : {}) })).status);
      }
      expect(got, `${method} ${path}`).toEqual(statuses);
    }
  });
});

describe('app workflows: runs, APIs and execute, catalog, mail test', () => {
  let otherKey: string;
  let ticket: string;
  beforeAll(async () => {
    otherKey = await passwordKey(svc, 'gus');
    const workflow = { steps: [{ id: 'people', kind: 'use', capability: 'platform.accounts' }] };
    await release(svc, devKey, { namespace: 'cell-acme', slug: 'flowing', version: '1.0.0', manifest: { sdk: ['semantic'], workflow } });
    ticket = injected((await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/flowing`, { cookie })).text).ticket;
  });
  beforeEach(() => resetRateLimits(svc));

  const A = '/api/v1/developer/apps/cell-acme/flowing';
  const DRY = { 'x-svc-dry-run': 'true' };
  // anonymous, web session, member key, developer key, developer key of another company, the app's ticket
  const MATRIX = [
    ['GET', `${A}/workflow-runs`, undefined, [401, 401, 403, 200, 403, 200]],
    ['GET', `${A}/apis`, undefined, [401, 401, 200, 200, 403, 200]],
    ['POST', `${A}/apis/run/execute`, { input: {} }, [401, 401, 202, 202, 403, 202]],
    ['GET', '/api/v1/developer/capabilities/cell-acme', undefined, [401, 401, 403, 200, 403, 403]],
    ['POST', '/api/v1/developer/notify/test', undefined, [401, 403, 202, 202, 202, 403]],
    ['GET', '/schemas/manifest/workflow/v1.json', undefined, [200, 200, 200, 200, 200, 200]],
  ] as const;

  it('answers each credential as the matrix says (writes as dry runs)', async () => {
    const callers = (): Record<string, string>[] => [{}, { cookie }, bearer(memberKey), bearer(devKey), bearer(otherKey), bearer(ticket)];
    for (const [method, path, body, statuses] of MATRIX) {
      const got = [];
      for (const headers of callers()) {
        got.push(
          (await svc.call(method, path, { headers: { ...headers, ...(method === 'POST' ? DRY : {}) }, ...(body ? { body } : {}) })).status,
        );
      }
      expect(got, `${method} ${path}`).toEqual(statuses);
    }
  });
});

// The role x route matrix of the access and sharing routes: each credential kind and role against
// each route (writes as dry runs, so the matrix changes nothing). `other` is a developer of
// another company; `operator` is platform staff.
describe('role x route matrix: sharing, members, resources, app log', () => {
  type Caller = 'anonymous' | 'member' | 'developer' | 'other' | 'session' | 'operator';
  const keys: Partial<Record<Caller, string>> = {};
  const headersOf = (caller: Caller): Record<string, string> =>
    caller === 'anonymous' ? {} : caller === 'session' ? browser(cookie, svc) : bearer(keys[caller]!);
  const DRY = { 'x-svc-dry-run': 'true' };
  const APP = 'namespace=cell-acme&slug=hello';
  const APPS = 'ri.workshop.svc.applications.cell-acme';
  const ROUTES: { method: string; path: string; body?: unknown; expect: Record<Caller, number> }[] = [
    {
      method: 'GET',
      path: '/api/v1/developer/auth/me',
      expect: { anonymous: 401, member: 200, developer: 200, other: 200, session: 200, operator: 200 },
    },
    {
      method: 'GET',
      path: `/api/v1/developer/auth/me?${APP}`,
      expect: { anonymous: 401, member: 200, developer: 200, other: 403, session: 200, operator: 403 },
    },
    {
      method: 'GET',
      path: `/api/v1/developer/shares?${APP}`,
      expect: { anonymous: 401, member: 403, developer: 200, other: 403, session: 200, operator: 403 },
    },
    {
      method: 'POST',
      path: '/api/v1/developer/shares',
      body: { namespace: 'cell-acme', slug: 'hello', audience: 'company' },
      expect: { anonymous: 401, member: 403, developer: 202, other: 403, session: 202, operator: 403 },
    },
    {
      method: 'DELETE',
      path: `/api/v1/developer/shares/shr_000000000000000?${APP}`,
      expect: { anonymous: 401, member: 403, developer: 404, other: 403, session: 404, operator: 403 },
    },
    {
      method: 'GET',
      path: '/api/v1/developer/members',
      expect: { anonymous: 401, member: 403, developer: 200, other: 200, session: 401, operator: 200 },
    },
    {
      method: 'POST',
      path: '/api/v1/developer/members/import',
      body: [{ email: 'matrix@example.com' }],
      expect: { anonymous: 401, member: 403, developer: 202, other: 202, session: 401, operator: 202 },
    },
    {
      method: 'GET',
      path: '/api/v1/filesystem/resources?scope=organization',
      expect: { anonymous: 401, member: 200, developer: 200, other: 200, session: 200, operator: 200 },
    },
    {
      method: 'GET',
      path: `/api/v1/filesystem/resources/${APPS}`,
      expect: { anonymous: 401, member: 404, developer: 200, other: 404, session: 200, operator: 404 },
    },
    {
      method: 'GET',
      path: `/api/v1/filesystem/resources/${APPS}/roles`,
      expect: { anonymous: 401, member: 404, developer: 200, other: 404, session: 200, operator: 404 },
    },
    {
      method: 'POST',
      path: `/api/v1/filesystem/resources/${APPS}/roles/add`,
      body: { principal: 'cell-globex', role: 'viewer' },
      expect: { anonymous: 401, member: 404, developer: 202, other: 404, session: 202, operator: 404 },
    },
    {
      method: 'POST',
      path: `/api/v1/filesystem/resources/${APPS}/roles/remove`,
      body: { principal: 'cell-globex' },
      expect: { anonymous: 401, member: 404, developer: 202, other: 404, session: 202, operator: 404 },
    },
    {
      method: 'POST',
      path: `/api/v1/filesystem/resources/${APPS}/access`,
      body: { tier: 'public' },
      expect: { anonymous: 401, member: 404, developer: 202, other: 404, session: 202, operator: 404 },
    },
    {
      method: 'POST',
      path: `/api/v1/filesystem/resources/${APPS}/links`,
      body: {},
      expect: { anonymous: 401, member: 404, developer: 202, other: 404, session: 202, operator: 404 },
    },
    {
      method: 'DELETE',
      path: `/api/v1/filesystem/resources/${APPS}/links/lnk_000000000000000`,
      expect: { anonymous: 401, member: 404, developer: 404, other: 404, session: 404, operator: 404 },
    },
    {
      method: 'POST',
      path: '/api/v1/filesystem/links/redeem',
      body: { token: '000000000000000000000000000000000' },
      expect: { anonymous: 401, member: 404, developer: 404, other: 404, session: 404, operator: 404 },
    },
    {
      method: 'GET',
      path: '/api/v1/filesystem/principals?q=gus',
      expect: { anonymous: 401, member: 200, developer: 200, other: 200, session: 200, operator: 200 },
    },
    {
      method: 'POST',
      path: '/api/v1/developer/members/acc_0000000000000000/invitation',
      expect: { anonymous: 401, member: 403, developer: 404, other: 404, session: 401, operator: 404 },
    },
    {
      method: 'POST',
      path: '/api/v1/developer/log/cell-acme/events',
      body: { slug: 'hello', events: [{ kind: 'usage', name: 'matrix' }] },
      expect: { anonymous: 401, member: 202, developer: 202, other: 403, session: 401, operator: 403 },
    },
    {
      method: 'GET',
      path: '/api/v1/developer/log/cell-acme/events?slug=hello',
      expect: { anonymous: 401, member: 403, developer: 200, other: 403, session: 200, operator: 403 },
    },
    {
      method: 'PATCH',
      path: '/api/v1/developer/log/cell-acme/events/log_000000000000000',
      body: { status: 'planned' },
      expect: { anonymous: 401, member: 403, developer: 404, other: 403, session: 404, operator: 403 },
    },
    {
      method: 'GET',
      path: '/api/v1/developer/log/cell-acme/summary?slug=hello',
      expect: { anonymous: 401, member: 403, developer: 200, other: 403, session: 200, operator: 403 },
    },
    {
      method: 'PUT',
      path: '/api/v1/admin/organizations/cell-acme/seats',
      body: { limit: 10 },
      expect: { anonymous: 401, member: 403, developer: 403, other: 403, session: 401, operator: 202 },
    },
  ];

  beforeAll(async () => {
    const op = await operatorKey(svc);
    keys.member = memberKey;
    keys.developer = devKey;
    keys.other = await passwordKey(svc, 'gus');
    keys.operator = op;
    await release(svc, devKey, { namespace: 'cell-acme', slug: 'hello', version: '1.0.0' });
  });

  const cases = ROUTES.flatMap((route) => (Object.keys(route.expect) as Caller[]).map((caller) => ({ ...route, caller })));
  it.each(cases)('$method $path as $caller', async ({ method, path, body, caller, expect: statuses }) => {
    const res = await svc.call(method, path, { ...(body === undefined ? {} : { body }), headers: { ...headersOf(caller), ...DRY } });
    expect(res.status, JSON.stringify(res.body)).toBe(statuses[caller]);
  });
});

// The data layer's routes (issue 15). `ticket` is a member's ticket of an app whose manifest lists
// sales.Customer only. Writes as dry runs.
describe('role x route matrix: ontology and semantic definitions', () => {
  type Caller = 'anonymous' | 'member' | 'developer' | 'other' | 'session' | 'operator' | 'ticket';
  const creds: Partial<Record<Caller, Record<string, string>>> = {};
  const DRY = { 'x-svc-dry-run': 'true' };
  const O = '/api/v1/ontologies/cell-acme';
  const all = (status: number): Record<Caller, number> => ({
    anonymous: 401,
    member: status,
    developer: status,
    other: status,
    session: status,
    operator: status,
    ticket: status,
  });
  // Readable by the company's developers; by members and the ticket only when listed (sales.Customer).
  const listed = { anonymous: 401, member: 200, developer: 200, other: 404, session: 200, operator: 404, ticket: 200 };
  const unlisted = { anonymous: 401, member: 404, developer: 200, other: 404, session: 200, operator: 404, ticket: 404 };
  const SUBSCRIBE = '/api/v1/ontologySubscriptions/ontologies/cell-acme/streamSubscriptions';
  const ROUTES: { method: string; path: string; body?: unknown; stream?: true; expect: Record<Caller, number> }[] = [
    { method: 'GET', path: '/api/v1/ontologies', expect: all(200) },
    { method: 'GET', path: O, expect: listed },
    { method: 'GET', path: `${O}/objectTypes`, expect: listed },
    { method: 'GET', path: `${O}/objectTypes/sales.Customer`, expect: listed },
    { method: 'GET', path: `${O}/objectTypes/sales.Order`, expect: unlisted },
    { method: 'GET', path: `${O}/objectTypes/sales.Order/outgoingLinkTypes`, expect: unlisted },
    { method: 'GET', path: `${O}/objectTypes/sales.Order/outgoingLinkTypes/customer`, expect: unlisted },
    { method: 'GET', path: `${O}/objects/sales.Customer/c1`, expect: listed },
    { method: 'GET', path: `${O}/objects/sales.Order/1`, expect: unlisted },
    { method: 'GET', path: `${O}/objects/sales.Customer`, expect: listed },
    { method: 'GET', path: `${O}/objects/sales.Order`, expect: unlisted },
    { method: 'POST', path: `${O}/objects/sales.Customer/search`, body: {}, expect: listed },
    { method: 'POST', path: `${O}/objects/sales.Order/search`, body: {}, expect: unlisted },
    { method: 'POST', path: `${O}/objects/sales.Customer/aggregate`, body: { aggregation: [{ type: 'count' }] }, expect: listed },
    { method: 'POST', path: `${O}/objects/sales.Order/aggregate`, body: { aggregation: [{ type: 'count' }] }, expect: unlisted },
    { method: 'GET', path: `${O}/objects/sales.Customer/c1/links/orders`, expect: unlisted },
    { method: 'GET', path: `${O}/objects/sales.Order/1/links/customer`, expect: unlisted },
    { method: 'GET', path: `${O}/objects/sales.Order/1/links/customer/c1`, expect: { ...unlisted, developer: 404, session: 404 } },
    {
      method: 'POST',
      path: `${O}/objectSets/loadObjects`,
      body: { objectSet: { type: 'base', objectType: 'sales.Customer' } },
      expect: listed,
    },
    {
      method: 'POST',
      path: `${O}/objectSets/loadObjects`,
      body: { objectSet: { type: 'base', objectType: 'sales.Order' } },
      expect: unlisted,
    },
    {
      method: 'POST',
      path: `${O}/objectSets/aggregate`,
      body: { objectSet: { type: 'base', objectType: 'sales.Customer' }, aggregation: [{ type: 'count' }] },
      expect: listed,
    },
    {
      method: 'POST',
      path: `${O}/objectSets/createTemporary`,
      body: { objectSet: { type: 'base', objectType: 'sales.Customer' } },
      expect: { ...listed, member: 202, developer: 202, session: 202, ticket: 202 },
    },
    {
      method: 'GET',
      path: `${O}/objectSets/ri.object-set.svc.temporary.ost_000000000000000`,
      expect: { ...listed, member: 404, developer: 404, session: 404, ticket: 404 },
    },
    {
      method: 'POST',
      path: `${O}/edits`,
      body: { edits: [{ type: 'delete', objectType: 'sales.Customer', primaryKey: 'c1' }] },
      // The session is a developer's (dana).
      expect: { anonymous: 401, member: 403, developer: 202, other: 404, session: 202, operator: 404, ticket: 403 },
    },
    {
      method: 'POST',
      path: `${O}/objects/sales.Customer/import`,
      body: [{ id: 'c2' }],
      expect: { anonymous: 401, member: 403, developer: 202, other: 404, session: 202, operator: 404, ticket: 403 },
    },
    {
      method: 'POST',
      path: SUBSCRIBE,
      body: { requests: [{ objectSet: { type: 'base', objectType: 'sales.Customer' } }] },
      stream: true,
      expect: listed,
    },
    {
      method: 'POST',
      path: SUBSCRIBE,
      body: { requests: [{ objectSet: { type: 'base', objectType: 'sales.Order' } }] },
      stream: true,
      expect: unlisted,
    },
    {
      method: 'GET',
      path: '/api/v1/developer/semantic/cell-acme/types',
      expect: { anonymous: 401, member: 403, developer: 200, other: 403, session: 200, operator: 403, ticket: 403 },
    },
    {
      method: 'POST',
      path: '/api/v1/developer/semantic/cell-acme/types',
      body: SALES,
      expect: { anonymous: 401, member: 403, developer: 202, other: 403, session: 202, operator: 403, ticket: 403 },
    },
    // Actions: the app lists sales.addCustomer (member and ticket run it), not sales.setNote.
    { method: 'GET', path: `${O}/actionTypes`, expect: listed },
    { method: 'GET', path: `${O}/actionTypes/sales.addCustomer`, expect: listed },
    { method: 'GET', path: `${O}/actionTypes/sales.setNote`, expect: unlisted },
    {
      method: 'POST',
      path: `${O}/actions/sales.addCustomer/apply`,
      body: { parameters: { id: 'm1', name: 'M' } },
      expect: { ...listed, member: 202, developer: 202, session: 202, ticket: 202 },
    },
    {
      method: 'POST',
      path: `${O}/actions/sales.setNote/apply`,
      body: { parameters: { order: 1, note: 'n' } },
      expect: { ...unlisted, developer: 202, session: 202 },
    },
    {
      method: 'POST',
      path: `${O}/actions/sales.addCustomer/applyBatch`,
      body: { requests: [{ parameters: { id: 'm1', name: 'M' } }] },
      expect: { ...listed, member: 202, developer: 202, session: 202, ticket: 202 },
    },
    { method: 'POST', path: `${O}/objectTypes/sales.Customer/editsHistory`, body: {}, expect: listed },
    { method: 'POST', path: `${O}/objectTypes/sales.Order/editsHistory`, body: {}, expect: unlisted },
    {
      method: 'POST',
      path: '/api/v1/developer/semantic/cell-acme/actionTypes',
      body: ACTIONS,
      expect: { anonymous: 401, member: 403, developer: 202, other: 403, session: 202, operator: 403, ticket: 403 },
    },
    // Agent keys: the company's developers (the key to revoke does not exist).
    {
      method: 'GET',
      path: '/api/v1/developer/agent-keys/cell-acme',
      expect: { anonymous: 401, member: 403, developer: 200, other: 403, session: 200, operator: 403, ticket: 403 },
    },
    {
      method: 'POST',
      path: '/api/v1/developer/agent-keys/cell-acme',
      body: { agentId: 'matrix-bot' },
      expect: { anonymous: 401, member: 403, developer: 202, other: 403, session: 202, operator: 403, ticket: 403 },
    },
    // Branches: the namespace's developers; proposals decided by a human web login only.
    {
      method: 'GET',
      path: '/api/v1/developer/semantic/cell-acme/branches',
      expect: { anonymous: 401, member: 403, developer: 200, other: 403, session: 200, operator: 403, ticket: 403 },
    },
    {
      method: 'POST',
      path: '/api/v1/developer/semantic/cell-acme/branches',
      body: { name: 'matrix' },
      expect: { anonymous: 401, member: 403, developer: 202, other: 403, session: 202, operator: 403, ticket: 403 },
    },
    {
      method: 'GET',
      path: '/api/v1/developer/semantic/cell-acme/branches/none',
      expect: { anonymous: 401, member: 403, developer: 404, other: 403, session: 404, operator: 403, ticket: 403 },
    },
    {
      method: 'POST',
      path: '/api/v1/developer/semantic/cell-acme/branches/none/proposals',
      body: { title: 'T' },
      expect: { anonymous: 401, member: 403, developer: 404, other: 403, session: 404, operator: 403, ticket: 403 },
    },
    {
      method: 'GET',
      path: '/api/v1/developer/semantic/cell-acme/proposals',
      expect: { anonymous: 401, member: 403, developer: 200, other: 403, session: 200, operator: 403, ticket: 403 },
    },
    ...(['approve', 'reject', 'merge'] as const).map((decision) => ({
      method: 'POST',
      path: `/api/v1/developer/semantic/cell-acme/proposals/prp_0000000000000000/${decision}`,
      expect: { anonymous: 401, member: 403, developer: 403, other: 403, session: 404, operator: 403, ticket: 403 },
    })),
    {
      method: 'DELETE',
      path: '/api/v1/developer/agent-keys/cell-acme/key_0000000000000000',
      expect: { anonymous: 401, member: 403, developer: 404, other: 403, session: 404, operator: 403, ticket: 403 },
    },
    // Ontology SQL: a key's or ticket's own company; other and operator have no readable ontology there.
    { method: 'GET', path: `${O}/database`, expect: listed },
    {
      method: 'POST',
      path: '/api/v1/sqlQueries/executeOntology',
      body: { query: 'SELECT id FROM "sales.Customer"', ontology: 'cell-acme' },
      expect: listed,
    },
    {
      method: 'POST',
      path: '/api/v1/sqlQueries/executeOntology',
      body: { query: 'SELECT number FROM "sales.Order"', ontology: 'cell-acme' },
      expect: { anonymous: 401, member: 400, developer: 200, other: 404, session: 200, operator: 404, ticket: 400 },
    },
  ];

  beforeAll(async () => {
    creds.anonymous = {};
    creds.member = bearer(memberKey);
    creds.developer = bearer(devKey);
    creds.other = bearer(await passwordKey(svc, 'gus'));
    creds.session = browser(cookie, svc);
    creds.operator = bearer(await operatorKey(svc));
    const defined = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(devKey) });
    expect(defined.status, JSON.stringify(defined.body)).toBe(200);
    const actions = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/actionTypes', { body: ACTIONS, headers: bearer(devKey) });
    expect(actions.status, JSON.stringify(actions.body)).toBe(200);
    const ontology = (await findOntology(svc.database.db, 'cell-acme'))!;
    await svc.database.db.transaction().execute((trx) =>
      writeEdits(trx, {
        companyId: ontology.companyId,
        accountId: null,
        operationId: 'matrix-objects',
        actionTypeRid: null,
        edits: [
          { type: 'create', objectType: 'sales.Customer', properties: { id: 'c1' } },
          { type: 'create', objectType: 'sales.Order', properties: { number: 1 } },
        ],
      }),
    );
    await release(svc, devKey, {
      namespace: 'cell-acme',
      slug: 'crm',
      version: '1.0.0',
      manifest: { semantic: { types: ['sales.Customer'], actions: ['sales.addCustomer'] } },
    });
    const memberCookie = await signIn(svc, 'mo');
    creds.ticket = bearer(
      injected((await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/crm`, { cookie: memberCookie })).text).ticket,
    );
  });
  beforeEach(() => resetRateLimits(svc));

  const cases = ROUTES.flatMap((route) => (Object.keys(route.expect) as Caller[]).map((caller) => ({ ...route, caller })));
  it.each(cases)('$method $path as $caller', async ({ method, path, body, stream, caller, expect: statuses }) => {
    if (stream) {
      // An event stream never ends by itself: its status is all this matrix asks of it.
      const s = await openSse(`${svc.url}${path}`, body, { ...creds[caller] });
      s.close();
      expect(s.status, JSON.stringify(s.body)).toBe(statuses[caller]);
      return;
    }
    const res = await svc.call(method, path, { ...(body === undefined ? {} : { body }), headers: { ...creds[caller], ...DRY } });
    expect(res.status, JSON.stringify(res.body)).toBe(statuses[caller]);
  });
});
