import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureRoutes } from '../support/fixture-routes.ts';
import { bearer, passwordKey, seedCompanies, signIn } from '../support/identity.ts';
import { startTestService, type TestService } from '../support/service.ts';

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

describe('declared authorization', () => {
  it('lets a developer key through a developer-only interface', async () => {
    const res = await svc.call('GET', '/api/v1/test/developer-only', { headers: bearer(devKey) });
    expect(res.body.data).toEqual({ cellId: 'cell-acme' });
  });

  it('refuses a member key on a developer-only interface with 403 and an explanation', async () => {
    const res = await svc.call('GET', '/api/v1/test/developer-only', { headers: bearer(memberKey) });
    expect([res.status, res.body.error.code]).toEqual([403, 'forbidden']);
    expect(res.body.error.details).toEqual({ role: 'member', required: 'developer' });
    expect(res.body.error.message).toMatch(/developer-only interface.*member of cell-acme/);
  });

  it('accepts only the declared credential kinds: a session is no key', async () => {
    const res = await svc.call('GET', '/api/v1/test/developer-only', { headers: { cookie } });
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
