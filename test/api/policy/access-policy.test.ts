import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { injected, rawGet, release } from '../../support/hosting.ts';
import { bearer, browser, createUser, operatorKey, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { SALES } from '../../support/ontology.ts';
import { ACTIONS } from '../../support/ontology-actions.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Issue 27: one access policy (domain/policy). Each test is the reproduction of a finding of the
// outside audits, over real HTTP; each failed on the code before the policy.

let svc: TestService;
let dev: string;
let memberKey: string;
let devCookie: string;
/** A viewer ticket of cell-acme/crm: gus of Globex opened it through a public link. */
let viewerTicket: string;
/** A developer's ticket of cell-acme/crm. */
let devTicket: string;

const APPS = '/api/v1/developer/apps/cell-acme';
/** A workflow whose one step reads the platform's accounts: starting it is observable as a workflow_runs row. */
const WORKFLOW = { steps: [{ id: 'people', kind: 'use', capability: 'platform.accounts' }] };
const runs = async () => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM workflow_runs`.execute(svc.database.db)).rows[0]!.n;
const outbox = async () => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM outbox`.execute(svc.database.db)).rows[0]!.n;
const customers = async () =>
  (await sql<{ n: number }>`SELECT count(*)::int AS n FROM app_log_events WHERE name = 'sales.addCustomer'`.execute(svc.database.db))
    .rows[0]!.n;
const mcp = (headers: Record<string, string>, params: object) =>
  svc.call('POST', `${APPS}/crm/mcp`, {
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params },
    headers: { ...headers, accept: 'application/json, text/event-stream' },
  });

