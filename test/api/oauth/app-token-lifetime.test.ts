import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TestClock } from '../../support/clock.ts';
import { injected, rawGet, release } from '../../support/hosting.ts';
import { bearer, createUser, PASSWORD, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { approvedCode, authorizationRequest, codeGrant } from '../../support/oauth.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// What an OAuth app token derives from and what ends it (issue 27, findings 3 and 9): the share
// it was authorized through, the person's password, an absolute refresh lifetime, its audience
// (the app's MCP endpoint only), the token endpoint's `resource`, and refresh-token reuse.

const clock = new TestClock('2026-11-22T10:00:00Z');
let svc: TestService;
let dev: string;
let op: string;
let counter = 0;
const ORDERS = { namespace: 'cell-acme', slug: 'orders' };
const OTHER = { namespace: 'cell-acme', slug: 'other' };
const MCP = '/api/v1/developer/apps/cell-acme/orders/mcp';

beforeAll(async () => {
  svc = await startTestService({ clock });
  ({ op } = await seedCompanies(svc));
  dev = await passwordKey(svc, 'dana');
  await release(svc, dev, { ...ORDERS, version: '1.0.0' });
  await release(svc, dev, { ...OTHER, version: '1.0.0' });
}, 60_000);
afterAll(() => svc.close());
beforeEach(async () => {
  clock.set('2026-11-22T10:00:00Z');
  await resetRateLimits(svc);
});

/** A JSON-RPC ping of the orders MCP endpoint with the credential. */
const ping = (token: string) =>
  svc.call('POST', MCP, {
    body: { jsonrpc: '2.0', id: 1, method: 'ping' },
    headers: { ...bearer(token), accept: 'application/json, text/event-stream' },
  });
const tokenCall = (body: object) => svc.call('POST', '/api/v1/oauth/token', { body });

/** The whole flow for `login`: the host's client id and its first token pair. */
async function authorize(login: string, app = ORDERS) {
  const request = await authorizationRequest(svc, app);
  const code = await approvedCode(svc, login, request);
  const res = await tokenCall(codeGrant(request.client_id, code));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { clientId: request.client_id, access: res.body.access_token as string, refresh: res.body.refresh_token as string };
}
const refresh = (clientId: string, refreshToken: string) =>
  tokenCall({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });

describe('an app token ends with its source', () => {
  it('share revoked: the refresh answers invalid_grant and the access token is refused (401) at once', async () => {
    const shared = await svc.call('POST', '/api/v1/developer/shares', {
      body: { ...ORDERS, audience: 'users', account: 'gus' },
      headers: bearer(dev),
    });
    expect(shared.status, JSON.stringify(shared.body)).toBe(201);
    const host = await authorize('gus');
    expect((await ping(host.access)).status).toBe(200);

    const revoked = await svc.call('DELETE', `/api/v1/developer/shares/${shared.body.data.share.id}?namespace=cell-acme&slug=orders`, {
      headers: bearer(dev),
    });
    expect(revoked.status).toBe(200);
    const refused = await ping(host.access);
    expect([refused.status, refused.headers.get('www-authenticate')]).toEqual([401, expect.stringContaining('error="invalid_token"')]);
    const again = await refresh(host.clientId, host.refresh);
    expect([again.status, again.body.error]).toEqual([400, 'invalid_grant']);
  });

  it('own password change without revokeKeys: tickets, app tokens and refresh are refused; keys keep working', async () => {
    const { username } = await createUser(svc, op, `changer-${++counter}`, [{ cellId: 'cell-acme', role: 'developer' }]);
    const key = await passwordKey(svc, username);
    const host = await authorize(username);
    const page = await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/other`, { cookie: await signIn(svc, username) });
    const { ticket } = injected(page.text);
    const keyPage = await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/other`, bearer(key));
    const keyTicket = injected(keyPage.text).ticket;
    const me = (credential: string) => svc.call('GET', '/api/v1/developer/auth/me', { headers: bearer(credential) });
    expect((await me(ticket)).status).toBe(200);
    expect((await me(keyTicket)).status).toBe(200);

    const changed = await svc.call('POST', '/api/v1/web/password', {
      body: { login: username, currentPassword: PASSWORD, newPassword: 'a-brand-new-password' },
      headers: { origin: svc.addresses.baseUrl },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await me(ticket)).status).toBe(401);
    expect((await me(keyTicket)).status).toBe(401);
    expect((await ping(host.access)).status).toBe(401);
    expect((await refresh(host.clientId, host.refresh)).body.error).toBe('invalid_grant');
    expect((await me(key)).status).toBe(200);
  });

  it('refresh tokens live 30 days from the authorization: a refresh on day 20 does not carry the grant past day 30', async () => {
    const host = await authorize('mo');
    clock.set('2026-12-12T10:00:00Z');
    const day20 = await refresh(host.clientId, host.refresh);
    expect(day20.status, JSON.stringify(day20.body)).toBe(200);
    clock.set('2026-12-22T10:00:01Z');
    const day30 = await refresh(host.clientId, day20.body.refresh_token);
    expect([day30.status, day30.body.error]).toEqual([400, 'invalid_grant']);
  });
});

