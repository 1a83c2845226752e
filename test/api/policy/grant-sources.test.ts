import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { injected, rawGet, release, ticketCookie } from '../../support/hosting.ts';
import { bearer, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { appToken } from '../../support/oauth.ts';
import { SALES } from '../../support/ontology.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Issue 27, leftover 1: an app ticket opened through a resource grant (a person's role on the
// app's resource) ends the moment that grant is removed or lowered, as one opened through a share
// ends with the share: over real HTTP, the same ticket's next request is refused.

let svc: TestService;
let dev: string;
let accounts: Record<'dana' | 'mo' | 'multi' | 'gus', string>;

const RID = 'ri.workshop.svc.app.cell-acme.vault';
const ME = '/api/v1/developer/auth/me';
/** A read of company data the app lists: what the ticket is for, judged by the ticket's own role. */
const CUSTOMERS = '/api/v1/ontologies/cell-acme/objects/sales.Customer';

const grant = async (principal: string, role: 'viewer' | 'editor' | 'owner') => {
  const res = await svc.call('POST', `/api/v1/filesystem/resources/${RID}/roles/add`, { body: { principal, role }, headers: bearer(dev) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
const removeGrant = async (principal: string) => {
  const res = await svc.call('POST', `/api/v1/filesystem/resources/${RID}/roles/remove`, { body: { principal }, headers: bearer(dev) });
  expect([res.status, res.body.data?.removed]).toEqual([200, true]);
};
/** Opens vault's production page signed in as `login`: the ticket the page carries, its cookie and a file of the version. */
const openPage = async (login: string) => {
  const page = await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/vault`, { cookie: await signIn(svc, login) });
  expect(page.status, page.text.slice(0, 300)).toBe(200);
  const { ticket, base } = injected(page.text);
  return { ticket, cookie: ticketCookie(page), file: `${base}index.html` };
};
const openVault = async (login: string) => (await openPage(login)).ticket;

beforeAll(async () => {
  svc = await startTestService();
  ({ accounts } = await seedCompanies(svc));
  dev = await passwordKey(svc, 'dana');
  expect((await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(dev) })).status).toBe(200);
  await release(svc, dev, {
    namespace: 'cell-acme',
    slug: 'vault',
    version: '1.0.0',
    manifest: { sdk: ['semantic'], auth: { access: 'restricted' }, semantic: { types: ['sales.Customer'] } },
  });
}, 120_000);
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

describe('a ticket opened through a resource grant ends with the grant', () => {
  it('grant Editor to another company’s person, open app (ticket), remove grant → the same ticket’s next request is 401', async () => {
    await grant(accounts.gus, 'editor');
    const { ticket, cookie, file } = await openPage('gus');
    const me = await svc.call('GET', ME, { headers: bearer(ticket) });
    expect([me.status, me.body.data?.role]).toEqual([200, 'editor']);
    expect((await svc.call('GET', CUSTOMERS, { headers: bearer(ticket) })).status).toBe(200);
    expect((await rawGet(file, { cookie })).status).toBe(200);
    await removeGrant(accounts.gus);
    const after = await svc.call('GET', CUSTOMERS, { headers: bearer(ticket) });
    expect([after.status, after.body.error?.code]).toEqual([401, 'unauthorized']);
    // The page's cookie stops admitting the version's files at once too (the principal cache is emptied).
    expect((await rawGet(file, { cookie })).status).toBe(302);
    // The ended ticket does not renew either (before, renewal was the only place the grant was judged again).
    const renewed = await svc.call('POST', '/api/v1/developer/apps/cell-acme/vault/tickets', { headers: bearer(ticket) });
    expect(renewed.status).toBe(401);
  });

  it('grant Editor, open app, renew the ticket, remove grant → the renewed ticket is 401 too (it records the same grant)', async () => {
    await grant(accounts.gus, 'editor');
    const ticket = await openVault('gus');
    const renewed = await svc.call('POST', '/api/v1/developer/apps/cell-acme/vault/tickets', { headers: bearer(ticket) });
    expect(renewed.status, JSON.stringify(renewed.body)).toBe(201);
    await removeGrant(accounts.gus);
    expect((await svc.call('GET', CUSTOMERS, { headers: bearer(renewed.body.data.ticket) })).status).toBe(401);
  });

  it('grant Editor, authorize an MCP host (app token), remove grant → the app token is 401 at once (it judges access at each request)', async () => {
    await grant(accounts.gus, 'editor');
    const token = await appToken(svc, 'gus', { namespace: 'cell-acme', slug: 'vault' });
    const mcp = () =>
      svc.call('POST', '/api/v1/developer/apps/cell-acme/vault/mcp', {
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        headers: { ...bearer(token), accept: 'application/json, text/event-stream' },
      });
    expect((await mcp()).status).toBe(200);
    await removeGrant(accounts.gus);
    const after = await mcp();
    expect(after.status).toBe(401);
  });

  it('grant a member of the company Viewer on the restricted app, open app (ticket), remove grant → the same ticket’s next request is 401', async () => {
    await grant(accounts.mo, 'viewer');
    const ticket = await openVault('mo');
    expect((await svc.call('GET', ME, { headers: bearer(ticket) })).body.data?.role).toBe('member');
    expect((await svc.call('GET', CUSTOMERS, { headers: bearer(ticket) })).status).toBe(200);
    await removeGrant(accounts.mo);
    expect((await svc.call('GET', CUSTOMERS, { headers: bearer(ticket) })).status).toBe(401);
  });

  it('grant Editor, open app (editor ticket), lower the grant to Viewer → the editor ticket is 401; opening again gives a viewer ticket', async () => {
    await grant(accounts.gus, 'editor');
    const ticket = await openVault('gus');
    await grant(accounts.gus, 'viewer');
    expect((await svc.call('GET', CUSTOMERS, { headers: bearer(ticket) })).status).toBe(401);
    const again = await openVault('gus');
    expect((await svc.call('GET', ME, { headers: bearer(again) })).body.data?.role).toBe('viewer');
    // Raising a grant ends nothing: the ticket keeps the role it was issued with until it is renewed.
    await grant(accounts.gus, 'owner');
    expect((await svc.call('GET', ME, { headers: bearer(again) })).body.data?.role).toBe('viewer');
    await removeGrant(accounts.gus);
  });

  it('grant Viewer to everyone, open app as another company’s person, set the tier back to group (removes the grant) → the ticket is 401', async () => {
    await grant('everyone', 'viewer');
    const ticket = await openVault('gus');
    expect((await svc.call('GET', ME, { headers: bearer(ticket) })).body.data?.role).toBe('viewer');
    expect((await svc.call('GET', CUSTOMERS, { headers: bearer(ticket) })).status).toBe(200);
    const tier = await svc.call('POST', `/api/v1/filesystem/resources/${RID}/access`, { body: { tier: 'group' }, headers: bearer(dev) });
    expect(tier.status, JSON.stringify(tier.body)).toBe(200);
    expect((await svc.call('GET', CUSTOMERS, { headers: bearer(ticket) })).status).toBe(401);
  });
});