beforeAll(async () => {
  // No worker: a started run waits in the outbox, which is all these tests need to see.
  svc = await startTestService({ env: { SVC_RUN_START_WAIT_MS: '0' } });
  await seedCompanies(svc);
  dev = await passwordKey(svc, 'dana');
  memberKey = await passwordKey(svc, 'mo');
  devCookie = await signIn(svc, 'dana');
  expect((await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(dev) })).status).toBe(200);
  expect((await svc.call('POST', '/api/v1/developer/semantic/cell-acme/actionTypes', { body: ACTIONS, headers: bearer(dev) })).status).toBe(
    200,
  );
  const semantic = { types: ['sales.Customer'], actions: ['sales.addCustomer'] };
  await release(svc, dev, {
    namespace: 'cell-acme',
    slug: 'crm',
    version: '1.0.0',
    manifest: { sdk: ['semantic'], semantic, workflow: WORKFLOW },
  });
  await release(svc, dev, {
    namespace: 'cell-acme',
    slug: 'vault',
    version: '1.0.0',
    manifest: { sdk: ['semantic'], auth: { access: 'restricted' }, workflow: WORKFLOW },
  });
  const link = await svc.call('POST', '/api/v1/developer/shares', {
    body: { namespace: 'cell-acme', slug: 'crm', audience: 'public' },
    headers: bearer(dev),
  });
  expect(link.status, JSON.stringify(link.body)).toBe(201);
  const path = new URL(link.body.data.url).pathname.replace('/p', '');
  const outsider = await rawGet(`${svc.addresses.productionBase}${path}`, { cookie: await signIn(svc, 'gus') });
  expect(outsider.status).toBe(200);
  viewerTicket = injected(outsider.text).ticket;
  const me = await svc.call('GET', '/api/v1/developer/auth/me', { headers: bearer(viewerTicket) });
  expect(me.body.data).toMatchObject({ role: 'viewer', permissions: { actions: [] } });
  devTicket = injected((await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/crm`, { cookie: devCookie })).text).ticket;
}, 120_000);
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

describe('finding 1: an app ticket acts with its role in the data layer', () => {
  it('a viewer public-link ticket of another company → apply action → 403, nothing applied', async () => {
    const before = await customers();
    const res = await svc.call('POST', '/api/v1/ontologies/cell-acme/actions/sales.addCustomer/apply', {
      body: { parameters: { id: 'from-viewer', name: 'Mallory' } },
      headers: bearer(viewerTicket),
    });
    expect([res.status, res.body.error?.code]).toEqual([403, 'forbidden']);
    const batch = await svc.call('POST', '/api/v1/ontologies/cell-acme/actions/sales.addCustomer/applyBatch', {
      body: { requests: [{ parameters: { id: 'from-viewer-2', name: 'Mallory' } }] },
      headers: bearer(viewerTicket),
    });
    expect(batch.status).toBe(403);
    expect(await customers()).toBe(before);
    const object = await svc.call('GET', '/api/v1/ontologies/cell-acme/objects/sales.Customer/from-viewer', { headers: bearer(dev) });
    expect(object.status).toBe(404);
    // The viewer still reads what the app lists.
    expect((await svc.call('GET', '/api/v1/ontologies/cell-acme/objects/sales.Customer', { headers: bearer(viewerTicket) })).status).toBe(
      200,
    );
  });
});

describe('finding 2: workflow routes decide by the app role and the app-open rule', () => {
  it('a viewer ticket → execute the workflow → 403, no run started', async () => {
    const before = await runs();
    const res = await svc.call('POST', `${APPS}/crm/apis/run/execute`, { body: { input: {} }, headers: bearer(viewerTicket) });
    expect([res.status, res.body.error?.code]).toEqual([403, 'forbidden']);
    expect(await runs()).toBe(before);
  });

  it('a viewer ticket → read the runs of others (list and watch) → 403', async () => {
    // A member's run exists, so there is something to leak.
    expect((await svc.call('POST', `${APPS}/crm/apis/run/execute`, { body: { input: {} }, headers: bearer(memberKey) })).status).toBe(202);
    const listed = await svc.call('GET', `${APPS}/crm/workflow-runs`, { headers: bearer(viewerTicket) });
    expect([listed.status, listed.body.error?.code]).toEqual([403, 'forbidden']);
    // Refused before the stream opens, so the answer is an ordinary 403.
    const watch = await svc.call('GET', `${APPS}/crm/workflow-runs/watch`, { headers: bearer(viewerTicket) });
    expect(watch.status).toBe(403);
    // The developer still sees them.
    expect((await svc.call('GET', `${APPS}/crm/workflow-runs`, { headers: bearer(devTicket) })).body.data.runs.length).toBeGreaterThan(0);
  });

  it('a viewer ticket → MCP run tool → forbidden, no run started', async () => {
    const before = await runs();
    const res = await mcp(bearer(viewerTicket), { name: 'run', arguments: {} });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ isError: true, structuredContent: { code: 'forbidden' } });
    expect(await runs()).toBe(before);
  });

  it('a member key → execute the workflow of a restricted app it cannot open → 403, no run started', async () => {
    const before = await runs();
    const res = await svc.call('POST', `${APPS}/vault/apis/run/execute`, { body: { input: {} }, headers: bearer(memberKey) });
    expect([res.status, res.body.error?.code]).toEqual([403, 'forbidden']);
    expect(res.body.error.details).toEqual({ reason: 'restricted' });
    expect(await runs()).toBe(before);
    // The developer key still runs it.
    expect((await svc.call('POST', `${APPS}/vault/apis/run/execute`, { body: { input: {} }, headers: bearer(dev) })).status).toBe(202);
  });
});

describe('tickets end when the license under their role changes', () => {
  it('a developer downgraded to member → the developer ticket opened before is refused (it read types outside the manifest for up to 8 h)', async () => {
    const op = await operatorKey(svc);
    const dora = await createUser(svc, op, 'dora-dev', [{ cellId: 'cell-acme', role: 'developer' }]);
    const page = await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/crm`, { cookie: await signIn(svc, 'dora-dev') });
    const ticket = injected(page.text).ticket;
    // sales.Order is not in crm's manifest: only a developer's ticket reads it.
    const orders = '/api/v1/ontologies/cell-acme/objects/sales.Order';
    expect((await svc.call('GET', orders, { headers: bearer(ticket) })).status).toBe(200);
    const downgraded = await svc.call('PUT', `/api/v1/admin/users/${dora.id}/organizations/cell-acme`, {
      body: { role: 'member', admin: false },
      headers: bearer(op),
    });
    expect(downgraded.status, JSON.stringify(downgraded.body)).toBe(200);
    expect((await svc.call('GET', orders, { headers: bearer(ticket) })).status).toBe(401);
  });
});