describe('an app token’s audience', () => {
  it('a token issued for the orders MCP address is refused (401 invalid_token) on the app’s ontology, SQL, workflow, log and usage routes', async () => {
    const host = await authorize('mo');
    expect((await ping(host.access)).status).toBe(200);
    const routes: [string, string][] = [
      ['GET', '/api/v1/ontologies/cell-acme/objectTypes'],
      ['POST', '/api/v1/sqlQueries/executeOntology'],
      ['GET', '/api/v1/developer/apps/cell-acme/orders/apis'],
      ['GET', '/api/v1/developer/apps/cell-acme/orders/workflow-runs'],
      ['POST', '/api/v1/developer/apps/cell-acme/orders/apis/run/execute'],
      ['POST', '/api/v1/developer/log/cell-acme/events'],
      ['GET', '/api/v1/developer/apps/cell-acme/orders/usage'],
      ['GET', '/api/v1/developer/auth/me'],
    ];
    for (const [method, path] of routes) {
      const res = await svc.call(method, path, { headers: bearer(host.access), ...(method === 'POST' ? { body: {} } : {}) });
      expect([path, res.status], JSON.stringify(res.body)).toEqual([path, 401]);
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
  });

  it('the token endpoint answers invalid_target when resource names another app than the code’s (RFC 8707)', async () => {
    const request = await authorizationRequest(svc, ORDERS);
    const code = await approvedCode(svc, 'mo', request);
    const other = `${svc.url}/api/v1/developer/apps/cell-acme/other/mcp`;
    const res = await tokenCall({ ...codeGrant(request.client_id, code), resource: other });
    expect([res.status, res.body.error]).toEqual([400, 'invalid_target']);
    // The right resource is accepted, on refresh too.
    const fresh = await approvedCode(svc, 'mo', request);
    const ok = await tokenCall({ ...codeGrant(request.client_id, fresh), resource: `${svc.url}${MCP}` });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const wrong = await tokenCall({
      grant_type: 'refresh_token',
      refresh_token: ok.body.refresh_token,
      client_id: request.client_id,
      resource: other,
    });
    expect([wrong.status, wrong.body.error]).toEqual([400, 'invalid_target']);
  });
});

describe('refresh-token reuse (RFC 9700 4.14)', () => {
  it('replaying an already-used refresh token answers invalid_grant and revokes the whole grant', async () => {
    const host = await authorize('mo');
    const rotated = await refresh(host.clientId, host.refresh);
    expect(rotated.status).toBe(200);
    expect((await ping(rotated.body.access_token)).status).toBe(200);

    const replay = await refresh(host.clientId, host.refresh);
    expect([replay.status, replay.body.error]).toEqual([400, 'invalid_grant']);
    // The legitimate holder's current pair ended with it.
    expect((await ping(rotated.body.access_token)).status).toBe(401);
    expect((await refresh(host.clientId, rotated.body.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('a dry-run replay revokes nothing', async () => {
    const host = await authorize('mo');
    const rotated = await refresh(host.clientId, host.refresh);
    const dry = await svc.call('POST', '/api/v1/oauth/token', {
      body: { grant_type: 'refresh_token', refresh_token: host.refresh, client_id: host.clientId },
      headers: { 'x-svc-dry-run': 'true' },
    });
    expect(dry.body.error).toBe('invalid_grant');
    expect((await ping(rotated.body.access_token)).status).toBe(200);
  });
});