describe('finding 4: built-in Owners follow the developer license', () => {
  it('a developer whose license was removed → no longer Owner of the app they created: cannot set tier public, cannot grant', async () => {
    const op = await operatorKey(svc);
    const lena = await createUser(svc, op, 'lena', [{ cellId: 'cell-acme', role: 'developer' }]);
    await release(svc, await passwordKey(svc, 'lena'), { namespace: 'cell-acme', slug: 'lenas', version: '1.0.0' });
    const rid = 'ri.workshop.svc.app.cell-acme.lenas';
    const removed = await svc.call('DELETE', `/api/v1/admin/users/${lena.id}/organizations/cell-acme`, { headers: bearer(op) });
    expect(removed.status, JSON.stringify(removed.body)).toBeLessThan(300);
    const web = browser(await signIn(svc, 'lena'), svc);
    const tier = await svc.call('POST', `/api/v1/filesystem/resources/${rid}/access`, { body: { tier: 'public' }, headers: web });
    expect(tier.status).toBe(404);
    const grant = await svc.call('POST', `/api/v1/filesystem/resources/${rid}/roles/add`, {
      body: { principal: lena.id, role: 'owner' },
      headers: web,
    });
    expect(grant.status).toBe(404);
    const view = await svc.call('GET', `/api/v1/filesystem/resources/${rid}`, { headers: bearer(dev) });
    expect(view.body.data.generalAccess).toBe('group');
  });
});

describe('finding 5: an agent key is never an Owner', () => {
  it('a read-only agent key → POST /api/v1/filesystem/resources/ri.workshop.svc.app.<cell>.<slug>/access {"tier":"public"} → 403', async () => {
    const issued = await svc.call('POST', '/api/v1/developer/agent-keys/cell-acme', { body: { agentId: 'auditor' }, headers: bearer(dev) });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    const agent = bearer(issued.body.data.key);
    const rid = 'ri.workshop.svc.app.cell-acme.crm';
    const res = await svc.call('POST', `/api/v1/filesystem/resources/${rid}/access`, { body: { tier: 'public' }, headers: agent });
    expect([res.status, res.body.error?.code]).toEqual([403, 'forbidden']);
    const grant = await svc.call('POST', `/api/v1/filesystem/resources/${rid}/roles/add`, {
      body: { principal: 'everyone', role: 'viewer' },
      headers: agent,
    });
    expect(grant.status).toBe(403);
    expect((await svc.call('GET', `/api/v1/filesystem/resources/${rid}`, { headers: bearer(dev) })).body.data.generalAccess).toBe('group');
  });
});

describe('finding 7: tickets never share', () => {
  it('a developer’s app ticket → create share → 403, no share made', async () => {
    const before = await svc.database.db.selectFrom('app_shares').select('id').execute();
    for (const body of [{ audience: 'public' }, { namespace: 'cell-acme', slug: 'crm', audience: 'users', account: 'gus' }]) {
      const res = await svc.call('POST', '/api/v1/developer/shares', { body, headers: bearer(devTicket) });
      expect([res.status, res.body.error?.code]).toEqual([403, 'forbidden']);
    }
    expect(await svc.database.db.selectFrom('app_shares').select('id').execute()).toHaveLength(before.length);
    // Sharing is the developers' through a key or a web session.
    const web = await svc.call('GET', '/api/v1/developer/shares?namespace=cell-acme&slug=crm', { headers: browser(devCookie, svc) });
    expect(web.status, JSON.stringify(web.body)).toBe(200);
  });
});

describe('finding 9: the app log takes events only from those who may open the app', () => {
  it('a member key → feedback on a restricted app it cannot open → 403, nothing recorded', async () => {
    const count = async () =>
      (await sql<{ n: number }>`SELECT count(*)::int AS n FROM app_log_events WHERE kind = 'feedback'`.execute(svc.database.db)).rows[0]!.n;
    const before = await count();
    const res = await svc.call('POST', '/api/v1/developer/log/cell-acme/events', {
      body: { slug: 'vault', events: [{ kind: 'feedback', topic: 'spam', rating: 1, message: 'from someone who cannot open it' }] },
      headers: bearer(memberKey),
    });
    expect([res.status, res.body.error?.code]).toEqual([403, 'forbidden']);
    expect(await count()).toBe(before);
  });
});

describe('finding 10: an MCP dry run starts nothing', () => {
  it('POST …/mcp tools/call run with x-svc-dry-run: true → answers the plan, no run started, nothing enqueued', async () => {
    const [runsBefore, outboxBefore] = [await runs(), await outbox()];
    const res = await mcp({ ...bearer(dev), 'x-svc-dry-run': 'true' }, { name: 'run', arguments: {} });
    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBeUndefined();
    expect(res.body.result.structuredContent).toMatchObject({
      dryRun: true,
      plan: { steps: [{ id: 'people' }], wouldStart: { api: 'run' } },
    });
    expect([await runs(), await outbox()]).toEqual([runsBefore, outboxBefore]);
  });
});
